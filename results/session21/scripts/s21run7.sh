#!/usr/bin/env bash
# Session 21, run 7: HEAD's library (.device/s21c). ncu warp-stall samples per SASS instruction of the default dH at 30B
# (run 6 read its epilogue warpgroup as nearly critical there): which role waits, and on what.
export B=.device/s21c/build/final
source ci/device_run_lib.sh
step 200 ncu_dh30.log bash ci/ncu_sass_samples.sh 'EpiSwiGLUBwdWarps' 30b dh30
echo "t=$SECONDS"
