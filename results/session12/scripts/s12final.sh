#!/usr/bin/env bash
# Session 12, final device run (library: HEAD, whose kernels and dispatch are the session start's, SASS-identical to
# session 11's final library): every GPU test, the layer benchmark (20 reps + back to back), the timeline.
source ci/device_run_lib.sh
step 150 gpu_tests.log python3 -m pytest -q -m gpu tests/ -p no:cacheprovider; tail -1 $OUT/gpu_tests.log; grep -E "^FAILED" $OUT/gpu_tests.log | head
step 150 bench.log python3 benchmarks/bench_moe.py --reps 20 --json $OUT/bench.json; grep -v "^{" $OUT/bench.log | tail -16
step 60 timeline.log python3 benchmarks/timeline_moe.py --iters 3; grep -E "kernels,|grouped_gemm|kgrouped|combine" $OUT/timeline.log | cut -c1-30,74-100
cd $OUT && gzip gpu_tests.log; echo "t=$SECONDS"
