#!/usr/bin/env bash
# Session 4, device run 4: epilogue warps with 1 or 2 producer warps (dH 4/5, GEMM 1 5/6): smoke,
# tests, interleaved timing. Stops at the first timeout.
set -u
B=.device/head/build/final
export PYTHONPATH=. PK_LIBRARY_PATH=$B PYTHONUNBUFFERED=1
SECONDS=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
step() { local t=$1 log=$2; shift 2; timeout $t "$@" > $OUT/$log 2>&1; local r=$?; echo "[$log] rc=$r t=$SECONDS"; [ $r -eq 124 ] && { tail -3 $OUT/$log; exit 124; }; return 0; }
step 40 smoke.log env PK_SMALL_SHAPE=300,4,2,256,256 PK_SM90_VARIANT_DH=5 PK_SM90_VARIANT_GEMM1=6 PK_SM90_MAX_CTAS=2 python3 ci/sm90_moe_small.py; tail -1 $OUT/smoke.log
step 90 tests.log python3 -m pytest -q -m gpu tests/test_sm90_moe.py -k "warps or few_ctas" -p no:cacheprovider; tail -1 $OUT/tests.log; grep -E "^FAILED|^E  " $OUT/tests.log | head -10
step 120 interleaved.log python3 benchmarks/interleaved.py --only "dH,GEMM 1" --rounds 7; grep -E "^\||^[0-9]+b" $OUT/interleaved.log
