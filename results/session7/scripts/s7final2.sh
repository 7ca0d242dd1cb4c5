#!/usr/bin/env bash
# Session 7, second final device run: (1) A/B across processes of the dH L2 prefetch: the library of ae7c4e7
# (.device/old, run 7's) and of 261a5a5 (.device/head) alternating, 3 processes each, dH (and GEMM 1 as a
# control: unchanged) at both shapes; (2) ci/final_device_run.sh on 261a5a5.
source ci/device_run_lib.sh
# (As run, this block was inline; the same loop and summary are now ci/ab_libraries.sh. In the log the
# second library's rows are labelled "head" there, "new" here.)
bash ci/ab_libraries.sh .device/old/build/final .device/head/build/final "^(GEMM 1|dH) default$" 3 $OUT/ab_prefetch.log
echo "t=$SECONDS"
bash ci/final_device_run.sh
cd $OUT && tar czf logs.tgz san timeline.log sanitize.txt host.log routing_timing.txt && rm -rf san timeline.log sanitize.txt host.log routing_timing.txt; ls $OUT; echo "t=$SECONDS"
