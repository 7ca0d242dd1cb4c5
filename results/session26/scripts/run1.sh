#!/usr/bin/env bash
# Session 26 run 1: HEAD's library (kernels unchanged since session 23) with the new backward lifetimes:
# every GPU test (the new peak-memory test among them), the sanitizers, then the benchmark with the library floor.
source ci/device_run_lib.sh
gpu_checks gpu_tests.log -m gpu tests
step 300 bench.log python3 benchmarks/bench_moe.py --reps 20 --json $OUT/bench.json; grep -v "^{" $OUT/bench.log | tail -24
echo "t=$SECONDS"
