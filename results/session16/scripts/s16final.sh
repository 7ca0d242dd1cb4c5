#!/usr/bin/env bash
# Session 16, final device run (library: HEAD's tree, its 91 kernels SASS-identical to session 15's measured library;
# the Python host path now takes torch's raw stream / device accessors and allocates y after GEMM 1's launch):
# every GPU test, host overhead with the breakdown (the host change), the layer benchmark (20 reps + back to back +
# graphs), the timeline.
source ci/device_run_lib.sh
step 150 gpu_tests.log python3 -m pytest -q -m gpu tests/ -p no:cacheprovider; tail -1 $OUT/gpu_tests.log; grep -E "^FAILED" $OUT/gpu_tests.log | head
step 120 host.log python3 benchmarks/host_overhead.py --shape 30b --breakdown --rounds 9; grep "^|" $OUT/host.log | grep -v -- "---"
step 240 bench.log python3 benchmarks/bench_moe.py --reps 20 --json $OUT/bench.json; grep -v "^{" $OUT/bench.log | tail -16
step 60 timeline.log python3 benchmarks/timeline_moe.py --iters 3; grep -E "kernels,|routing|grouped_gemm|kgrouped|combine" $OUT/timeline.log | cut -c1-30,74-100
cd $OUT && gzip gpu_tests.log; echo "t=$SECONDS"
