#!/usr/bin/env bash
# Session 16, run 4: the host-path change (raw stream / device accessors, one allocation for the routing outputs,
# y after GEMM 1's launch) against the session start's package (.device/old = 467309e's deep_gemm), same library
# (91 kernels SASS-identical to session 15's): every GPU test on the new package, then alternating processes:
# CPU µs per call (host_overhead.py) and synchronised-call times at T = 16384 and T = 1024; the 30B timeline.
source ci/device_run_lib.sh
step 150 gpu_tests.log python3 -m pytest -q -m gpu tests/ -p no:cacheprovider; tail -1 $OUT/gpu_tests.log; grep -E "^FAILED" $OUT/gpu_tests.log | head
for i in 1 2 3; do
  for v in old new; do
    if [ $v = old ]; then PP=.device/old:.; else PP=.; fi
    echo "== $v round $i"
    PYTHONPATH=$PP timeout 120 python3 benchmarks/host_overhead.py --shape 30b --rounds 9 2>&1 | grep "^| [ms]"
    PYTHONPATH=$PP timeout 120 python3 results/session16/scripts/fwd_sync_small.py 2>&1 | tail -1
  done
done 2>&1 | tee $OUT/host_ab.log | grep -v "^| m"
step 60 host_breakdown.log python3 benchmarks/host_overhead.py --shape 30b --breakdown --rounds 9; grep "^|" $OUT/host_breakdown.log | grep -v -- "---" | tail -12
step 60 timeline.log python3 benchmarks/timeline_moe.py --shapes 30b --iters 3; grep -E "kernels,|routing|grouped_gemm" $OUT/timeline.log | cut -c1-30,74-100 | head -4
cd $OUT && gzip gpu_tests.log; echo "t=$SECONDS"
