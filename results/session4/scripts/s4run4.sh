#!/usr/bin/env bash
# Session 4, device run 4: epilogue warps with 1 or 2 producer warps (dH 4/5, GEMM 1 5/6): smoke,
# tests, interleaved timing. Stops at the first timeout.
source ci/device_run_lib.sh  # B, PYTHONPATH, PK_LIBRARY_PATH, GPU state, step()
step 40 smoke.log env PK_SMALL_SHAPE=300,4,2,256,256 PK_SM90_VARIANT_DH=5 PK_SM90_VARIANT_GEMM1=6 PK_SM90_MAX_CTAS=2 python3 ci/sm90_moe_small.py; tail -1 $OUT/smoke.log
step 90 tests.log python3 -m pytest -q -m gpu tests/test_sm90_moe.py -k "warps or few_ctas" -p no:cacheprovider; tail -1 $OUT/tests.log; grep -E "^FAILED|^E  " $OUT/tests.log | head -10
step 120 interleaved.log python3 benchmarks/interleaved.py --only "dH,GEMM 1" --rounds 7; grep -E "^\||^[0-9]+b" $OUT/interleaved.log
