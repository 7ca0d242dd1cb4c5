#!/usr/bin/env bash
# Session 6, device run 6: the weight-gradient chunk loop with precomputed wgmma descriptors (all
# pipelines; 22 = 16 with the old per-chunk rebuild): every GPU test, interleaved A/B (full and MMA-only),
# memcheck + racecheck of the k-grouped small cases.
source ci/device_run_lib.sh
step 200 gpu_tests.log python3 -m pytest -q -m gpu tests/ -p no:cacheprovider; tail -1 $OUT/gpu_tests.log; grep -E "^FAILED|^E  " $OUT/gpu_tests.log | head -10
step 200 interleaved.log python3 benchmarks/interleaved.py --rounds 7 --match "bf16 out, wgrad variant (staged_tma|split_wait1$|split_bk128)|MMAs only|accumulate, wgrad variant (staged_tma$|split_bk128)"; grep -E "^\||^[0-9]+b" $OUT/interleaved.log
for tool in memcheck racecheck; do timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 python3 -m pytest -q -m gpu tests/test_sm90_kgrouped.py -k "test_accumulate or test_bf16_out or few_ctas" -p no:cacheprovider > $OUT/san_kg_$tool.log 2>&1; echo "kgrouped $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/san_kg_$tool.log | sort | uniq -c | tr '\n' ' ')"; done; echo "t=$SECONDS"
