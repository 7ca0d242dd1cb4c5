#!/usr/bin/env bash
# Session 10, device run 10: session 9's final library (ff43779, .device/s9) against HEAD's, alternating processes
# (3 each, ci/ab_libraries.sh): GEMM 1 (the never-run tidy 4c8a5d6 reordered its staged epilogue's PTX), GEMM 2,
# dX, dH and the whole layer with each library's defaults, so this session's layer numbers can be set against
# session 9's on the same card state.
source ci/device_run_lib.sh
step 400 ab_libs.log bash ci/ab_libraries.sh .device/s9/build/final .device/head/build/final "^(GEMM 1|GEMM 2|dX|dH) default$|^layer fwd\+bwd default$" 3 $OUT/ab_rows.log
cat $OUT/ab_libs.log
echo "t=$SECONDS"
