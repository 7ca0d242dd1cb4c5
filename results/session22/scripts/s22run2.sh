#!/usr/bin/env bash
# Session 22, run 2: why run 1's library was slower. .device/s22b = s22a with PK_SM90_FULL_TILES=1 switching the
# empty-block skip off at run time (same code). Across processes against HEAD's library (.device/s22base, which
# ignores the variable): each m-grouped default with and without the skip. If "full tiles" on s22b is as slow as
# the skip, the code (not the skip) costs; if it matches s22base, the skip itself does.
export B=.device/s22b/build/final
source ci/device_run_lib.sh
AB_N30=2 AB_N235=2 ab_shapes .device/s22base/build/final $B '^(GEMM 1|dH|GEMM 2|dX) default(, full tiles)?$'
echo "t=$SECONDS"
