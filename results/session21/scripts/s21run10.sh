#!/usr/bin/env bash
# Session 21, run 10: HEAD's library (.device/s21g). ncu warp-stall samples by warp role (ci/ncu_sass_samples.sh, now
# with benchmarks/ncu_roles.py) of the 235B dH (is its epilogue warpgroup critical there too, as at 30B?) and of the
# first weight-gradient kernel of a 30B backward (dW2, variant 21): where its consumers and producers wait.
export B=.device/s21g/build/final
source ci/device_run_lib.sh
step 200 ncu_dh235.log bash ci/ncu_sass_samples.sh 'EpiSwiGLUBwdWarps' 235b dh235
step 200 ncu_dw2_30.log bash ci/ncu_sass_samples.sh 'kgrouped_wgrad' 30b dw2_30
head -30 $OUT/roles_dh235.txt | cut -c1-150; head -30 $OUT/roles_dw2_30.txt | cut -c1-150
echo "t=$SECONDS"
