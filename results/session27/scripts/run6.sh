#!/usr/bin/env bash
# Session 27 run 6: which pipeline for a plain fp32 out? dW2 fp32 keeps 8 (direct stores) from session 3/5 (against
# 12 and 16); 19 (dW2's accumulate default, now the swapped dW1's) never measured against it for a plain out. One
# process, 7 rounds: both fp32 weight gradients in 8, 16, 19, 21 (dW1 in 19 / 21 swapped, in 8 / 16 not).
B=.device/cand3/build/final
source ci/device_run_lib.sh
interleaved_step wgrad.log --rounds 7 --match '^dW[12] fp32 out(, wgrad variant (lean|staged_tma|split_bk128|split_bk128_defer_tail))?$'
echo "t=$SECONDS"
