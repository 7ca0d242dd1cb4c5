#!/usr/bin/env bash
# Session 22, run 1: the half-empty last m-tile without MMAs (.device/s22a) against HEAD's library (.device/s22base).
# Every GPU test and the sanitizers on s22a, then the A/B of the m-grouped defaults and the layer across processes.
export B=.device/s22a/build/final
source ci/device_run_lib.sh
gpu_checks gpu_tests.log -m gpu tests/
ab_shapes .device/s22base/build/final $B '^(GEMM 1 default|dH default|GEMM 2 default|dX default|layer fwd\+bwd default)$'
gzip $OUT/gpu_tests.log; rm -f $OUT/sanitize_*.log; echo "t=$SECONDS"
