#!/usr/bin/env bash
# Session 23, run 8: B's TMA after thread 0's gathered copies (.device/s23g) against HEAD's build before it (s23e).
# Every GPU test and both sanitizers on s23g, then GEMM 1 and dH across processes (2 a shape).
export B=.device/s23g/build/final
source ci/device_run_lib.sh
gpu_checks gpu_tests.log -m gpu tests/
AB_N30=2 AB_N235=2 ab_shapes .device/s23e/build/final $B '^(GEMM 1 default|dH default)$'
gzip $OUT/gpu_tests.log; rm -f $OUT/sanitize_*.log; echo "t=$SECONDS"
