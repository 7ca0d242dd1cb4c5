#!/usr/bin/env bash
# Session 4, device run 5 (final validation of the defaults): every GPU test, the layer benchmark,
# the per-kernel timeline, compute-sanitizer memcheck + racecheck (default small shape, then I = 256
# with dH 5 / GEMM 1 6 and a 2-CTA grid), host overhead.
source ci/device_run_lib.sh  # B, PYTHONPATH, PK_LIBRARY_PATH, GPU state, step()
step 130 gpu_tests.log python3 -m pytest -q -m gpu tests/ -p no:cacheprovider; tail -1 $OUT/gpu_tests.log; grep -E "^FAILED|^E  " $OUT/gpu_tests.log | head -10
step 200 bench.log python3 benchmarks/bench_moe.py --reps 10 --json $OUT/bench.json; grep -v "^{" $OUT/bench.log | tail -12
step 60 timeline.log python3 benchmarks/timeline_moe.py --iters 3 --clocks; grep -E "kernels,|back to back" $OUT/timeline.log | head -8
echo "== sanitizers, default small shape"; mkdir -p $OUT/san_default $OUT/san_warps
T_SAN=60 bash ci/gpu_sanitize.sh "$OUT/san_default" 2>&1 | tee $OUT/sanitize_default.txt; echo "t=$SECONDS"
echo "== sanitizers, I = 256, dH 5, GEMM 1 6, 2 CTAs"
PK_SMALL_SHAPE=300,4,2,256,256 PK_SM90_VARIANT_DH=5 PK_SM90_VARIANT_GEMM1=6 PK_SM90_MAX_CTAS=2 T_SAN=60 bash ci/gpu_sanitize.sh "$OUT/san_warps" 2>&1 | tee $OUT/sanitize_warps.txt; echo "t=$SECONDS"
step 40 host_overhead.log python3 benchmarks/host_overhead.py; tail -7 $OUT/host_overhead.log
