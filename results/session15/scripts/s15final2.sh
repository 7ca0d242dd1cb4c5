#!/usr/bin/env bash
# Session 15, second final device run (library: HEAD; GEMM 1 defaults to variant 5 where I % 96 == 0 (its SwiGLU and
# z / h stores in a fourth warpgroup of epilogue warps, SASS-identical to runs 7-8's), dH to 10 + 32): every GPU test,
# the layer benchmark (20 reps + back to back + graphs), the timeline, host overhead, and the forward and the layer
# against session 14's defaults (GEMM 1 4 + 64, dH 8 / 9 + 32), interleaved, 9 rounds + 2 s back to back.
source ci/device_run_lib.sh
step 150 gpu_tests.log python3 -m pytest -q -m gpu tests/ -p no:cacheprovider; tail -1 $OUT/gpu_tests.log; grep -E "^FAILED" $OUT/gpu_tests.log | head
step 200 bench.log python3 benchmarks/bench_moe.py --reps 20 --json $OUT/bench.json; grep -v "^{" $OUT/bench.log | tail -16
step 60 timeline.log python3 benchmarks/timeline_moe.py --iters 3; grep -E "kernels,|routing|grouped_gemm|kgrouped|combine" $OUT/timeline.log | cut -c1-30,74-100
step 60 host.log python3 benchmarks/host_overhead.py --shape 30b; tail -8 $OUT/host.log
step 200 layer_ab.log python3 benchmarks/interleaved.py --rounds 9 --sustained 2 --match '^(layer fwd \(routing \+ forward\) default|layer fwd, session 14 defaults|layer fwd\+bwd( default|, session 14 defaults))$'
grep -E "^\| |^[0-9]+b" $OUT/layer_ab.log | grep -v "^| variant\|^|---"
cd $OUT && gzip gpu_tests.log; echo "t=$SECONDS"
