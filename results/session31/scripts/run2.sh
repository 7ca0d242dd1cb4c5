#!/usr/bin/env bash
# Session 31 run 2: the benchmark twice more on run 1's H200 (warm, same library), for the card's own spread.
# Run: `bash results/session31/scripts/run2.sh`, carry [".device/head/build/final"].
source ci/device_run_lib.sh
for i in 2 3; do
  step 200 bench$i.log python3 benchmarks/bench_moe.py --reps 20 --json $OUT/bench$i.json; grep -E "^\| (30b|235b)" $OUT/bench$i.log
done
