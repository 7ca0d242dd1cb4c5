#!/usr/bin/env bash
# Session 16, run 2 (library: run 1's, eb29018's tree). The layer rows of run 1 (17 / 18 / GEMM 1 5 + 32 each 1-2 %
# faster than the default in the layer while 17 / 18 were 2-13 % slower alone) again, with more rounds and the
# default by its id (wgrad 19, GEMM 1 5) as a noise control: 11 interleaved rounds, then 3 s back to back each.
source ci/device_run_lib.sh
step 400 ab.log python3 benchmarks/interleaved.py --rounds 11 --sustained 3 --match '^(GEMM 1 default|GEMM 1 epilogue warpgroup 128x192(, wait0)?|layer fwd \(routing \+ forward\) default|layer fwd, GEMM 1 epilogue warpgroup(, wait0)?|layer fwd\+bwd( default|, GEMM 1 epilogue warpgroup, wait0|, wgrad variant 1[789]))$'
grep -E "^\| |^[0-9]+b" $OUT/ab.log | grep -v "^| variant\|^|---"
echo "t=$SECONDS"
