#!/usr/bin/env bash
# Session 17, after the review fold (benchmarks share one mega_moe step helper; interleaved.py gathers its copies
# once): each changed benchmark run once, briefly, on the final library, to show it still runs.
B=.device/final2/build/final
source ci/device_run_lib.sh
step 90 timeline.log python3 benchmarks/timeline_moe.py --shapes 30b --iters 2 --autograd; grep "kernels," $OUT/timeline.log
step 90 host.log python3 benchmarks/host_overhead.py --shape 30b --rounds 2 --calls 3 --split; grep "^| whole\|^| mega_moe forward +" $OUT/host.log
step 90 rows.log python3 benchmarks/interleaved.py --shapes 30b --rounds 1 --reps 2 --match '^(ceiling dW1: torch.bmm.*|dW1 bf16 out, pre-gathered copies, ours|dH, pre-gathered.*)$'; grep "^| [cd]" $OUT/rows.log
step 150 bench.log python3 benchmarks/bench_moe.py --shapes 30b --reps 3; grep "peak MiB of" $OUT/bench.log
echo "t=$SECONDS"
