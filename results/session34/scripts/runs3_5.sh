#!/usr/bin/env bash
# Session 34 runs 3-5, as they were sent to the (warm) H100 one command each, carry [".device/final/build/final"]
# (main's library at 7bd14ba / 4865675's kernels: SASS the same). Logs: results/session34/run3/, run4/, run5/.
export B=.device/final/build/final
source ci/device_run_lib.sh
# run 3: dX / GEMM 2 staged with TMA stores (99) against the defaults, 11 rounds, another seed
M='^(dX|GEMM 2) default$|^(dX|GEMM 2) staged, A by TMA, wait0, TMA store$|^layer fwd\+bwd default$|^layer fwd\+bwd, dX staged, A by TMA, wait0, TMA store$'
IL_TIMEOUT=200 interleaved_step il3_30b.log --shapes 30b --rounds 11 --reps 20 --seed 3 --match "$M"
IL_TIMEOUT=200 interleaved_step il3_235b.log --shapes 235b --rounds 11 --reps 20 --seed 3 --match "$M"
# run 4: the dX rows and the layer with more rounds; the benchmark with DX=99; the per-kernel timelines
M='^dX default$|^dX staged, A by TMA, wait0, TMA store$|^layer fwd\+bwd default$|^layer fwd\+bwd, dX staged, A by TMA, wait0, TMA store$'
IL_TIMEOUT=200 interleaved_step il4_30b.log --shapes 30b --rounds 21 --reps 20 --seed 5 --match "$M"
IL_TIMEOUT=240 interleaved_step il4_235b.log --shapes 235b --rounds 15 --reps 10 --seed 5 --match "$M"
timeout 280 python3 benchmarks/bench_moe.py --reps 20 --variants default,DX=99 --json $OUT/bench_dx99.json > $OUT/bench_dx99.log 2>&1
for v in 0 99; do PK_SM90_VARIANT_DX=$v timeout 100 python3 benchmarks/timeline_moe.py --shapes 30b,235b --iters 7 > $OUT/tl_dx$v.log 2>&1; done
# run 5: every MoE GPU test and the sanitizers with dX forced to 99
PK_SM90_VARIANT_DX=99 timeout 230 python3 -m pytest -q -x tests/test_sm90_moe.py -p no:cacheprovider > $OUT/moe_tests_dx99.log 2>&1
for t in memcheck racecheck; do
  PK_SM90_VARIANT_DX=99 timeout 150 compute-sanitizer --tool $t python3 ci/sm90_moe_small.py > $OUT/san_$t.log 2>&1
done
