#!/usr/bin/env bash
# Session 9, device run 9: 16-byte stores from the registers (quad transposes) in GEMM 1's epilogues (the staged
# default's h, the cooperative form's z and h). Library of HEAD (.device/head) against the session's start
# (.device/old, kernels of 31d1942): the MoE GPU tests, memcheck + racecheck at I = 128 (cooperative GEMM 1) and
# I = 384 (staged GEMM 1), then A/B across processes (4 each) of GEMM 1 default and cooperative 128 x 256.
source ci/device_run_lib.sh
step 200 tests.log python3 -m pytest -q -x tests/test_sm90_moe.py; tail -2 $OUT/tests.log
mkdir -p $OUT/san128 $OUT/san384
PK_SMALL_SHAPE=300,4,2,256,128 PK_SM90_MAX_CTAS=3 T_SAN=120 step 260 san128.log bash ci/gpu_sanitize.sh $OUT/san128; cat $OUT/san128.log
PK_SMALL_SHAPE=300,4,2,256,384 PK_SM90_MAX_CTAS=3 T_SAN=120 step 260 san384.log bash ci/gpu_sanitize.sh $OUT/san384; cat $OUT/san384.log
bash ci/ab_libraries.sh .device/old/build/final .device/head/build/final "^GEMM 1 (default|cooperative 128x256)$" 4 $OUT/ab.log
echo "t=$SECONDS"
