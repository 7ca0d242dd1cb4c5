#!/usr/bin/env bash
# Session 23, run 6: HEAD's build (.device/s23e). Run 5 put dH 9 + 32 (2 epilogue warps in the producer warpgroup, z L1
# prefetch) 2.9 % ahead of the default (10 + 32) at 235B with a wide spread: three more processes at 235B, each
# interleaving both and the layer with each (the row "layer fwd+bwd, session 14 dH" runs the layer with dH 41 at 235B).
export B=.device/s23e/build/final
source ci/device_run_lib.sh
M='^(dH default|dH 2 epilogue warps 128x256, wait0, z L1 prefetch|layer fwd\+bwd default|layer fwd\+bwd, session 14 dH)$'
for i in 1 2 3; do IL_TIMEOUT=150 interleaved_step sweep235_$i.log --shapes 235b --rounds 5 --seed 23$i --match "$M"; done
echo "t=$SECONDS"
