#!/usr/bin/env bash
# Session 4, device run 3: dH epilogue warps (4) and GEMM 1 epilogue warps (5) with the one-warp
# 8-threads-per-row gather and no setmaxnreg (run 2 hung with a 160/176/176 split): tests, sanitizers,
# interleaved timing, bitwise pairs. Stops at the first timeout.
source ci/device_run_lib.sh  # B, PYTHONPATH, PK_LIBRARY_PATH, GPU state, step()
step 40 smoke.log env PK_SMALL_SHAPE=300,4,2,256,256 PK_SM90_VARIANT_DH=4 python3 ci/sm90_moe_small.py; tail -1 $OUT/smoke.log
step 40 smoke5.log env PK_SMALL_SHAPE=300,4,2,256,256 PK_SM90_VARIANT_GEMM1=5 PK_SM90_MAX_CTAS=2 python3 ci/sm90_moe_small.py; tail -1 $OUT/smoke5.log
step 90 tests.log python3 -m pytest -q -m gpu tests/test_sm90_moe.py -k "dh_warps or gemm1_warps or few_ctas or bitwise" -p no:cacheprovider; tail -1 $OUT/tests.log; grep -E "^FAILED|^E  " $OUT/tests.log | head -10
step 100 interleaved.log python3 benchmarks/interleaved.py --only "dH,GEMM 1" --rounds 5; grep -E "^\||^[0-9]+b" $OUT/interleaved.log
echo "== sanitizers (dH 4 + GEMM 1 5, I=256, 2 CTAs)"
PK_SMALL_SHAPE=300,4,2,256,256 PK_SM90_VARIANT_DH=4 PK_SM90_VARIANT_GEMM1=5 PK_SM90_MAX_CTAS=2 T_SAN=60 bash ci/gpu_sanitize.sh "$OUT" 2>&1 | tee $OUT/sanitize.txt; echo "t=$SECONDS"
