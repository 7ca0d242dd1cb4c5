#!/usr/bin/env bash
# Session 25 run 7: the benchmark table on this session's card, HEAD's library (kernels unchanged since session 23).
source ci/device_run_lib.sh
step 240 bench.log python3 benchmarks/bench_moe.py --reps 20 --json $OUT/bench.json; grep -v "^{" $OUT/bench.log | tail -16
echo "t=$SECONDS"
