#!/usr/bin/env bash
# Session 20, run 5: run 4's identity-side-by-cp.async against the default again, 15 shuffled rounds in one process
# (run 4: 235B dW1 -7.7 % with wide spreads, 30B +0.7 / +3.5 %), with dW1's opt-in 2-CTA pairs sharing dz. HEAD's library.
B=.device/s19f/build/final
source ci/device_run_lib.sh
interleaved_step wgrad.log --rounds 15 --seed 5 \
  --match '^dW[12] bf16 out$|bf16 out, ours, identity side by cp.async$|^dW1 bf16 out, 2-CTA pairs sharing dz'
echo "t=$SECONDS"
