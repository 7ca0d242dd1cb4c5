#!/usr/bin/env bash
# Session 5, device run 1: wgrad variant 15 (ring staging) and dH 6/7 (z L2 prefetch): smoke,
# k-grouped + MoE tests of the new variants, interleaved timing, sanitizers on the new kernels.
source ci/device_run_lib.sh  # B, PYTHONPATH, PK_LIBRARY_PATH, GPU state, step()
step 40 smoke.log env PK_SMALL_SHAPE=300,4,2,256,256 PK_SM90_MAX_CTAS=2 PK_SM90_VARIANT_DH=6 PK_SM90_VARIANT_WGRAD=15 python3 ci/sm90_moe_small.py; tail -2 $OUT/smoke.log
step 150 tests.log python3 -m pytest -q -m gpu tests/test_sm90_kgrouped.py tests/test_sm90_moe.py -k "kgrouped or wgrad or ring or prefetch or few_ctas" -p no:cacheprovider; tail -1 $OUT/tests.log; grep -E "^FAILED|^E  " $OUT/tests.log | head -10
step 200 interleaved.log python3 benchmarks/interleaved.py --only "dH epilogue warps,dH 2 epilogue warps,bf16 out" --rounds 5; grep -E "^\||^[0-9]+b" $OUT/interleaved.log
mkdir -p $OUT/san; PK_SMALL_SHAPE=300,4,2,256,256 PK_SM90_VARIANT_DH=6 PK_SM90_VARIANT_WGRAD=15 PK_SM90_MAX_CTAS=2 T_SAN=60 bash ci/gpu_sanitize.sh "$OUT/san" 2>&1 | tee $OUT/sanitize.txt; echo "t=$SECONDS"
