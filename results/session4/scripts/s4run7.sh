#!/usr/bin/env bash
# Session 4, device run 7: dH epilogue warps with 4-row branch-free batches and a clamp-free path
# (variants 4, 5): smoke, the layer tests, sanitizers on both, interleaved dH timing.
set -u
B=.device/head/build/final
export PYTHONPATH=. PK_LIBRARY_PATH=$B PYTHONUNBUFFERED=1
SECONDS=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
step() { local t=$1 log=$2; shift 2; timeout $t "$@" > $OUT/$log 2>&1; local r=$?; echo "[$log] rc=$r t=$SECONDS"; [ $r -eq 124 ] && { tail -3 $OUT/$log; exit 124; }; return 0; }
step 40 smoke.log env PK_SMALL_SHAPE=300,4,2,256,256 PK_SM90_MAX_CTAS=2 python3 ci/sm90_moe_small.py; tail -1 $OUT/smoke.log
step 120 tests.log python3 -m pytest -q -m gpu tests/test_sm90_moe.py -p no:cacheprovider; tail -1 $OUT/tests.log; grep -E "^FAILED|^E  " $OUT/tests.log | head -10
step 100 interleaved.log python3 benchmarks/interleaved.py --only "dH" --rounds 7; grep -E "^\||^[0-9]+b" $OUT/interleaved.log
for v in 4 5; do mkdir -p $OUT/san_dh$v; PK_SMALL_SHAPE=300,4,2,256,256 PK_SM90_VARIANT_DH=$v PK_SM90_MAX_CTAS=2 T_SAN=50 bash ci/gpu_sanitize.sh "$OUT/san_dh$v" 2>&1 | tee $OUT/sanitize_dh$v.txt; echo "t=$SECONDS"; done
