#!/usr/bin/env bash
# Session 18, run 1: the 2-CTA cluster forms on PairScheduler (no idle slot on a group's odd last m-tile) and the
# new cluster forms of the defaults (GEMM 1 5 + 16 = 21, dH 10 + 32 + 16 = 58): correctness (every cluster
# variant of the layer tests; memcheck / racecheck at a small shape with tails and an odd dH n-block count), then
# each against the defaults back to back (1.5 s) and synchronised (3 shuffled rounds), and the layer with both.
B=.device/s18a/build/final
source ci/device_run_lib.sh
step 240 tests.log python3 -m pytest -q -x -p no:cacheprovider tests/test_sm90_moe.py -k "cluster"
tail -2 $OUT/tests.log
step 240 san.log env PK_SMALL_SHAPE=500,4,2,256,768 PK_SM90_VARIANT_GEMM1=21 PK_SM90_VARIANT_DH=58 PK_SM90_MAX_CTAS=4 bash ci/gpu_sanitize.sh $OUT
cat $OUT/san.log
M='GEMM 1 default|GEMM 1 epilogue warpgroup 128x192, 2-CTA B multicast|GEMM 1 staged 128x192, 2-CTA B multicast|dH default|dH default, 2-CTA B multicast|GEMM 2 default|GEMM 2 staged, 2-CTA B multicast|dX default|dX staged, 2-CTA B multicast|layer fwd\+bwd default|layer fwd\+bwd, 2-CTA pairs for GEMM 1 and dH'
step 300 kern.log python3 benchmarks/interleaved.py --shapes 30b,235b --match "^($M)\$" --rounds 3 --reps 5 --sustained 1.5
grep "^|\|^[0-9a-z]" $OUT/kern.log | grep -v -- "---" | grep -v "min-max"
echo "t=$SECONDS"
