#!/usr/bin/env bash
# Session 41, run 2: main's library (.device/final39/build/final, as run 1) with the benchmark's new --routing skewed
# (experts' loads lognormal: at skew 0.5 the busiest expert has 3.3x the mean's pairs, the idlest 0.34x).
# H200: (1) the benchmark, uniform routing, default against DX=99 and WGRAD=21 (session 40 run1.sh's prediction: 235B
#   fwd+bwd 26.0-26.6 ms, 1.48-1.52x; 30B 7.1-7.3 ms, 1.90-1.95x); (2) the per-kernel gaps to cuBLAS bmm (session 40
#   gaps.sh's prediction); (3) the benchmark with skewed routing; (4) every GPU test if the call has time left.
# Any other card: (3), then the uniform benchmark in the same call for comparison.
# Prediction for (3) against uniform in the same run: ours fwd+bwd +2..+10 %. The m-grouped kernels about even (the
#   tile count stays ~1.06x the even split: each expert pads half a tile on average however big it is; busy experts
#   reuse their weight slices more). The weight gradients may lose 5-20 %: their tiles' depth is the expert's row
#   count (3.3x the mean for the busiest) and the persistent grid walks tiles in a fixed order, so the CTAs holding
#   busy experts' tiles finish last. Torch's layer +0..+10 % (its grouped GEMMs see the same imbalance; the sorts and
#   index_add_ do not change), so the fwd+bwd speedup within -8..+5 %.
# Run: `bash results/session41/scripts/run2.sh 2>&1 | tail -40`, carry [".device/final39/build/final"].
export B=${B:-.device/final39/build/final}
source ci/device_run_lib.sh
skewed() { step 240 bench_skewed.log python3 benchmarks/bench_moe.py --reps 20 --routing skewed --skew 0.5 --json $OUT/bench_skewed.json
  grep -v Warn $OUT/bench_skewed.log | grep -E '^\||^routing' | tail -14; }
if ! nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  skewed
  step 240 bench_uniform.log python3 benchmarks/bench_moe.py --reps 20 --json $OUT/bench_uniform.json
  grep -v Warn $OUT/bench_uniform.log | grep -E '^\||^routing' | tail -14
  echo "t=$SECONDS"; exit 0
fi
step 300 bench.log python3 benchmarks/bench_moe.py --reps 20 --variants ${BENCH_VARIANTS:-default,DX=99,WGRAD=21} --json $OUT/bench.json
grep -v Warn $OUT/bench.log | grep -E '^\|' | tail -24
[ -n "${SHORT:-}" ] && { echo "t=$SECONDS (short: the benchmark only)"; exit 0; }
M='^(GEMM 1|GEMM 2|dX|dH) default$|^dW[12] bf16 out$|^combine default$|torch\.bmm, balanced|contiguous sum'
IL_TIMEOUT=150 interleaved_step kernels.log --rounds 1 --sustained 1.5 --match "$M"
[ $SECONDS -lt 420 ] && skewed
if [ $SECONDS -lt ${TESTS_IF_BEFORE:-330} ]; then gpu_checks gpu_tests.log -m gpu tests; gzip $OUT/gpu_tests.log; fi
echo "t=$SECONDS"
