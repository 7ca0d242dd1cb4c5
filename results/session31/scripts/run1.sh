#!/usr/bin/env bash
# Session 31 run 1: main's library as it is (kernels = session 27's; .device/head) on the card the tool lends
# (asked for no kind: an H200 if one comes; the README's H200 rows are session 26's, before session 27's dW1 change):
# the benchmark table, the per-kernel timeline, every GPU test and the sanitizers on this exact library.
# Run: `bash results/session31/scripts/run1.sh 2>&1 | tail -70`, carry [".device/head/build/final"].
B=.device/head/build/final
source ci/device_run_lib.sh
step 200 bench.log python3 benchmarks/bench_moe.py --reps 20 --json $OUT/bench.json; grep -v "^{" $OUT/bench.log | tail -24
step 120 tl.log python3 benchmarks/timeline_moe.py --shapes 235b,30b --iters 7 --clocks; grep -v Warn $OUT/tl.log | grep -v "^  _warn" | cut -c1-110
gpu_checks gpu_tests.log -m gpu tests
gzip $OUT/gpu_tests.log
echo "t=$SECONDS"
