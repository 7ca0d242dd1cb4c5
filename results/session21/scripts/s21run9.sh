#!/usr/bin/env bash
# Session 21, run 9: HEAD's library (.device/s21g). ncu warp-stall samples per SASS instruction of the default GEMM 1 at
# 30B (its epilogue warpgroup, as run 7 did for dH): does its epilogue warpgroup idle, or bound it like dH's?
export B=.device/s21g/build/final
source ci/device_run_lib.sh
step 200 ncu_gemm1_30.log bash ci/ncu_sass_samples.sh 'EpiSwiGLUFwdWarps' 30b gemm1_30
echo "t=$SECONDS"
