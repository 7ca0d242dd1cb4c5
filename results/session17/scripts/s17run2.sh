#!/usr/bin/env bash
# Session 17, run 2 (run 1's regular expression matched every form that starts with a default's name and hit the
# time limit; same library): what each kernel's product costs without the MoE parts, next to our kernels:
# torch.mm (cuBLAS, one expert's weight) and torch._grouped_mm on pre-gathered copies, torch.bmm over E equal
# groups, the combine's bytes as a contiguous sum; synchronised (interleaved rounds) and back to back 1.5 s each
# with clocks. Then our kernels with perfectly balanced routing (every expert 1024 pairs), then cProfile of the
# autograd step's host path.
source ci/device_run_lib.sh
OURS='GEMM 1 default|GEMM 2 default|dX default|dH default|dW[12] bf16 out'
step 240 ceiling.log python3 benchmarks/interleaved.py --shapes 30b,235b --match "^($OURS|combine default|ceiling .*)\$" --rounds 5 --reps 5 --sustained 1.5
step 120 balanced.log python3 benchmarks/interleaved.py --shapes 30b,235b --routing balanced --match "^($OURS)\$" --rounds 5 --reps 5 --sustained 1.5
step 120 host.log python3 benchmarks/host_overhead.py --shape 30b --rounds 7 --calls 10 --profile
grep "^|" $OUT/host.log | grep -v -- "---" | head -8
for f in ceiling balanced; do grep "^|\|^[0-9a-z]" $OUT/$f.log | grep -v -- "---" | grep -v min-max; done
echo "t=$SECONDS"
