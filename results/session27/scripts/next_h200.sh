#!/usr/bin/env bash
# Prepared for the next session with an H200 (session 27 was lent H100s only). Build HEAD into .device/head and session
# 26's library (7e3eee4) into .device/base on the dev machine (/tmp/build.sh-style: cmake -G Ninja -DPK_ARCHS=90a),
# then: run command `bash results/session27/scripts/next_h200.sh 2>&1 | tail -60`, kind nvidia-h200,
# carry [".device/head/build/final", ".device/base/build/final"] (~6 minutes with a warm start).
# Every GPU test and the sanitizers on HEAD; the layer (bf16 and fp32 weight gradients) base against HEAD across
# processes; the benchmark table for results/sm90_moe.md and the README.
B=.device/head/build/final
source ci/device_run_lib.sh
gpu_checks gpu_tests.log -m gpu tests
AB_N30=3 AB_N235=2 ab_shapes .device/base/build/final .device/head/build/final \
  '^layer fwd\+bwd default$|^layer fwd\+bwd, fp32 weight gradients$|^dW[12] bf16 out$'
step 330 bench.log python3 benchmarks/bench_moe.py --reps 20 --json $OUT/bench.json; grep -v "^{" $OUT/bench.log | tail -24
gzip $OUT/gpu_tests.log
echo "t=$SECONDS"
