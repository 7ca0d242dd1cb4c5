#!/usr/bin/env bash
# Session 42, run 1 (not run in session 42: no device was lent): the weight gradients' balanced tile walk
# (.device/walk42/build/final: main + the walk; opt-in PK_SM90_WGRAD_WALK=balanced until this run passes), any card.
# (1) every GPU test (tests/test_sm90_kgrouped.py::test_walk_orders_bitwise checks that every walk gives the same bits
#     in every pipeline, test_sm90_moe.py's "wgrad_balanced_walk" runs the layer on the balanced walk), then memcheck +
#     racecheck, on the balanced walk too (SAN_ENV); (2) the benchmark, skewed routing (0.5), the plain walk (default)
#     against the balanced one (WALK=balanced) in the same process; (3) the same at uniform routing (the setup;
#     on an H200 also the session's table against the targets). If it all passes: make balanced the default
#     (deep_gemm/kernels/sm90_kgrouped.py balanced_walk, and the test variant's name).
# Prediction (a model of the static walk: a tile costs its group's 64-row chunks + 1, 66 CTA pairs; skew 0.5 puts the
# busiest expert at 3.2x the mean): the CTA that finishes last carries 1.132x the mean load in 30B dW2 under the plain
# walk, 1.016x balanced (dW1 1.058 -> 1.007; 235B dW2 1.013 -> 1.002, dW1 1.008 -> 1.001). In ms, skewed: 30B dW2 -0.06..
# -0.08, dW1 -0.05..-0.07, so 30B fwd+bwd -0.10..-0.15 ms (-1.5..-2 %); 235B -0.03..-0.08 ms (-0.1..-0.3 %). Uniform
# (plain walk 1.033 / 1.017 at 30B): within +-0.5 % at both shapes (argsort of the 128 expert counts: ~5-10 us of GPU
# time a backward). Forward unchanged (the walk is only the weight gradients').
# Build: `PYTHON=<venv>/bin/python JOBS=8 bash ci/build_device_library.sh walk42` (main at or after this script).
# Run: `bash results/session42/scripts/run1.sh 2>&1 | tail -45`, carry [".device/walk42/build/final"].
export B=${B:-.device/walk42/build/final}
source ci/device_run_lib.sh
SAN_ENV=PK_SM90_WGRAD_WALK=balanced gpu_checks gpu_tests.log -m gpu tests; gzip $OUT/gpu_tests.log
bench() {  # bench LOG ARG...
  local log=$1; shift
  step 200 $log python3 benchmarks/bench_moe.py --reps 20 --variants default,WALK=balanced "$@"
  grep -v Warn $OUT/$log | grep -E '^\||^routing' | tail -16
}
bench bench_skewed.log --routing skewed --skew 0.5 --json $OUT/bench_skewed.json
[ $SECONDS -lt 400 ] && bench bench_uniform.log --json $OUT/bench_uniform.json
echo "t=$SECONDS"
