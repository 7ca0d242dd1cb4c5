#!/usr/bin/env bash
# Session 21, run 5: HEAD's library (.device/s21c). Every kernel of the layer and cuBLAS's bmm on the same product
# (balanced groups, pre-gathered), plus dW1's diagnostic forms, each back to back for 1.5 s with the SM clock and power
# sampled (interleaved.py --sustained): how much of each gap is clock (energy at the 700 W cap) and how much is cycles.
export B=.device/s21c/build/final
source ci/device_run_lib.sh
M='^((GEMM 1|GEMM 2|dH|dX) default|dW[12] bf16 out|ceiling (GEMM 1|GEMM 2|dH|dX|dW1|dW2): torch\.bmm, balanced groups|dW1 bf16 out, ours (MMAs only|loads only|without the epilogue stores))$'
IL_TIMEOUT=400 interleaved_step clocks.log --rounds 3 --seed 25 --sustained 1.5 --match "$M"
grep -A20 "back to back" $OUT/clocks.log
echo "t=$SECONDS"
