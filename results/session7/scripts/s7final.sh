#!/usr/bin/env bash
# Session 7, final device run: the session's library (k-grouped bf16 default 19; GEMM 1 at H < 3072 with
# the TMA store; the weight gradients' consumers without the proxy fence): interleaved A/B of the weight
# gradients with and without the fence (rotated rounds), ci/final_device_run.sh (every GPU test, layer
# benchmark, timeline, host overhead, routing timing, layer memcheck + racecheck), the benchmark again
# (20 reps), racecheck of the k-grouped accumulate and bf16-out cases (every variant).
source ci/device_run_lib.sh
step 150 interleaved.log python3 benchmarks/interleaved.py --rounds 7 --match "^dW[12] (bf16 out|fp32 accumulate)(, ours (with the proxy fence|MMAs only(, with the proxy fence)?)|, wgrad variant (staged_tma|split_bk128))?$"; grep -E "^\||^[0-9]+b" $OUT/interleaved.log
bash ci/final_device_run.sh
step 120 bench2.log python3 benchmarks/bench_moe.py --reps 20 --json $OUT/bench2.json; grep -v "^{" $OUT/bench2.log | tail -9
timeout 150 compute-sanitizer --tool racecheck --error-exitcode 9 python3 -m pytest -q -m gpu tests/test_sm90_kgrouped.py -k "test_accumulate or (test_bf16_out and 512)" -p no:cacheprovider > $OUT/san_kg_racecheck.log 2>&1; echo "kgrouped racecheck rc=$? $(grep -E 'RACECHECK SUMMARY|passed|failed' $OUT/san_kg_racecheck.log | sort | uniq -c | tr '\n' ' ')"
cd $OUT && tar czf logs.tgz san timeline.log sanitize.txt bench2.log bench2.json host.log routing_timing.txt && rm -rf san timeline.log sanitize.txt bench2.log bench2.json host.log routing_timing.txt; ls $OUT
