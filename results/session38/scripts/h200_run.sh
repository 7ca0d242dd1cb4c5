#!/usr/bin/env bash
# Session 38, H200 only (on any other card it exits at once): session 36's dX question (99 vs ping-pong, prediction in
# results/session36/scripts/h200_run.sh's header) and pipeline 28 (the bf16 weight-gradient default since this session)
# against 21 in the benchmark, on main's library (.device/wide28/build/final; dX kernels as before), then every GPU
# test on it.
# Run: `bash results/session38/scripts/h200_run.sh 2>&1 | tail -60`, carry [".device/wide28/build/final"]; on a later
# library `B=<its build>/final bash ...` with that carried instead (session 39: .device/final39/build/final).
export B=${B:-.device/wide28/build/final}
source ci/device_run_lib.sh
only_on H200
M='^dX (default|ping-pong 128x192, A by TMA|staged, A by TMA, wait0, TMA store)$|^layer fwd\+bwd default$'
M+='|^layer fwd\+bwd, dX (staged, A by TMA, wait0, TMA store|ping-pong 128x192)$|^layer fwd\+bwd, wgrad defer tail \(21\)$'
M+='|^dW[12] bf16 out(, wgrad variant split_bk128_defer_tail)?$'
interleaved_shapes "$M" 9 200 150
step 300 bench.log python3 benchmarks/bench_moe.py --reps 20 --variants default,DX=99,WGRAD=21 --json $OUT/bench.json
grep -v Warn $OUT/bench.log | grep -E '^\|' | tail -24
gpu_checks gpu_tests.log -m gpu tests
gzip $OUT/gpu_tests.log
echo "t=$SECONDS"
