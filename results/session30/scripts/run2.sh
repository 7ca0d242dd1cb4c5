#!/usr/bin/env bash
# Session 30 run 2: run 1 (session 29's run3.sh) measured the candidate (.device/cand, dW2's SASS now session 26's
# exactly) against main's head 1.046 / 1.022 for dW2 bf16 with two processes a shape and one slow outlier process.
# More processes decide it: dW1 / dW2 bf16 head vs cand, 6 processes a shape at 30B and 5 at 235B; then a noise
# calibration: dW2 bf16 base (session 26) vs cand, whose dW2 kernels have the same SASS, 4 processes a shape.
# Run: `bash results/session30/scripts/run2.sh`, carry [".device/cand/build/final", ".device/head/build/final",
# ".device/base/build/final"].
source ci/device_run_lib.sh
AB_N30=6 AB_N235=5 ab_merged .device/head/build/final .device/cand/build/final '^dW[12] bf16 out$'
AB_N30=4 AB_N235=4 ab_shapes .device/base/build/final .device/cand/build/final '^dW2 bf16 out$' _base
echo "t=$SECONDS"
