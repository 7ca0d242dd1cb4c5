#!/usr/bin/env bash
# Session 15, run 5 (library: d41cab4): ncu warp-stall samples per SASS instruction of the new dH default (30B), to
# see which role (gathering producers, consumers, epilogue warpgroup) it now waits in.
source ci/device_run_lib.sh
step 200 ncu_dh.log bash ci/ncu_sass_samples.sh 'EpiSwiGLUBwdWarps' 30b dh30
step 200 ncu_dh235.log bash ci/ncu_sass_samples.sh 'EpiSwiGLUBwdWarps' 235b dh235
cat $OUT/ncu_dh.log $OUT/ncu_dh235.log | head -100 | cut -c1-170; echo "t=$SECONDS"
