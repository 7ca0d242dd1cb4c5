#!/usr/bin/env bash
# Session 8, final bench of the library at HEAD (.device/head; its kernels PTX-identical to 41469ea and
# ae7c4e7, whose GPU tests and sanitizers passed in session 7's final run): the layer benchmark twice
# (10 and 20 reps) and the per-kernel timeline with clocks.
source ci/device_run_lib.sh
step 150 bench.log python3 benchmarks/bench_moe.py --reps 10 --json $OUT/bench.json; grep -v "^{" $OUT/bench.log | tail -9
step 60 timeline.log python3 benchmarks/timeline_moe.py --iters 3 --clocks; grep -E "kernels,|back to back|grouped_gemm|kgrouped|combine" $OUT/timeline.log | cut -c1-30,74-100
step 150 bench2.log python3 benchmarks/bench_moe.py --reps 20 --json $OUT/bench2.json; grep -v "^{" $OUT/bench2.log | tail -9
echo "t=$SECONDS"
