#!/usr/bin/env bash
# Session 40 (not run: the device budget was spent): every default kernel next to its cuBLAS bmm product on balanced
# groups, and the combine next to a contiguous sum, back to back 1.5 s each with the SM clock (session 26's run 2 (b),
# ~80 s on any card). It refreshes the per-kernel gaps to the library floor that the notes' first section quotes from
# session 26, before sessions 27-39 changed dW1, dW2 and (on H100s) dX.
# Prediction (cycles = ms x median MHz, ours / bmm): dW1 1.00-1.06 (session 26: 1.17-1.19; since then -12..-14 %),
# dW2 1.09-1.13 (1.14-1.15; -2..-3 %), dH 1.2-1.3 and GEMM 1 1.08-1.16 (unchanged kernels), GEMM 2 1.02-1.05, dX
# 1.02-1.07 (on an H100 the staged form 99).
# Run: `bash results/session40/scripts/gaps.sh 2>&1 | tail -45`, carry [".device/final39/build/final"].
export B=${B:-.device/final39/build/final}
source ci/device_run_lib.sh
M='^(GEMM 1|GEMM 2|dX|dH) default$|^dW[12] bf16 out$|^combine default$|torch\.bmm, balanced|contiguous sum'
IL_TIMEOUT=150 interleaved_step kernels.log --rounds 1 --sustained 1.5 --match "$M"
echo "t=$SECONDS"
