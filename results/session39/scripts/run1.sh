#!/usr/bin/env bash
# Session 39, run 1: main's library (pipeline 28 the bf16 weight-gradient default since session 38) plus this
# session's fp32 change in 28 (dW2-style, not transposed: 32-column passes alternating between the staging halves),
# built on the dev machine into .device/dbuf32/build/final.
# (1) every GPU test and compute-sanitizer on it (session 38's final_run, never run: the device budget ran out);
# (2) the benchmark against the old bf16 default (WGRAD=21), DX=99 as well on an H200;
# (3) fp32 outs: 28 against the defaults (19 / 16 / 8), and 28 with each pass waiting for the last one (debug bit 14).
# Predictions: tests all pass; default vs WGRAD=21 fwd+bwd -1..-2 % at both shapes (session 38 run 2: -1.1 / -1.0 %).
# fp32 (bytes reading of session 38: the fp32 stores cost by bytes, 2x bf16's): dW2 fp32 out in 28 -3..-6 % against
# the default 19 (bf16 gained -2..-3 %; the alternation takes the 16 KiB wait-all passes' stall out), bit 14 +2..+4 %
# on it; accumulate likewise; dW1 fp32 (transposed, 64-column wait-all passes in 28) even with 19 (+-3 %).
# Run: `bash results/session39/scripts/run1.sh 2>&1 | tail -60`, carry [".device/dbuf32/build/final"].
export B=.device/dbuf32/build/final
source ci/device_run_lib.sh
gpu_checks gpu_tests.log -m gpu tests
gzip $OUT/gpu_tests.log
V=default,WGRAD=21
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 && V+=,DX=99
step 300 bench.log python3 benchmarks/bench_moe.py --reps 20 --variants $V --json $OUT/bench.json
grep -v Warn $OUT/bench.log | grep -E '^\|' | tail -30
interleaved_shapes '^dW[12] fp32 (out|accumulate)(, wgrad variant (wide_bk64|split_bk128|staged_tma)|, wide_bk64 \(28\), one pass.*)?$' 5 100 70
echo "t=$SECONDS"
