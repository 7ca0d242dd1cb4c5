#!/usr/bin/env bash
# Session 5, device run 13: the k-grouped GPU tests after the public wrapper's aligned-copy path.
source ci/device_run_lib.sh  # B, PYTHONPATH, PK_LIBRARY_PATH, GPU state, step()
step 90 tests.log python3 -m pytest -q -m gpu tests/test_sm90_kgrouped.py -p no:cacheprovider; tail -1 $OUT/tests.log; grep -E "^FAILED|^E  " $OUT/tests.log | head -10
