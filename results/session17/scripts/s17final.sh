#!/usr/bin/env bash
# Session 17, final run (library: HEAD's tree, .device/final2; its kernels are run 4's, the fatbin differing only in
# internal symbol hashes): every GPU test, then the benchmark table (20 reps) with the autograd step's peak measured
# from a baseline without the last step's gradients.
B=.device/final2/build/final
source ci/device_run_lib.sh
step 200 gpu_tests.log python3 -m pytest -q -m gpu tests/ -p no:cacheprovider; tail -1 $OUT/gpu_tests.log; grep -E "^FAILED" $OUT/gpu_tests.log | head
step 300 bench.log python3 benchmarks/bench_moe.py --reps 20 --json $OUT/bench.json; grep -v "^{" $OUT/bench.log | tail -16
gzip $OUT/gpu_tests.log; echo "t=$SECONDS"
