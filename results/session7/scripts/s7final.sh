#!/usr/bin/env bash
# Session 7, final device run. (1) A/B across processes of the SwiGLU epilogue change: the library of
# ca30983 (.device/old) and the session's last (.device/head) alternating, 4 processes each, GEMM 1 and dH
# defaults at both shapes. (2) ci/final_device_run.sh on the session's library (every GPU test, layer
# benchmark, timeline, host overhead, routing timing, layer memcheck + racecheck), the benchmark again
# (20 reps), racecheck of the k-grouped accumulate and bf16-out cases (every variant).
source ci/device_run_lib.sh
# (As run, this block was inline; the same loop and summary are now ci/ab_libraries.sh. In the log the
# second library's rows are labelled "head" there, "new" here.)
bash ci/ab_libraries.sh .device/old/build/final .device/head/build/final "^(GEMM 1|dH) default$" 4 $OUT/ab_epilogue.log
echo "t=$SECONDS"
bash ci/final_device_run.sh
step 120 bench2.log python3 benchmarks/bench_moe.py --reps 20 --json $OUT/bench2.json; grep -v "^{" $OUT/bench2.log | tail -9
timeout 150 compute-sanitizer --tool racecheck --error-exitcode 9 python3 -m pytest -q -m gpu tests/test_sm90_kgrouped.py -k "test_accumulate or (test_bf16_out and 512)" -p no:cacheprovider > $OUT/san_kg_racecheck.log 2>&1; echo "kgrouped racecheck rc=$? $(grep -E 'RACECHECK SUMMARY|passed|failed' $OUT/san_kg_racecheck.log | sort | uniq -c | tr '\n' ' ')"
cd $OUT && tar czf logs.tgz san timeline.log sanitize.txt bench2.log bench2.json host.log routing_timing.txt && rm -rf san timeline.log sanitize.txt bench2.log bench2.json host.log routing_timing.txt; ls $OUT; echo "t=$SECONDS"
