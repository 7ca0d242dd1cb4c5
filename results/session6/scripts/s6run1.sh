#!/usr/bin/env bash
# Session 6, device run 1: verify HEAD (every GPU test, sanitizers of the layer) and measure the
# k-grouped split-staging variants 17/18/19 against the default 16 (interleaved), GEMM 1 4 vs 4 + 64.
source ci/device_run_lib.sh  # B, PYTHONPATH, PK_LIBRARY_PATH, GPU state, step()
step 150 gpu_tests.log python3 -m pytest -q -m gpu tests/ -p no:cacheprovider; tail -1 $OUT/gpu_tests.log; grep -E "^FAILED|^E  " $OUT/gpu_tests.log | head -10
step 200 interleaved.log python3 benchmarks/interleaved.py --only "bf16 out, wgrad variant staged_tma,bf16 out, wgrad variant split,accumulate, wgrad variant staged_tma,accumulate, wgrad variant split_wait1,GEMM 1 staged 128x192, 4,GEMM 1 staged 128x192, TMA" --rounds 7; grep -E "^\||^[0-9]+b" $OUT/interleaved.log
for tool in memcheck racecheck; do timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 python3 -m pytest -q -m gpu tests/test_sm90_kgrouped.py -k "test_accumulate or test_bf16_out or few_ctas" -p no:cacheprovider > $OUT/san_kg_$tool.log 2>&1; echo "kgrouped $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/san_kg_$tool.log | sort | uniq -c | tr '\n' ' ')"; done; echo "t=$SECONDS"
step 150 sanitize.txt bash ci/gpu_sanitize.sh $OUT; cat $OUT/sanitize.txt
cd $OUT && tar czf logs.tgz *.log *.txt *.json 2>/dev/null; ls $OUT
