#!/usr/bin/env bash
# Session 27 run 4: run 3's layer row timed fp32 weight gradients (interleaved.py's layer_once left wgrad_dtype at
# its fp32 default, so the swap, a bf16-out path, never ran in it); fixed to bf16: the layer, base (7e3eee4) against
# cand, 6 process pairs at 30B and 3 at 235B, dW2 as the control.
B=.device/cand/build/final
source ci/device_run_lib.sh
AB_N30=6 AB_N235=3 ab_shapes .device/base/build/final .device/cand/build/final '^layer fwd\+bwd default$|^dW[12] bf16 out$'
echo "t=$SECONDS"
