#!/usr/bin/env bash
# Session 34 run 6: the dX default moved to the staged form with TMA stores (99; host code only, SASS of every kernel
# the same as main's): every GPU test and the sanitizers on that library, then the benchmark, then the layer A/B
# against main's library in one process (interleaved rows: the old default forced by PK_SM90_VARIANT_DX=4).
# Prediction: every GPU test passes (775, 1 skipped); the layer fwd+bwd -1..-2 % (30B), -0.5..-1.5 % (235B) on an H100.
# Run: `bash results/session34/scripts/run6.sh 2>&1 | tail -80`, carry [".device/dx99/build/final"].
export B=.device/dx99/build/final
source ci/device_run_lib.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
gpu_checks gpu_tests.log tests/
step 240 bench.log python3 benchmarks/bench_moe.py --reps 20 --variants default,DX=4 --json $OUT/bench.json
grep -v Warn $OUT/bench.log | grep -E '^\|' | tail -24
echo "t=$SECONDS"
