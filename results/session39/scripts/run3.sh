#!/usr/bin/env bash
# Session 39, run 3: main with the new fp32 weight-gradient defaults (run 1-2's readings: plain fp32 outs in 28, dW2's
# accumulate in 28, dW1's accumulate stays in 19's 4-CTA clusters), built into .device/final39/build/final.
# (1) every GPU test and compute-sanitizer on it; (2) the layer with fp32 weight gradients and with main_grad
# accumulation, new defaults against 19 forced (session 38's fp32 defaults), interleaved; (3) the benchmark with
# --main-grad.
# Prediction (from run 1's kernel rows, H100): fp32 weight gradients 235B dW1 -1.1 ms + dW2 -0.43 = -1.5 ms of ~29 ms
# (-4..-5 %), 30B -0.25 of ~7.9 (-3 %); main_grad accumulate dW2 only: 235B -0.28 ms (-1 %), 30B -0.05 (-0.5 %).
# Run: `bash results/session39/scripts/run3.sh 2>&1 | tail -40`, carry [".device/final39/build/final"].
export B=.device/final39/build/final
source ci/device_run_lib.sh
gpu_checks gpu_tests.log -m gpu tests
gzip $OUT/gpu_tests.log
interleaved_shapes '^layer fwd\+bwd, fp32 (weight gradients|main_grad accumulate)(, wgrad 19)?$' ${IL_ROUNDS:-7} 120 80
# (SKIP_BENCH=1: stop here, for a short device budget)
[ -n "${SKIP_BENCH:-}" ] && { echo "t=$SECONDS (benchmark skipped)"; exit 0; }
# on an H200 also dX in the staged TMA-store form (99, the H100 default since session 34) against its ping-pong default
V=default
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 && V+=,DX=99
step 300 bench.log python3 benchmarks/bench_moe.py --reps 20 --main-grad --variants $V --json $OUT/bench.json
grep -v Warn $OUT/bench.log | grep -E '^\|' | tail -12
echo "t=$SECONDS"
