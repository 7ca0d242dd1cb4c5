#!/usr/bin/env bash
# Session 24 run 5: the gathering producers look up the next tile's coordinates and row indices during the current
# tile's first k-block (branch next/idx-prefetch, built into .device/pf4; the first stage of each tile issued before the lookup, the rest in a loop of their own; .device/head = d5e7606's tree, HEAD's
# kernels). Every GPU test and both sanitizers on pf, then GEMM 1, dH and the layer across processes, head vs pf.
export B=.device/pf4/build/final
source ci/device_run_lib.sh
gpu_checks gpu_tests.log -m gpu tests/
AB_N30=4 AB_N235=2 ab_shapes .device/head/build/final .device/pf4/build/final '^(GEMM 1 default|dH default|layer fwd\+bwd default)$'
gzip $OUT/gpu_tests.log; rm -f $OUT/sanitize_*.log; echo "t=$SECONDS"
