#!/usr/bin/env bash
# Session 8, final device run on the session's library (.device/head; .device/old = 41469ea): two more
# A/B processes each of the m-grouped defaults (the row skip), then ci/final_device_run.sh (every GPU
# test, layer benchmark, timeline, host overhead, routing timing, layer memcheck + racecheck), then the
# benchmark again with 20 reps.
source ci/device_run_lib.sh
bash ci/ab_libraries.sh .device/old/build/final .device/head/build/final "^(GEMM 1|GEMM 2|dX) default$" 2 $OUT/ab.log
echo "t=$SECONDS"
bash ci/final_device_run.sh
step 150 bench2.log python3 benchmarks/bench_moe.py --reps 20 --json $OUT/bench2.json; grep -v "^{" $OUT/bench2.log | tail -9
cd $OUT && tar czf logs.tgz san timeline.log sanitize.txt bench2.json host.log routing_timing.txt && rm -rf san timeline.log sanitize.txt bench2.json host.log routing_timing.txt; ls $OUT; echo "t=$SECONDS"
