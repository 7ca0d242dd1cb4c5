#!/usr/bin/env bash
# Session 18, run 5 (diagnostic): GEMM 1's product (z only, no SwiGLU) through the plain m-grouped kernel, with x
# gathered by cp.async, or pre-gathered with A by cp.async or by TMA, cooperative 128 x 256 and ping-pong 128 x 192;
# next to GEMM 1 and cuBLAS's bmm. What the A-load mechanism costs at GEMM 1's shape. Library: run 4's.
B=.device/s18c/build/final
source ci/device_run_lib.sh
M='GEMM 1 default|GEMM 1 product, plain m-grouped, .*|ceiling GEMM 1: torch.bmm, balanced groups'
IL_TIMEOUT=300 interleaved_step kern.log --shapes 30b,235b --match "^($M)\$" --rounds 5 --reps 5 --sustained 1.5
echo "t=$SECONDS"
