#!/usr/bin/env bash
# Session 23, run 7: HEAD's build (.device/s23e). dH 9 + 32 against the default 10 + 32 at 235B back to back at the
# power cap (2 s each, SM clock sampled), the kernels and the layer with each; two processes.
export B=.device/s23e/build/final
source ci/device_run_lib.sh
M='^(dH default|dH 2 epilogue warps 128x256, wait0, z L1 prefetch|layer fwd\+bwd default|layer fwd\+bwd, session 14 dH)$'
for i in 1 2; do IL_TIMEOUT=150 interleaved_step sust235_$i.log --shapes 235b --rounds 3 --sustained 2 --seed 24$i --match "$M"; done
echo "t=$SECONDS"
