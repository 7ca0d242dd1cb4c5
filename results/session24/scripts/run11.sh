#!/usr/bin/env bash
# Prepared in session 24, not run (no device time left): branch next/consumer-no-lookup (the consumers of the
# m-grouped epilogue-warps forms skip the tile lookup whose result they never use; the k-grouped weight-gradient
# consumers load the next tile's group offsets during the current tile), built into .device/nolookup
# (/tmp/build.sh-style: cmake -G Ninja -DPK_ARCHS=90a; carry .device/nolookup/build/final and .device/head/build/final,
# head = main's tree). Every GPU test and both sanitizers on it, then GEMM 1, dH, dW1, dW2 and the layer across processes.
export B=.device/nolookup/build/final
source ci/device_run_lib.sh
gpu_checks gpu_tests.log -m gpu tests/
AB_N30=3 AB_N235=2 ab_shapes .device/head/build/final .device/nolookup/build/final '^(GEMM 1 default|dH default|dW[12] bf16 out|layer fwd\+bwd default)$'
gzip $OUT/gpu_tests.log; rm -f $OUT/sanitize_*.log; echo "t=$SECONDS"
