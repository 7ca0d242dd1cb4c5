#!/usr/bin/env bash
# Session 10, final device run, third call: HEAD's library after GEMM 1's 235B default went back to staged
# 128 x 192 (host dispatch only: every kernel SASS-identical to the first two calls' library). The MoE GPU tests,
# the layer benchmark (20 reps), and the whole layer with the new defaults against session 10's starting ones
# interleaved in one process (15 shuffled rounds).
source ci/device_run_lib.sh
step 200 tests.log python3 -m pytest -q tests/test_sm90_moe.py tests/test_sm90_gemm.py; tail -1 $OUT/tests.log
step 150 bench.log python3 benchmarks/bench_moe.py --reps 20 --json $OUT/bench.json; grep -v "^{" $OUT/bench.log | tail -9
step 200 layer_ab.log python3 benchmarks/interleaved.py --rounds 15 --match "^layer"
grep -E "^\| |^[0-9]+b" $OUT/layer_ab.log | grep -v "^| variant\|^|---"
echo "t=$SECONDS"
