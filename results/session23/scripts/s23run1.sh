#!/usr/bin/env bash
# Session 23, run 1: the leaner dH epilogue-warp row loop (.device/s23c) against HEAD's library before it
# (.device/s23base, 7b317c0's kernels = 9d2ee69's). Every GPU test and both sanitizers on s23c, the A/B of dH and
# the layer across processes, then the benchmark table on s23c.
export B=.device/s23c/build/final
source ci/device_run_lib.sh
gpu_checks gpu_tests.log -m gpu tests/
ab_shapes .device/s23base/build/final $B '^(dH default|layer fwd\+bwd default)$'
step 240 bench.log python3 benchmarks/bench_moe.py --reps 20 --json $OUT/bench.json; grep -v "^{" $OUT/bench.log | tail -16
gzip $OUT/gpu_tests.log; rm -f $OUT/sanitize_*.log; echo "t=$SECONDS"
