#!/usr/bin/env bash
# Session 36 (not run: the device time was spent): every GPU test and the sanitizers on a build with
# results/session36/debug_bit14.patch applied (main + the k-grouped diagnostic bits
# 13 and 14, .device/s36diag2). Run: `bash results/session36/scripts/final_tests.sh 2>&1 | tail -20`.
export B=.device/s36diag2/build/final
source ci/device_run_lib.sh
gpu_checks gpu_tests.log -m gpu tests
gzip $OUT/gpu_tests.log
echo "t=$SECONDS"
