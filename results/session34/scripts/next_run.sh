#!/usr/bin/env bash
# For the next device call (session 35), on d26810b's library or later (host code only changed since main's
# 7bd14ba: the dX default by memory bus width). Build it on the dev machine first:
#   cmake -G Ninja -DPK_ARCHS=90a ../src && ninja   (into .device/dx99/build, then cp the .so into build/final)
# Steps in priority order (a cut-off run still returns the first): every GPU test and the sanitizers on that build;
# dX's two forms and the layer with each, interleaved (the open question on an H200: 99 against the ping-pong form
# with today's kernels, last compared there in session 10); the benchmark with both dX forms; session 31's run 3
# (9 rounds of 20: session 34 found 5 of 10 too few on an H100).
# Prediction: every GPU test passes (775, 1 skipped). On an H100 the default is 99 and the rows repeat session 34's
# runs 2-4 (dX -5..-12 %, layer -0.4..-2.4 %). On an H200 the default is the ping-pong form; session 10's reading says
# 99 is 0-6 % slower there at 30B and even at 235B; if 99 is faster at both shapes instead, `default_variant` goes
# back to B's major alone (4865675's form).
# Run: `bash results/session34/scripts/next_run.sh 2>&1 | tail -80`, carry [".device/dx99/build/final"].
export B=.device/dx99/build/final
source ci/device_run_lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,memory.total --format=csv,noheader
gpu_checks gpu_tests.log -m gpu tests
gzip $OUT/gpu_tests.log
M='^dX (default|ping-pong 128x192, A by TMA|staged, A by TMA, wait0, TMA store)$|^layer fwd\+bwd default$'
M+='|^layer fwd\+bwd, dX (staged, A by TMA, wait0, TMA store|ping-pong 128x192)$'
IL_TIMEOUT=200 interleaved_step il_30b.log --shapes 30b --rounds 11 --reps 20 --match "$M"
IL_TIMEOUT=240 interleaved_step il_235b.log --shapes 235b --rounds 11 --reps 10 --match "$M"
step 300 bench.log python3 benchmarks/bench_moe.py --reps 20 --variants default,DX=4,DX=99 --json $OUT/bench.json
grep -v Warn $OUT/bench.log | grep -E '^\|' | tail -30
# last (what a cut-off run may lose): session 31's run 3 on the card, every big kernel's default against its forms
eval "$(grep '^M+\?=' results/session31/scripts/run3.sh)"
IL_TIMEOUT=240 interleaved_step il31_235b.log --shapes 235b --rounds 9 --reps 20 --match "$M"
IL_TIMEOUT=150 interleaved_step il31_30b.log --shapes 30b --rounds 9 --reps 20 --match "$M"
echo "t=$SECONDS"
