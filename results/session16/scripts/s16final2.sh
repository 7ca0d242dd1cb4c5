#!/usr/bin/env bash
# Session 16, run 9 (library: aead9bd's, the measured one): the layer benchmark with the mega_moe autograd step timed
# next to the direct calls, before the back-to-back and graph runs (it was timed after them), 20 reps.
source ci/device_run_lib.sh
step 240 bench.log python3 benchmarks/bench_moe.py --reps 20 --json $OUT/bench.json; grep -v "^{" $OUT/bench.log | tail -16
echo t=$SECONDS
