#!/usr/bin/env bash
# One device call that checks and times the opt-in kernel variants against the defaults:
# correctness of every variant (pytest), memcheck on the staged epilogue, and the benchmarks.
#   bash ci/validate_variants.sh BUILD_DIR       (logs under $OUT)
set -u
BUILD_DIR=${1:-build/final}
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export PYTHONPATH=. PK_LIBRARY_PATH=$BUILD_DIR PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
echo "== pytest (all sm90 kernel tests, every variant)"
timeout ${T_TESTS:-75} python3 -m pytest -q -p no:cacheprovider tests/test_sm90_gemm.py tests/test_sm90_moe.py \
  tests/test_sm90_kgrouped.py > "$OUT/pytest.log" 2>&1; echo "pytest rc=$?"; tail -3 "$OUT/pytest.log"
echo "== memcheck, staged epilogue"
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
PK_SM90_VARIANT_GEMM1=4 PK_SM90_VARIANT_GEMM2=3 PK_SM90_VARIANT_DX=3 timeout 40 "$CS" --tool memcheck \
  --error-exitcode 9 --kernel-name regex=grouped_gemm python3 ci/sm90_moe_small.py 2>&1 | grep -E "ERROR SUMMARY|small case" | tee "$OUT/memcheck.txt"
echo "== k-grouped variants, 30B"
timeout ${T_KG:-40} python3 benchmarks/bench_kgrouped.py --shapes 30B 2>&1 | tee "$OUT/bench_kgrouped.log" | tail -6
echo "== MoE layer, default vs staged"
timeout ${T_MOE:-90} python3 benchmarks/bench_moe.py --shapes 30b,235b --reps 8 --variants default,staged \
  --breakdown --json "$OUT/bench_moe.json" 2>&1 | grep -v '^{' | tee "$OUT/bench_moe.log" | tail -45
