#!/usr/bin/env bash
# Session 29 run 3b: the lean form of run 3 for the device time left (~4 minutes): the k-grouped GPU tests (the only
# kernels the candidate changes: every other translation unit's PTX is untouched) on .device/cand, then dW1 / dW2 bf16
# and the layer against main's head, one process a shape.
# Run: `bash results/session29/scripts/run3b.sh 2>&1 | tail -40`, carry [".device/cand/build/final", ".device/head/build/final"].
B=.device/cand/build/final
source ci/device_run_lib.sh
step 100 gpu_tests.log python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_sm90_kgrouped.py -x; tail -1 $OUT/gpu_tests.log
AB_N30=1 AB_N235=1 ab_merged .device/head/build/final .device/cand/build/final '^layer fwd\+bwd default$|^dW[12] bf16 out$'
echo "t=$SECONDS"
