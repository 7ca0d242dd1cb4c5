#!/usr/bin/env bash
# Session 5, device run 14: the k-grouped and MoE GPU tests after folding the fp32 staged epilogue.
source ci/device_run_lib.sh  # B, PYTHONPATH, PK_LIBRARY_PATH, GPU state, step()
step 90 tests.log python3 -m pytest -q -m gpu tests/test_sm90_kgrouped.py tests/test_sm90_moe.py -k "kgrouped or wgrad or weight_grads" -p no:cacheprovider; tail -1 $OUT/tests.log; grep -E "^FAILED|^E  " $OUT/tests.log | head -10
