#!/usr/bin/env bash
# Session 4, device run 3: dH epilogue warps (4) and GEMM 1 epilogue warps (5) with the one-warp
# 8-threads-per-row gather and no setmaxnreg (run 2 hung with a 160/176/176 split): tests, sanitizers,
# interleaved timing, bitwise pairs. Stops at the first timeout.
set -u
B=.device/head/build/final
export PYTHONPATH=. PK_LIBRARY_PATH=$B PYTHONUNBUFFERED=1
SECONDS=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
step() { local t=$1 log=$2; shift 2; timeout $t "$@" > $OUT/$log 2>&1; local r=$?; echo "[$log] rc=$r t=$SECONDS"; [ $r -eq 124 ] && { tail -3 $OUT/$log; exit 124; }; return 0; }
step 40 smoke.log env PK_SMALL_SHAPE=300,4,2,256,256 PK_SM90_VARIANT_DH=4 python3 ci/sm90_moe_small.py; tail -1 $OUT/smoke.log
step 40 smoke5.log env PK_SMALL_SHAPE=300,4,2,256,256 PK_SM90_VARIANT_GEMM1=5 PK_SM90_MAX_CTAS=2 python3 ci/sm90_moe_small.py; tail -1 $OUT/smoke5.log
step 90 tests.log python3 -m pytest -q -m gpu tests/test_sm90_moe.py -k "dh_warps or gemm1_warps or few_ctas or bitwise" -p no:cacheprovider; tail -1 $OUT/tests.log; grep -E "^FAILED|^E  " $OUT/tests.log | head -10
step 100 interleaved.log python3 benchmarks/interleaved.py --only "dH,GEMM 1" --rounds 5; grep -E "^\||^[0-9]+b" $OUT/interleaved.log
echo "== sanitizers (dH 4 + GEMM 1 5, I=256, 2 CTAs)"
PK_SMALL_SHAPE=300,4,2,256,256 PK_SM90_VARIANT_DH=4 PK_SM90_VARIANT_GEMM1=5 PK_SM90_MAX_CTAS=2 T_SAN=60 bash ci/gpu_sanitize.sh "$OUT" 2>&1 | tee $OUT/sanitize.txt; echo "t=$SECONDS"
