#!/usr/bin/env bash
# Session 17, run 4: the tensor-map encode on a thread with no CUDA context bound (run 3's three GPU failures).
# First the new tests against run 3's library (expected to fail: the bug reproduced), then every GPU test against
# the library with bind_device_context() (kernels unchanged: the fatbins differ only in internal symbol hashes).
source ci/device_run_lib.sh
step 120 old_lib.log python3 -m pytest -q -m gpu tests/test_sm90_moe.py tests/test_moe.py -k "fresh_thread or zero_filled or matches_reference" -p no:cacheprovider
tail -1 $OUT/old_lib.log; grep -E "^FAILED|KernelError" $OUT/old_lib.log | cut -c1-160 | head
export PK_LIBRARY_PATH=.device/new/build/final
step 420 gpu_tests.log python3 -m pytest -q -m gpu tests/ -p no:cacheprovider
tail -1 $OUT/gpu_tests.log; grep -E "^FAILED" $OUT/gpu_tests.log | head
gzip $OUT/gpu_tests.log; echo "t=$SECONDS"
