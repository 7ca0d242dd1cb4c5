#!/usr/bin/env bash
# Session 8, device run 2: the second form of the k-grouped row skip (producer as in 41469ea, the
# consumers' tail chunk found once per tile). .device/old = 41469ea, .device/head = this commit.
# (1) the k-grouped and m-grouped GPU tests on the new library; (2) A/B across processes (4 each,
# shuffled rounds) of the layer's kernels at both shapes (more rounds for run 1's m-grouped result).
source ci/device_run_lib.sh
step 150 gpu_tests.log python3 -m pytest -q -m gpu tests/test_sm90_kgrouped.py tests/test_sm90_gemm.py -p no:cacheprovider; tail -1 $OUT/gpu_tests.log; grep -E "^FAILED|^E  " $OUT/gpu_tests.log | head -10
bash ci/ab_libraries.sh .device/old/build/final .device/head/build/final "^((GEMM 1|GEMM 2|dX|dH) default|dW[12] (bf16|fp32) out)$" 4 $OUT/ab.log
echo "t=$SECONDS"
