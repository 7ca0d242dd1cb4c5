#!/usr/bin/env bash
# Session 18, final run (library: HEAD's tree, .device/final18; the non-cluster kernels' PTX is the session start's,
# the 2-CTA cluster forms walk PairScheduler's units): every GPU test, the benchmark table (20 reps), then GEMM 1's and
# dH's products through the plain m-grouped kernel with the rows gathered (run 5's follow-up) next to the defaults.
B=.device/final18/build/final
source ci/device_run_lib.sh
step 200 gpu_tests.log python3 -m pytest -q -m gpu tests/ -p no:cacheprovider; tail -1 $OUT/gpu_tests.log; grep -E "^FAILED" $OUT/gpu_tests.log | head
step 300 bench.log python3 benchmarks/bench_moe.py --reps 20 --json $OUT/bench.json; grep -v "^{" $OUT/bench.log | tail -16
M='GEMM 1 default|dH default|(GEMM 1|dH) product, plain m-grouped, .* gathered by cp.async, .*|ceiling (GEMM 1|dH): torch.bmm, balanced groups'
step 200 products.log python3 benchmarks/interleaved.py --shapes 30b,235b --match "^($M)\$" --rounds 3 --reps 5 --sustained 1.5
grep "^|\|^[0-9a-z]" $OUT/products.log | grep -v -- "---" | grep -v "min-max"
gzip $OUT/gpu_tests.log; echo "t=$SECONDS"
