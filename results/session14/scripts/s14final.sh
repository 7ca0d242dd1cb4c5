#!/usr/bin/env bash
# Session 14, final device run (library: HEAD = the session start's GEMM kernels, all 87 SASS-identical, plus the
# routing in one cooperative launch): every GPU test, the layer benchmark (20 reps + back to back + graphs), the
# timeline, host overhead.
source ci/device_run_lib.sh
step 150 gpu_tests.log python3 -m pytest -q -m gpu tests/ -p no:cacheprovider; tail -1 $OUT/gpu_tests.log; grep -E "^FAILED" $OUT/gpu_tests.log | head
step 200 bench.log python3 benchmarks/bench_moe.py --reps 20 --json $OUT/bench.json; grep -v "^{" $OUT/bench.log | tail -16
step 60 timeline.log python3 benchmarks/timeline_moe.py --iters 3; grep -E "kernels,|routing|grouped_gemm|kgrouped|combine" $OUT/timeline.log | cut -c1-30,74-100
step 60 host.log python3 benchmarks/host_overhead.py --shape 30b; tail -8 $OUT/host.log
cd $OUT && gzip gpu_tests.log; echo "t=$SECONDS"
