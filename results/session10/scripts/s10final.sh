#!/usr/bin/env bash
# Session 10, final device run on HEAD's library (.device/head; every kernel SASS-identical to one in run 1's
# library; new defaults: GEMM 2 / dX ping-pong 128 x 192 staged per warp, GEMM 1 cooperative 128 x 256 at 235B): ci/final_device_run.sh (every GPU test, layer benchmark, timeline, host overhead,
# routing timing, layer memcheck + racecheck). Second call: s10final_b.sh.
source ci/device_run_lib.sh
bash ci/final_device_run.sh
cd $OUT && tar czf logs.tgz san sanitize.txt host.log routing_timing.txt && rm -rf san sanitize.txt host.log routing_timing.txt; ls $OUT; echo "t=$SECONDS"
