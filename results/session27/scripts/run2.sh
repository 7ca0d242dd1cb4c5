#!/usr/bin/env bash
# Session 27 run 2: (a) the MoE weight-gradient test with its dW1 claim fixed (run 1: dW1 in bf16 runs swapped, so it
# is one bf16 rounding of the fp32 dW1, not its bitwise rounding) and the swapped k-grouped tests; (b) the layer
# (fwd+bwd default) and dW1 across processes, session 26's library (base, 7e3eee4) against the candidate (cand);
# (c) on an H200 only, the benchmark table (run 1 took it on an H100).
B=.device/cand/build/final
source ci/device_run_lib.sh
step 200 tests.log python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_sm90_moe.py -k weight_grad_outputs \
  tests/test_sm90_kgrouped.py; tail -1 $OUT/tests.log; grep -E "^FAILED" $OUT/tests.log | head
AB_N30=4 AB_N235=3 ab_shapes .device/base/build/final .device/cand/build/final '^layer fwd\+bwd default$|^dW1 bf16 out$'
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  step 330 bench.log python3 benchmarks/bench_moe.py --reps 20 --json $OUT/bench.json; grep -v "^{" $OUT/bench.log | tail -24
fi
echo "t=$SECONDS"
