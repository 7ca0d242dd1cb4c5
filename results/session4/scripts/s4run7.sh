#!/usr/bin/env bash
# Session 4, device run 7: dH epilogue warps with 4-row branch-free batches and a clamp-free path
# (variants 4, 5): smoke, the layer tests, sanitizers on both, interleaved dH timing.
source ci/device_run_lib.sh  # B, PYTHONPATH, PK_LIBRARY_PATH, GPU state, step()
step 40 smoke.log env PK_SMALL_SHAPE=300,4,2,256,256 PK_SM90_MAX_CTAS=2 python3 ci/sm90_moe_small.py; tail -1 $OUT/smoke.log
step 120 tests.log python3 -m pytest -q -m gpu tests/test_sm90_moe.py -p no:cacheprovider; tail -1 $OUT/tests.log; grep -E "^FAILED|^E  " $OUT/tests.log | head -10
step 100 interleaved.log python3 benchmarks/interleaved.py --only "dH" --rounds 7; grep -E "^\||^[0-9]+b" $OUT/interleaved.log
for v in 4 5; do mkdir -p $OUT/san_dh$v; PK_SMALL_SHAPE=300,4,2,256,256 PK_SM90_VARIANT_DH=$v PK_SM90_MAX_CTAS=2 T_SAN=50 bash ci/gpu_sanitize.sh "$OUT/san_dh$v" 2>&1 | tee $OUT/sanitize_dh$v.txt; echo "t=$SECONDS"; done
