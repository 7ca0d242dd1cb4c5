#!/usr/bin/env bash
# Session 10, final device run on HEAD's library (.device/head; the ping-pong 128 x 192 GEMM 2 / dX kernels are
# SASS-identical to run 1's): ci/final_device_run.sh (every GPU test, layer benchmark, timeline, host overhead,
# routing timing, layer memcheck + racecheck), the benchmark again with 20 reps, then the new defaults against the
# old ones: GEMM 2 / dX kernels in one process (7 shuffled rounds) and the layer with the old ones forced.
source ci/device_run_lib.sh
bash ci/final_device_run.sh
step 150 bench2.log python3 benchmarks/bench_moe.py --reps 20 --json $OUT/bench2.json; grep -v "^{" $OUT/bench2.log | tail -9
step 150 ab.log python3 benchmarks/interleaved.py --rounds 7 --match "^(GEMM 2|dX) (default|staged, A by TMA, wait0, TMA store)$"
grep -E "^\| |^[0-9]+b" $OUT/ab.log | grep -v "^| variant\|^|---"
PK_SM90_VARIANT_GEMM2=99 PK_SM90_VARIANT_DX=99 step 150 bench_old_defaults.log python3 benchmarks/bench_moe.py --reps 10; grep -v "^{" $OUT/bench_old_defaults.log | tail -6
cd $OUT && tar czf logs.tgz san sanitize.txt bench2.json host.log routing_timing.txt && rm -rf san sanitize.txt bench2.json host.log routing_timing.txt; ls $OUT; echo "t=$SECONDS"
