#!/usr/bin/env bash
# Session 27 run 5: fp32 dW1 (plain and accumulated) swapped as well, in pipeline 19 with an fp32 transposed staging
# (cand3). Every GPU test and the sanitizers; in one process the fp32 dW1 rows swapped against the caller's
# orientation (debug bit 10), dW2 fp32 accumulate as the control; across processes the session's bf16-only swap
# (cand) against cand3 on the layer with fp32 weight gradients (the bf16 layer as the control).
B=.device/cand3/build/final
source ci/device_run_lib.sh
gpu_checks gpu_tests.log -m gpu tests
M='^dW1 fp32 (out|accumulate)(, caller.*)?$|^dW2 fp32 accumulate$|^dW1 bf16 out$'
interleaved_step wgrad.log --rounds 7 --match "$M"
AB_N30=4 AB_N235=2 ab_shapes .device/cand/build/final .device/cand3/build/final \
  '^layer fwd\+bwd default$|^layer fwd\+bwd, fp32 weight gradients$'
gzip $OUT/gpu_tests.log
echo "t=$SECONDS"
