#!/usr/bin/env bash
# Session 23, run 2: ncu warp-stall samples of the new default dH at 30B (.device/s23c), split by warp role: after run 1
# (-3 % where -5..-10 % was predicted), do the consumers still wait for the hand-off buffer, and what do the epilogue
# warps stall on now? Compare with session 21's run 7 (results/session21/run7/roles_dh30.txt, HEAD's kernels then).
export B=.device/s23c/build/final
source ci/device_run_lib.sh
step 200 ncu_dh30.log bash ci/ncu_sass_samples.sh 'EpiSwiGLUBwdWarps' 30b dh30
cat $OUT/roles_dh30.txt | cut -c1-160 | head -60
echo "t=$SECONDS"
