#!/usr/bin/env bash
# Session 16, run 8 (library: aead9bd's, session 15's kernels): the weight gradients' existing 2-CTA forms against the
# defaults, per kernel, 9 interleaved rounds and 3 s back to back each: dW1 with the pairs sharing dz (debug bit 9,
# opt-in; measured in session 8 only in synchronised calls, before later changes) and dW2 without its pairs (debug
# bit 2; the default shares hw). The default by its id (split_bk128 = 19) is the control.
source ci/device_run_lib.sh
step 300 ab.log python3 benchmarks/interleaved.py --rounds 9 --sustained 3 --match '^(dW1 bf16 out(, 2-CTA pairs sharing dz \(debug bit 9\)|, wgrad variant split_bk128)?|dW2 bf16 out(, no 2-CTA pairs \(debug bit 2\)|, wgrad variant split_bk128)?)$'
grep -E "^\| |^[0-9]+b" $OUT/ab.log | grep -v "^| variant\|^|---"
echo t=$SECONDS
