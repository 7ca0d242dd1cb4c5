#!/usr/bin/env bash
# Session 5, device run 3: the wait_group 0 release (variant + 32) of the m-grouped kernels: tests
# (bitwise against the defaults), interleaved timing at both shapes, sanitizers.
source ci/device_run_lib.sh  # B, PYTHONPATH, PK_LIBRARY_PATH, GPU state, step()
step 40 smoke.log env PK_SMALL_SHAPE=300,4,2,256,256 PK_SM90_MAX_CTAS=2 PK_SM90_VARIANT_DH=36 PK_SM90_VARIANT_GEMM1=36 PK_SM90_VARIANT_DX=35 PK_SM90_VARIANT_GEMM2=35 python3 ci/sm90_moe_small.py; tail -2 $OUT/smoke.log
step 150 tests.log python3 -m pytest -q -m gpu tests/test_sm90_moe.py tests/test_sm90_gemm.py -k "wait0 or 33 or 35 or wgrad_staged or few_ctas" -p no:cacheprovider; tail -1 $OUT/tests.log; grep -E "^FAILED|^E  " $OUT/tests.log | head -10
step 240 interleaved.log python3 benchmarks/interleaved.py --only "dH epilogue warps,dH 2 epilogue warps,GEMM 1 staged 128x192,GEMM 2 staged, A by TMA,dX, A by TMA,dX staged, A by TMA" --rounds 5; grep -E "^\||^[0-9]+b" $OUT/interleaved.log
mkdir -p $OUT/san; PK_SMALL_SHAPE=300,4,2,256,256 PK_SM90_VARIANT_DH=36 PK_SM90_VARIANT_GEMM1=36 PK_SM90_VARIANT_DX=35 PK_SM90_VARIANT_GEMM2=35 PK_SM90_MAX_CTAS=2 T_SAN=60 bash ci/gpu_sanitize.sh "$OUT/san" 2>&1 | tee $OUT/sanitize.txt; echo "t=$SECONDS"
