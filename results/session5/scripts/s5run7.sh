#!/usr/bin/env bash
# Session 5, device run 7: k-grouped variant 16 (bf16 tiles stored by TMA): k-grouped tests (every
# variant), MoE tests with it, interleaved bf16 weight-gradient timing, sanitizers.
source ci/device_run_lib.sh  # B, PYTHONPATH, PK_LIBRARY_PATH, GPU state, step()
step 40 smoke.log env PK_SMALL_SHAPE=300,4,2,256,256 PK_SM90_MAX_CTAS=2 PK_SM90_VARIANT_WGRAD=16 python3 ci/sm90_moe_small.py; tail -2 $OUT/smoke.log
step 150 tests.log python3 -m pytest -q -m gpu tests/test_sm90_kgrouped.py tests/test_sm90_moe.py -k "kgrouped or wgrad_tma or few_ctas" -p no:cacheprovider; tail -1 $OUT/tests.log; grep -E "^FAILED|^E  " $OUT/tests.log | head -10
step 200 interleaved.log python3 benchmarks/interleaved.py --only "bf16 out, wgrad variant staged_wait0,bf16 out, wgrad variant staged_tma,dW2 bf16 out,dW1 bf16 out" --rounds 7; grep -E "^\||^[0-9]+b" $OUT/interleaved.log
mkdir -p $OUT/san; PK_SMALL_SHAPE=300,4,2,256,256 PK_SM90_VARIANT_WGRAD=16 PK_SM90_MAX_CTAS=2 T_SAN=60 bash ci/gpu_sanitize.sh "$OUT/san" 2>&1 | tee $OUT/sanitize.txt; echo "t=$SECONDS"
