#!/usr/bin/env bash
# Session 5, device run 9: GEMM 1 with z stored by TMA (4 + 64) and the new grouped-GEMM default
# (3 + 32 + 64): tests, interleaved GEMM 1 / GEMM 2 / dX, sanitizers.
source ci/device_run_lib.sh  # B, PYTHONPATH, PK_LIBRARY_PATH, GPU state, step()
step 40 smoke.log env PK_SMALL_SHAPE=600,4,2,256,384 PK_SM90_MAX_CTAS=2 PK_SM90_VARIANT_GEMM1=68 python3 ci/sm90_moe_small.py; tail -2 $OUT/smoke.log
step 150 tests.log python3 -m pytest -q -m gpu tests/test_sm90_gemm.py tests/test_sm90_moe.py -k "gemm or tma or few_ctas or bitwise" -p no:cacheprovider; tail -1 $OUT/tests.log; grep -E "^FAILED|^E  " $OUT/tests.log | head -10
step 150 interleaved.log python3 benchmarks/interleaved.py --only "GEMM 1 staged 128x192, 4 stages,GEMM 1 staged 128x192, TMA store,GEMM 2 staged, A by TMA,dX staged, A by TMA" --rounds 7; grep -E "^\||^[0-9]+b" $OUT/interleaved.log
mkdir -p $OUT/san; PK_SMALL_SHAPE=600,4,2,256,384 PK_SM90_VARIANT_GEMM1=68 PK_SM90_MAX_CTAS=2 T_SAN=60 bash ci/gpu_sanitize.sh "$OUT/san" 2>&1 | tee $OUT/sanitize.txt; echo "t=$SECONDS"
