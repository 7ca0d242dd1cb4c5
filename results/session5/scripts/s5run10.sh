#!/usr/bin/env bash
# Session 5, device run 10 (final): the defaults at the end of the session (dH 8/9 + 32, grouped GEMM 3 + 32 + 64, k-grouped 16):
# every GPU test, the layer benchmark, the per-kernel timeline, host overhead, sanitizers.
set -u
B=.device/head/build/final
export PYTHONPATH=. PK_LIBRARY_PATH=$B PYTHONUNBUFFERED=1
SECONDS=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
step() { local t=$1 log=$2; shift 2; timeout $t "$@" > $OUT/$log 2>&1; local r=$?; echo "[$log] rc=$r t=$SECONDS"; [ $r -eq 124 ] && { tail -3 $OUT/$log; exit 124; }; return 0; }
step 150 gpu_tests.log python3 -m pytest -q -m gpu tests/ -p no:cacheprovider; tail -1 $OUT/gpu_tests.log; grep -E "^FAILED|^E  " $OUT/gpu_tests.log | head -10
step 120 bench.log python3 benchmarks/bench_moe.py --reps 10 --json $OUT/bench.json; grep -v "^{" $OUT/bench.log | tail -12
step 60 timeline.log python3 benchmarks/timeline_moe.py --iters 3 --clocks; grep -E "kernels,|back to back|grouped_gemm|kgrouped|combine" $OUT/timeline.log | cut -c1-30,74-100
step 60 host.log python3 benchmarks/host_overhead.py --shape 30b; tail -8 $OUT/host.log
mkdir -p $OUT/san; PK_SMALL_SHAPE=300,4,2,256,256 PK_SM90_MAX_CTAS=2 T_SAN=60 bash ci/gpu_sanitize.sh "$OUT/san" 2>&1 | tee $OUT/sanitize.txt; echo "t=$SECONDS"
