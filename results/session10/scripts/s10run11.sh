#!/usr/bin/env bash
# Session 10, device run 11: the gather producer loads the next tile's row indices a tile ahead (.device/pf, the
# working tree after f4db873): MoE + GEMM GPU tests, memcheck + racecheck of the small layer (3 CTAs: each CTA
# walks many tiles), then HEAD's library against it across processes (4 each, the first alternating):
# GEMM 1 (default and cooperative 128 x 256) and the whole layer.
source ci/device_run_lib.sh
PK_LIBRARY_PATH=.device/pf/build/final step 200 tests.log python3 -m pytest -q -x tests/test_sm90_moe.py tests/test_sm90_gemm.py; tail -1 $OUT/tests.log
mkdir -p $OUT/san; PK_LIBRARY_PATH=.device/pf/build/final PK_SMALL_SHAPE=300,4,2,256,384 PK_SM90_MAX_CTAS=3 T_SAN=100 step 220 san.log bash ci/gpu_sanitize.sh $OUT/san; cat $OUT/san.log
step 300 ab_libs.log bash ci/ab_libraries.sh .device/head/build/final .device/pf/build/final "^GEMM 1 (default|cooperative 128x256)$|^layer fwd\+bwd default$" 4 $OUT/ab_rows.log
cat $OUT/ab_libs.log
echo "t=$SECONDS"
