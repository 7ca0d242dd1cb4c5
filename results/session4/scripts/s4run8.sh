#!/usr/bin/env bash
# Session 4, device run 8 (final commit): every GPU test, the layer benchmark, the per-kernel timeline.
set -u
B=.device/head/build/final
export PYTHONPATH=. PK_LIBRARY_PATH=$B PYTHONUNBUFFERED=1
SECONDS=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
step() { local t=$1 log=$2; shift 2; timeout $t "$@" > $OUT/$log 2>&1; local r=$?; echo "[$log] rc=$r t=$SECONDS"; [ $r -eq 124 ] && { tail -3 $OUT/$log; exit 124; }; return 0; }
step 130 gpu_tests.log python3 -m pytest -q -m gpu tests/ -p no:cacheprovider; tail -1 $OUT/gpu_tests.log; grep -E "^FAILED|^E  " $OUT/gpu_tests.log | head -10
step 100 bench.log python3 benchmarks/bench_moe.py --reps 10 --json $OUT/bench.json; grep -v "^{" $OUT/bench.log | tail -12
step 60 timeline.log python3 benchmarks/timeline_moe.py --iters 3 --clocks; grep -E "kernels,|back to back|grouped_gemm|kgrouped|combine" $OUT/timeline.log | cut -c1-30,74-100
