#!/usr/bin/env bash
# Session 29 run 1: main's library as it is (8d04466's kernels = session 27's, plain launches; .device/head) on the card
# the tool lends (asked: nvidia-h200): every GPU test and the sanitizers on this exact library, the benchmark table,
# and the layer against session 26's library (7e3eee4, .device/base) across processes.
# Run: `bash results/session29/scripts/run1.sh 2>&1 | tail -70`, carry [".device/head/build/final", ".device/base/build/final"].
B=.device/head/build/final
source ci/device_run_lib.sh
step 200 bench.log python3 benchmarks/bench_moe.py --reps 20 --json $OUT/bench.json; grep -v "^{" $OUT/bench.log | tail -24
gpu_checks gpu_tests.log -m gpu tests
gzip $OUT/gpu_tests.log
AB_N30=2 AB_N235=2 ab_shapes .device/base/build/final .device/head/build/final \
  '^layer fwd\+bwd default$|^layer fwd\+bwd, fp32 weight gradients$|^dW[12] bf16 out$'
cat $OUT/ab30.log $OUT/ab235.log > $OUT/ab.log && cat $OUT/ab30_rows.log $OUT/ab235_rows.log > $OUT/ab_rows.log && \
  rm -f $OUT/ab30.log $OUT/ab235.log $OUT/ab30_rows.log $OUT/ab235_rows.log
echo "t=$SECONDS"
