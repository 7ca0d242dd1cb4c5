#!/usr/bin/env bash
# Session 15, final device run (library: HEAD; dH defaults to 10 + 32 at both shapes: a fourth warpgroup of epilogue
# warps, SASS-identical to run 2's variant 12 + 32; the other 89 kernels SASS-identical to the session start's):
# every GPU test, the layer benchmark (20 reps + back to back + graphs), the timeline, host overhead, and the layer
# A/B against session 14's dH (interleaved, 7 rounds + 2 s back to back).
source ci/device_run_lib.sh
step 150 gpu_tests.log python3 -m pytest -q -m gpu tests/ -p no:cacheprovider; tail -1 $OUT/gpu_tests.log; grep -E "^FAILED" $OUT/gpu_tests.log | head
step 200 bench.log python3 benchmarks/bench_moe.py --reps 20 --json $OUT/bench.json; grep -v "^{" $OUT/bench.log | tail -16
step 60 timeline.log python3 benchmarks/timeline_moe.py --iters 3; grep -E "kernels,|routing|grouped_gemm|kgrouped|combine" $OUT/timeline.log | cut -c1-30,74-100
step 60 host.log python3 benchmarks/host_overhead.py --shape 30b; tail -8 $OUT/host.log
step 200 layer_ab.log python3 benchmarks/interleaved.py --rounds 7 --sustained 2 --match '^(dH default|dH (2 )?epilogue warps 128x256, wait0, z L1 prefetch|layer fwd\+bwd( default|, session 14 dH))$'
grep -E "^\| |^[0-9]+b" $OUT/layer_ab.log | grep -v "^| variant\|^|---"
cd $OUT && gzip gpu_tests.log; echo "t=$SECONDS"
