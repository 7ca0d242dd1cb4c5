#!/usr/bin/env bash
# Session 8, device run 10: ncu warp samples per SASS instruction of the 30B dH kernel in its 2 + 2 form
# (9 + 32: two gathering, two epilogue warps), where run 9 put the epilogue warps on the critical path
# (1.139 ms against 0.939 for 1 + 3): what the epilogue warps wait on. (As run, the ncu block was inline;
# it is now ci/ncu_sass_samples.sh, with the same commands.)
source ci/device_run_lib.sh
PK_SM90_VARIANT_DH=41 bash ci/ncu_sass_samples.sh EpiSwiGLUBwdWarps 30b dh22
echo "t=$SECONDS"
