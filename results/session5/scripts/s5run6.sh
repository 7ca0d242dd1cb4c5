#!/usr/bin/env bash
# Session 5, device run 6: dH with z prefetched into L1 (variants 8/9 + 32): tests (bitwise against
# the defaults), interleaved dH timing at both shapes, sanitizers.
source ci/device_run_lib.sh  # B, PYTHONPATH, PK_LIBRARY_PATH, GPU state, step()
step 40 smoke.log env PK_SMALL_SHAPE=300,4,2,256,256 PK_SM90_MAX_CTAS=2 PK_SM90_VARIANT_DH=40 python3 ci/sm90_moe_small.py; tail -2 $OUT/smoke.log
step 120 tests.log python3 -m pytest -q -m gpu tests/test_sm90_moe.py -k "prefetch_l1 or few_ctas" -p no:cacheprovider; tail -1 $OUT/tests.log; grep -E "^FAILED|^E  " $OUT/tests.log | head -10
step 200 interleaved.log python3 benchmarks/interleaved.py --only "dH epilogue warps,dH 2 epilogue warps" --rounds 7; grep -E "^\||^[0-9]+b" $OUT/interleaved.log
mkdir -p $OUT/san; PK_SMALL_SHAPE=300,4,2,256,256 PK_SM90_VARIANT_DH=40 PK_SM90_MAX_CTAS=2 T_SAN=60 bash ci/gpu_sanitize.sh "$OUT/san" 2>&1 | tee $OUT/sanitize.txt; echo "t=$SECONDS"
