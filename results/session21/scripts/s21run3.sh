#!/usr/bin/env bash
# Session 21, run 3: HEAD's library (.device/s21c: the kernels are session 20's, built through cmake/ptxas_guard.py).
# Every GPU test, then the m-grouped defaults against their alternatives in one process a shape (they were last
# compared in sessions 15-18, before session 19 changed the gathering producer; run 2's attempt at this step ran
# without the library: B was not exported past ci/candidate_run.sh), then the benchmark table.
export B=.device/s21c/build/final
source ci/device_run_lib.sh
step 200 gpu_tests.log python3 -m pytest -q -p no:cacheprovider -m gpu tests/; tail -1 $OUT/gpu_tests.log; grep -E "^FAILED" $OUT/gpu_tests.log | head
M='^(GEMM 1 (default|staged 128x192, (4 stages|TMA store|wait0)|cooperative 128x256)|dH (default|(2 )?epilogue warps 128x256, wait0, z L1 prefetch|coop 128x256)|GEMM 2(, A by TMA| (default|ping-pong 128x192, A by TMA|staged, A by TMA, (wait0, )?TMA store))|dX(, A by TMA| (default|ping-pong 128x192, A by TMA|staged, A by TMA, (wait0, )?TMA store)))$'
IL_TIMEOUT=300 interleaved_step sweep.log --rounds 7 --seed 212 --match "$M"
step 240 bench.log python3 benchmarks/bench_moe.py --reps 20 --json $OUT/bench.json; grep -v "^{" $OUT/bench.log | tail -16
gzip $OUT/gpu_tests.log; echo "t=$SECONDS"
