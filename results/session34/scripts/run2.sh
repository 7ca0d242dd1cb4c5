#!/usr/bin/env bash
# Session 34 run 2: run 1 (an H100) read dX's staged wait0 form (35) 12 % under the default (ping-pong 128 x 192,
# variant 4) at 30B and GEMM 2's default 5 % over the same kernel forced (ping-pong 128 x 192 = the default at N >= 1536):
# the same-kernel pairs (default / forced 4) are the noise calibration. 9 rounds of 20 reps, both shapes, with the layer.
# Prediction: the calibration pairs within 2 %; dX 35 against the default within +-3 % at both shapes (session 10:
# ping-pong 3.6-6.3 % faster at 30B on an H200), so run 1's -12 % is noise; the layer rows within 1 %.
# Run: `bash results/session34/scripts/run2.sh 2>&1 | tail -60`, carry [".device/final/build/final"].
export B=.device/final/build/final
source ci/device_run_lib.sh
M='^(dX|GEMM 2) default$|^(dX|GEMM 2) ping-pong 128x192, A by TMA$|^dX staged, A by TMA, wait0(, TMA store)?$'
M+='|^layer fwd\+bwd default$|^layer fwd\+bwd, dX staged, A by TMA, wait0'
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
IL_TIMEOUT=200 interleaved_step il2_30b.log --shapes 30b --rounds 9 --reps 20 --match "$M"
IL_TIMEOUT=200 interleaved_step il2_235b.log --shapes 235b --rounds 9 --reps 20 --match "$M"
echo "t=$SECONDS"
