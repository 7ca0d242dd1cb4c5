#!/usr/bin/env bash
# Session 11, final device run (library: HEAD 2478d1f, .device/head; kernels as run 2's, defaults now GEMM 1 4+64 and
# dX 4 at every shape): every GPU test, the layer benchmark (20 reps + back to back), the layer with this
# session's start and run-2 defaults against the new ones (5 rounds, then 3 s back to back each), the timeline.
source ci/device_run_lib.sh
step 120 gpu_tests.log python3 -m pytest -q -m gpu tests/ -p no:cacheprovider; tail -1 $OUT/gpu_tests.log; grep -E "^FAILED" $OUT/gpu_tests.log | head
step 120 bench.log python3 benchmarks/bench_moe.py --reps 20 --json $OUT/bench.json; grep -v "^{" $OUT/bench.log | tail -16
step 100 layer_ab.log python3 benchmarks/interleaved.py --rounds 5 --sustained 3 --match '^layer fwd\+bwd( default|, session 11 (start|run 2) defaults)$'
grep -E "^\| |^[0-9]+b" $OUT/layer_ab.log | grep -v "^| variant\|^|---"
step 60 timeline.log python3 benchmarks/timeline_moe.py --iters 3; grep -E "kernels,|grouped_gemm|kgrouped|combine" $OUT/timeline.log | cut -c1-30,74-100
echo "t=$SECONDS"
