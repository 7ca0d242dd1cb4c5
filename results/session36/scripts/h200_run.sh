#!/usr/bin/env bash
# Session 36: the one question session 34's rule left open, asked only of an H200 (on any other card it exits at
# once, so a draw of an H100 costs the start and nothing more). Library: main's (5dea91b, the bus-width rule), built
# into .device/dx99/build/final. Steps in priority order: dX in its two forms and the layer with each, interleaved
# (30B then 235B, 11 rounds); the benchmark with both dX forms; every GPU test on this build.
# Prediction (session 34's header, unchanged): on the H200 the default is the ping-pong form; 99 is 0-6 % slower
# there at 30B and even at 235B. If 99 is faster at both shapes instead (dX beyond the same-kernel spread, the layer
# at least not slower), `default_variant` goes back to B's major alone (4865675's form) and the H200 table moves
# with it.
# Run: `bash results/session36/scripts/h200_run.sh 2>&1 | tail -60`, carry [".device/dx99/build/final"].
export B=.device/dx99/build/final
source ci/device_run_lib.sh
only_on H200
M='^dX (default|ping-pong 128x192, A by TMA|staged, A by TMA, wait0, TMA store)$|^layer fwd\+bwd default$'
M+='|^layer fwd\+bwd, dX (staged, A by TMA, wait0, TMA store|ping-pong 128x192)$'
IL_TIMEOUT=200 interleaved_step il_30b.log --shapes 30b --rounds 11 --reps 20 --match "$M"
IL_TIMEOUT=240 interleaved_step il_235b.log --shapes 235b --rounds 11 --reps 10 --match "$M"
step 300 bench.log python3 benchmarks/bench_moe.py --reps 20 --variants default,DX=99 --json $OUT/bench.json
grep -v Warn $OUT/bench.log | grep -E '^\|' | tail -24
gpu_checks gpu_tests.log -m gpu tests
gzip $OUT/gpu_tests.log
echo "t=$SECONDS"
