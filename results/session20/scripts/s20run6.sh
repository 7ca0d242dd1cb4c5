#!/usr/bin/env bash
# Session 20, run 6: one more 128-row chunk in flight in the weight gradients. HEAD's library (.device/s19f: 128 x 128
# tiles run the bf16 default pipeline with 2 stages) against the diagnostic build with a third stage at 128 x 128
# (.device/diag_wgrad3, -DPK_SM90_DIAG_WGRAD_BN128_STAGES=3), over alternating processes; the 128 x 256 defaults (the
# same kernels in both) are the control.
B=.device/s19f/build/final
source ci/device_run_lib.sh
D3=.device/diag_wgrad3/build/final
M='^dW[12] bf16 out(, ours 128x128 tiles(, loads only|, MMAs only)?)?$'
ab_shapes $B $D3 "$M"
echo "t=$SECONDS"
