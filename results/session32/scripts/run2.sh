#!/usr/bin/env bash
# Session 32 run 2 (right after run 1, same machine): the library with the 4-CTA dW1 as its default (.device/cs4def:
# run 1's source with the swapped dW1 in 4-CTA clusters unless debug bit 11, where H / 128 is a multiple of 4) through
# every GPU test, compute-sanitizer, and the benchmark, next to the pair default's (.device/cs4) benchmark.
# Prediction: all tests pass; the layer's fwd+bwd faster by what run 1 measured on dW1 alone (~0.1-0.4 ms at 235B).
# Run: `bash results/session32/scripts/run2.sh 2>&1 | tail -80`, carry [".device/cs4/build/final", ".device/cs4def/build/final"].
export B=.device/cs4def/build/final
source ci/device_run_lib.sh
step 120 bench_cs4def.log python3 benchmarks/bench_moe.py --reps 20 --json $OUT/bench.json; grep -v "^{" $OUT/bench_cs4def.log | tail -24
gpu_checks gpu_tests.log -m gpu tests
gzip $OUT/gpu_tests.log
step 120 bench_pairs.log env PK_LIBRARY_PATH=.device/cs4/build/final python3 benchmarks/bench_moe.py --reps 20
grep -v "^{" $OUT/bench_pairs.log | tail -14
echo "t=$SECONDS"
