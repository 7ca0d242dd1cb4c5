#!/usr/bin/env bash
# Session 37, run 2: does a weight gradient's time follow its output bytes? Library: main's (e24bb98's kernels),
# built on the dev machine into .device/dx99/build/final. Rows: dW1 / dW2 with a bf16 out (64 KiB a 128 x 256 tile),
# an fp32 out (128 KiB; pipeline 19, the same ring and passes without the deferred tail), and the bf16 form without its
# epilogue stores. Prediction (before the run, from run 1: 235B dW1 5.398 without the stores, 6.066 bf16): if the
# stores cost in proportion to their bytes, fp32 out = without + 2 x (bf16 - without): dW1 ~6.7 ms at 235B (+10 % on
# bf16), ~1.65 at 30B; dW2 ~3.04 / ~0.86. If fp32 is within ~3 % of bf16, the stores' cost is per pass, not per
# byte, and run 1's reading (bytes on the SM's L2 path) is wrong.
# Run: `bash results/session37/scripts/bytes_check.sh 2>&1 | tail -30`, carry [".device/dx99/build/final"].
export B=.device/dx99/build/final
source ci/device_run_lib.sh
interleaved_shapes '^dW[12] (bf16|fp32) out(, ours without the epilogue stores)?$'
echo "t=$SECONDS"
