#!/usr/bin/env bash
# Session 24 run 2: 32-deep k-blocks with twice the stages (branch next/bk32, built into .device/bk32): the MoE GPU
# tests (every variant, the new "k32" / "k32_wait0" among them), both sanitizers with GEMM 1 6 and dH 11, and the
# candidates against the defaults in one process a shape.
export B=.device/bk32/build/final
source ci/device_run_lib.sh
SAN_ENV="PK_SM90_VARIANT_GEMM1=6 PK_SM90_VARIANT_DH=11" gpu_checks gpu_tests.log -m gpu tests/
step 60 san43.log env PK_SMALL_SHAPE=500,4,2,256,768 PK_SM90_MAX_CTAS=4 PK_SM90_VARIANT_DH=43 bash ci/gpu_sanitize.sh $OUT
cat $OUT/san43.log
M='^(GEMM 1 (default|k32, 8 stages)|dH (default|k32, 6 stages.*)|layer fwd\+bwd( default|, k32 .*))$'
IL_TIMEOUT=300 interleaved_step sweep.log --rounds 7 --match "$M"
gzip $OUT/gpu_tests.log; rm -f $OUT/sanitize_*.log; echo "t=$SECONDS"
