#!/usr/bin/env bash
# Session 17, run 1 (library: HEAD's tree, kernels unchanged since session 15): what each kernel's product costs
# without the MoE parts (cuBLAS torch.mm and torch._grouped_mm on pre-gathered copies, the combine's bytes as a
# contiguous sum) next to our kernels, synchronised (interleaved rounds) and back to back 2 s each with clocks;
# then cProfile of the autograd step's host path.
source ci/device_run_lib.sh
M='^(GEMM 1 default|GEMM 2 default|dX default|dH default|combine default|dW[12] bf16 out$|ceiling)'
step 330 ceiling.log python3 benchmarks/interleaved.py --shapes 30b,235b --match "$M" --rounds 7 --reps 5 --sustained 2
grep "^|\|^[0-9]" $OUT/ceiling.log | grep -v -- "---"
step 120 host.log python3 benchmarks/host_overhead.py --shape 30b --rounds 7 --calls 10 --profile
grep "^|" $OUT/host.log | grep -v -- "---" | head -8
echo "t=$SECONDS"
