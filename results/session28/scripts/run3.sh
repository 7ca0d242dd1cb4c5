#!/usr/bin/env bash
# Session 28 run 3: the library as kept (HEAD's kernels, plain launches: PDL dropped after runs 1-2), built from
# 4cf1036 (.device/head): the benchmark table, and the layer against session 26's library (7e3eee4, .device/base)
# across processes. Run: `bash results/session28/scripts/run3.sh`, carry [".device/head/build/final",
# ".device/base/build/final"].
B=.device/head/build/final
source ci/device_run_lib.sh
step 200 bench.log python3 benchmarks/bench_moe.py --reps 20 --json $OUT/bench.json; grep -v "^{" $OUT/bench.log | tail -24
AB_N30=2 AB_N235=2 ab_shapes .device/base/build/final .device/head/build/final \
  '^layer fwd\+bwd default$|^layer fwd\+bwd, fp32 weight gradients$|^dW[12] bf16 out$'
echo "t=$SECONDS"
