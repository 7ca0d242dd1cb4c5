#!/usr/bin/env bash
# Session 5, device run 8: m-grouped staged epilogue with TMA stores (variant 3 + 64): grouped-GEMM and
# MoE tests (bitwise against the defaults), interleaved GEMM 2 / dX timing, sanitizers.
source ci/device_run_lib.sh  # B, PYTHONPATH, PK_LIBRARY_PATH, GPU state, step()
step 40 smoke.log env PK_SMALL_SHAPE=300,4,2,256,256 PK_SM90_MAX_CTAS=2 PK_SM90_VARIANT_GEMM2=67 PK_SM90_VARIANT_DX=99 python3 ci/sm90_moe_small.py; tail -2 $OUT/smoke.log
step 150 tests.log python3 -m pytest -q -m gpu tests/test_sm90_gemm.py tests/test_sm90_moe.py -k "67 or 99 or staged_tma or wgrad or few_ctas" -p no:cacheprovider; tail -1 $OUT/tests.log; grep -E "^FAILED|^E  " $OUT/tests.log | head -10
step 200 interleaved.log python3 benchmarks/interleaved.py --only "GEMM 2 staged, A by TMA,dX staged, A by TMA" --rounds 7; grep -E "^\||^[0-9]+b" $OUT/interleaved.log
mkdir -p $OUT/san; PK_SMALL_SHAPE=600,4,2,256,256 PK_SM90_VARIANT_GEMM2=67 PK_SM90_VARIANT_DX=99 PK_SM90_MAX_CTAS=2 T_SAN=60 bash ci/gpu_sanitize.sh "$OUT/san" 2>&1 | tee $OUT/sanitize.txt; echo "t=$SECONDS"
