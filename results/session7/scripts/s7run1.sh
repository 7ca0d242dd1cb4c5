#!/usr/bin/env bash
# Session 7, device run 1: k-grouped variant 24 (32-row chunks, 6 stages, wait_group 1, TMA store) against
# the defaults 16 / 19: the k-grouped GPU tests (every variant), then interleaved A/B (bf16 out, fp32
# accumulate, MMA-only diagnostics), then memcheck + racecheck of k-grouped tests (every variant, 24 included).
source ci/device_run_lib.sh
step 120 kg_tests.log python3 -m pytest -q -m gpu tests/test_sm90_kgrouped.py -p no:cacheprovider; tail -1 $OUT/kg_tests.log; grep -E "^FAILED|^E  " $OUT/kg_tests.log | head -10
step 180 interleaved.log python3 benchmarks/interleaved.py --rounds 7 --match "^dW[12] bf16 out$|bf16 out, wgrad variant (staged_tma|bk32_wait1)$|accumulate, wgrad variant (staged_tma|split_bk128|bk32_wait1)$|MMAs only( bk32|$)"; grep -E "^\||^[0-9]+b" $OUT/interleaved.log
step 150 kg_memcheck.log compute-sanitizer --tool memcheck --error-exitcode 9 python3 -m pytest -q -m gpu tests/test_sm90_kgrouped.py -k "test_bf16_out or test_persistent_loop_few_ctas" -p no:cacheprovider; grep -E "ERROR SUMMARY|passed|failed" $OUT/kg_memcheck.log | tail -3
step 150 kg_racecheck.log compute-sanitizer --tool racecheck --error-exitcode 9 python3 -m pytest -q -m gpu tests/test_sm90_kgrouped.py -k "test_accumulate or (test_bf16_out and 384)" -p no:cacheprovider; grep -E "RACECHECK SUMMARY|passed|failed" $OUT/kg_racecheck.log | sort | uniq -c | tail -4
echo "t=$SECONDS"
