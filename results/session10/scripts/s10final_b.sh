#!/usr/bin/env bash
# Session 10, final device run, second call (same library as s10final.sh): the layer benchmark again with 20 reps,
# then the new defaults against the session's starting ones: GEMM 1 / GEMM 2 / dX kernels in one process
# (7 shuffled rounds) and the layer with the old ones forced, per shape.
source ci/device_run_lib.sh
step 150 bench2.log python3 benchmarks/bench_moe.py --reps 20 --json $OUT/bench2.json; grep -v "^{" $OUT/bench2.log | tail -9
step 150 ab.log python3 benchmarks/interleaved.py --rounds 7 --match "^(GEMM 1|GEMM 2|dX) (default|staged, A by TMA, wait0, TMA store|staged 128x192, (4 stages|TMA store))$"
grep -E "^\| |^[0-9]+b" $OUT/ab.log | grep -v "^| variant\|^|---"
# the session's starting defaults: GEMM 1 4 + 64 (30B) / 4 (235B), GEMM 2 and dX 3 + 32 + 64
PK_SM90_VARIANT_GEMM1=68 PK_SM90_VARIANT_GEMM2=99 PK_SM90_VARIANT_DX=99 step 120 bench_old_30b.log python3 benchmarks/bench_moe.py --shapes 30b --reps 10; grep -v "^{" $OUT/bench_old_30b.log | tail -4
PK_SM90_VARIANT_GEMM1=4 PK_SM90_VARIANT_GEMM2=99 PK_SM90_VARIANT_DX=99 step 150 bench_old_235b.log python3 benchmarks/bench_moe.py --shapes 235b --reps 10; grep -v "^{" $OUT/bench_old_235b.log | tail -4
gzip $OUT/bench2.json; echo "t=$SECONDS"
