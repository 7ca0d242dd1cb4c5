#!/usr/bin/env bash
# Session 26 run 2: (a) the backward's new launch order and lifetimes against session 25's, in one process;
# (b) every default kernel next to its cuBLAS bmm product on balanced groups (and the combine next to a contiguous
# sum), back to back 1.5 s each with the SM clock: today's per-kernel gaps to the library floor; (c) the layer with
# GEMM 2 scattering into y from its epilogue (PK_MOE_COMBINE=scatter, last measured in session 2 on older kernels)
# against the default gather-sum, in one bench_moe process.
source ci/device_run_lib.sh
step 120 order_ab.log python3 results/session26/scripts/order_ab.py; grep "^|" $OUT/order_ab.log
M='^(GEMM 1|GEMM 2|dX|dH) default$|^dW[12] bf16 out$|^combine default$|torch\.bmm, balanced|contiguous sum'
interleaved_step kernels.log --rounds 1 --sustained 1.5 --match "$M"
step 330 bench_scatter.log python3 benchmarks/bench_moe.py --reps 20 --variants default,scatter --json $OUT/bench_scatter.json
grep -v "^{" $OUT/bench_scatter.log | grep "^|" | head -8
echo "t=$SECONDS"
