#!/usr/bin/env bash
# Session 5, device run 11: k-grouped 16 for fp32 outputs (TMA stores / reduce-adds): k-grouped tests,
# the MoE main_grad test with it, interleaved fp32 weight-gradient timing, memcheck + racecheck on the
# k-grouped accumulate tests.
source ci/device_run_lib.sh  # B, PYTHONPATH, PK_LIBRARY_PATH, GPU state, step()
step 120 tests.log python3 -m pytest -q -m gpu tests/test_sm90_kgrouped.py -p no:cacheprovider; tail -1 $OUT/tests.log; grep -E "^FAILED|^E  " $OUT/tests.log | head -10
step 60 tests_moe.log env PK_SM90_VARIANT_WGRAD=16 python3 -m pytest -q -m gpu tests/test_sm90_moe.py -k "weight_grads or few_ctas" -p no:cacheprovider; tail -1 $OUT/tests_moe.log; grep -E "^FAILED|^E  " $OUT/tests_moe.log | head -5
step 150 interleaved.log python3 benchmarks/interleaved.py --only "fp32 accumulate,fp32 out, wgrad variant lean,fp32 out, wgrad variant staged_tma" --rounds 7; grep -E "^\||^[0-9]+b" $OUT/interleaved.log
for tool in memcheck racecheck; do timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 python3 -m pytest -q -m gpu tests/test_sm90_kgrouped.py -k "test_accumulate or not_16_byte" -p no:cacheprovider > $OUT/san_$tool.log 2>&1; echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/san_$tool.log | sort | uniq -c | tr '\n' ' ')"; done; echo "t=$SECONDS"
