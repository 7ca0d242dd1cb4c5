#!/usr/bin/env bash
# Session 17, run 5 (library: run 4's, HEAD's tree): what the random rows of the gathers cost: GEMM 1 and dH on
# copies of x / dy in sorted order (the same kernels as K = 1 with the identity row list: consecutive rows), the
# weight gradients on pre-gathered copies, next to the defaults and torch.bmm over balanced groups; then the
# host CPU rows with torch's autograd machinery alone (mega_moe's Function shape, no kernels).
B=.device/new/build/final
source ci/device_run_lib.sh
M='^(GEMM 1 default|dH default|dW[12] bf16 out|GEMM 1, pre-gathered.*|dH, pre-gathered.*|dW[12] bf16 out, pre-gathered copies, ours|ceiling (GEMM 1|dH|dW[12]): torch.bmm, balanced groups)$'
step 240 rows.log python3 benchmarks/interleaved.py --shapes 30b,235b --match "$M" --rounds 5 --reps 5 --sustained 1.5
grep "^|\|^[0-9a-z]" $OUT/rows.log | grep -v -- "---" | grep -v "min-max\|SM clock"
step 120 host.log python3 benchmarks/host_overhead.py --shape 30b --rounds 7 --calls 10
grep "^|" $OUT/host.log | grep -v -- "---"
echo "t=$SECONDS"
