#!/usr/bin/env bash
# Session 10, device run 13 (the session's last minutes): ncu warp-stall samples of dW1 (the bf16 k-grouped weight
# gradient) at 30B and at 235B, for the next session: why 235B runs ~20 % slower per FLOP than 30B at the same
# per-tile work.
source ci/device_run_lib.sh
bash ci/ncu_sass_samples.sh "kgrouped_wgrad_kernel<128, 256, false" 30b dw1_30b
bash ci/ncu_sass_samples.sh "kgrouped_wgrad_kernel<128, 256, false" 235b dw1_235b
echo "t=$SECONDS"
