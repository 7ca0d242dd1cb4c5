#!/usr/bin/env bash
# Session 24 run 6: the benchmark table on this session's card with HEAD's kernels (.device/head = d5e7606's tree;
# main's kernel code has not changed since).
export B=.device/head/build/final
source ci/device_run_lib.sh
step 240 bench.log python3 benchmarks/bench_moe.py --reps 20 --json $OUT/bench.json; grep -v "^{" $OUT/bench.log | tail -16
echo "t=$SECONDS"
