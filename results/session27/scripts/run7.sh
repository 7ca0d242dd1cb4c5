#!/usr/bin/env bash
# Session 27 run 7: every fp32 out of the shared-B form (dW2 with fp32 weight gradients) in 19, not 8 (run 6: -8 % /
# -3 %) (cand4). Every GPU test and the sanitizers; the fp32 wgrad defaults in one process; cand3 against cand4 on
# the layer with fp32 weight gradients (the bf16 layer as the control).
B=.device/cand4/build/final
source ci/device_run_lib.sh
gpu_checks gpu_tests.log -m gpu tests/test_sm90_kgrouped.py tests/test_sm90_moe.py
interleaved_step wgrad.log --rounds 7 --match '^dW[12] fp32 (out|accumulate)$|^dW2 fp32 out, wgrad variant lean$'
AB_N30=3 AB_N235=2 ab_shapes .device/cand3/build/final .device/cand4/build/final \
  '^layer fwd\+bwd default$|^layer fwd\+bwd, fp32 weight gradients$'
gzip $OUT/gpu_tests.log
echo "t=$SECONDS"
