#!/usr/bin/env bash
# Session 6, device run 8: the layer benchmark again on the final library (run 7's), 20 reps, for the
# run-to-run spread of this card at its power cap.
source ci/device_run_lib.sh
step 200 bench.log python3 benchmarks/bench_moe.py --reps 20 --json $OUT/bench.json; grep -v "^{" $OUT/bench.log | tail -12
