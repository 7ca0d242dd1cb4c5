#!/usr/bin/env bash
# Session 40, run 1: main's library (.device/final39/build/final, built from 3947260; device code since then
# SASS-identical) on whatever card comes.
# H200 (the issue's card; its last table is session 31's, before pipeline 28): (1) the benchmark, default against
# dX forced to 99 (the H100 default since session 34) and against the old bf16 weight-gradient default (WGRAD=21);
# (2) the same questions kernel by kernel and as layers, interleaved in one process; (3) every GPU test, if the call
# has time left (TESTS_IF_BEFORE seconds, default 330; SHORT=1 stops after the benchmark).
# Any other card: session 39's run 3 (its header has the prediction). (Run 1 came on an H100 and ran that; from run 2
# on, any card but an H200 runs nothing: NOT_H200=exit.)
# Prediction (H200): default fwd+bwd 235B 26.0-26.6 ms (session 31: 26.81-27.00; pipeline 28 took 2.8 % off on an
# H100), 1.48-1.52x; 30B 7.1-7.3 ms, 1.90-1.95x; forward unchanged (2.12-2.13 / 8.63-8.73). WGRAD=21 +1..+3 % at 235B,
# +0..+2 % at 30B. dX 99 against ping-pong: session 10's H200 had ping-pong 3.6-6.3 % ahead at 30B; with today's kernels
# 99 within +-3 % at 235B and ping-pong ahead by 0-6 % at 30B; the layer within +-1.5 %.
# Run: `bash results/session40/scripts/run1.sh 2>&1 | tail -50`, carry [".device/final39/build/final"].
export B=${B:-.device/final39/build/final}
if ! nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  [ "${NOT_H200:-}" = exit ] && { nvidia-smi --query-gpu=name --format=csv,noheader; echo "not an H200: nothing run"; exit 0; }
  exec bash results/session39/scripts/run3.sh
fi
source ci/device_run_lib.sh
step 300 bench.log python3 benchmarks/bench_moe.py --reps 20 --variants ${BENCH_VARIANTS:-default,DX=99,WGRAD=21} --json $OUT/bench.json
grep -v Warn $OUT/bench.log | grep -E '^\|' | tail -24
M='^dX (default|ping-pong 128x192, A by TMA|staged, A by TMA, wait0, TMA store)$|^layer fwd\+bwd default$'
M+='|^layer fwd\+bwd, dX (staged, A by TMA, wait0, TMA store|ping-pong 128x192)$|^layer fwd\+bwd, wgrad defer tail \(21\)$'
M+='|^dW[12] bf16 out(, wgrad variant split_bk128_defer_tail)?$'
# (SHORT=1: the benchmark only, for a short device budget)
[ -n "${SHORT:-}" ] && { echo "t=$SECONDS (short: the benchmark only)"; exit 0; }
interleaved_shapes "$M" ${IL_ROUNDS:-7} 150 100
# every GPU test on the H200 too (the last whole-suite H200 run was session 31's), if the call has time for it
if [ $SECONDS -lt ${TESTS_IF_BEFORE:-330} ]; then gpu_checks gpu_tests.log -m gpu tests; gzip $OUT/gpu_tests.log; fi
echo "t=$SECONDS"
