#!/usr/bin/env bash
# Session 9, second final device run, on the library of HEAD with the 16-byte register stores (.device/head):
# ci/final_device_run.sh (every GPU test, layer benchmark, timeline, host overhead, routing timing, layer
# memcheck + racecheck), then the benchmark again with 20 reps.
source ci/device_run_lib.sh
bash ci/final_device_run.sh
step 150 bench2.log python3 benchmarks/bench_moe.py --reps 20 --json $OUT/bench2.json; grep -v "^{" $OUT/bench2.log | tail -9
cd $OUT && tar czf logs.tgz san sanitize.txt bench2.json host.log routing_timing.txt && rm -rf san sanitize.txt bench2.json host.log routing_timing.txt; ls $OUT; echo "t=$SECONDS"
