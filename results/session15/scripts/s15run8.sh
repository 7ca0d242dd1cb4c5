#!/usr/bin/env bash
# Session 15, run 8 (library: run 7's): run 7 had GEMM 1 variant 5 faster alone at both shapes (-2.9 / -1.1 %) but the
# synchronised forward (routing + forward) +2.1 / +1.5 % with wide spreads; the forward and GEMM 1 again, 15 rounds
# of 10 reps, then 2 s back to back each.
source ci/device_run_lib.sh
step 300 ab.log python3 benchmarks/interleaved.py --rounds 15 --reps 10 --sustained 2 --match '^(GEMM 1 default|GEMM 1 epilogue warpgroup 128x192|layer fwd \(routing \+ forward\) default|layer fwd, GEMM 1 epilogue warpgroup)$'
grep -E "^\| |^[0-9]+b" $OUT/ab.log | grep -v "^| variant\|^|---"; echo "t=$SECONDS"
