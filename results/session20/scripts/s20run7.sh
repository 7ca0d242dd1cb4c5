#!/usr/bin/env bash
# Session 20, run 7: the bf16 weight gradients taken apart in one process (HEAD's library): whole, without the
# epilogue stores (debug 1), loads only (3), MMAs and epilogue without loads (64), MMAs only (65).
B=.device/s19f/build/final
source ci/device_run_lib.sh
interleaved_step wgrad.log --rounds 9 --seed 7 \
  --match '^dW[12] bf16 out(, ours (loads only|MMAs only|without the epilogue stores|MMAs and epilogue, no loads))?$'
echo "t=$SECONDS"
