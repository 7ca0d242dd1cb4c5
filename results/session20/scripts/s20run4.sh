#!/usr/bin/env bash
# Session 20, run 4: the k-grouped weight gradients' identity side (dz for dW1, hw for dW2) by cp.async instead of by
# TMA (the entry point's use_tma = 0), in one process against the default, with the loads-only and MMA-only forms;
# HEAD's library (its kernels are .device/s19f's).
B=.device/s19f/build/final
source ci/device_run_lib.sh
interleaved_step wgrad.log --rounds 7 \
  --match '^dW[12] bf16 out$|bf16 out, ours( loads only)?, identity side by cp.async$|bf16 out, ours (loads only|MMAs only)$'
echo "t=$SECONDS"
