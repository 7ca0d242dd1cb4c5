#!/usr/bin/env bash
# Session 38, run 3: pipeline 28 as the bf16 weight-gradient default (main + this session's change, built on the dev
# machine into .device/wide28/build/final): every GPU test and compute-sanitizer on it, then the benchmark with the
# old default (21) for comparison. On an H200 also DX=99 in the benchmark (session 36's question). Last, the fp32 outs
# (plain and accumulated) in 28 against their defaults (19; dW1's accumulate in 4-CTA clusters).
# Prediction (run 1-2 on an H100): default vs WGRAD=21 fwd+bwd -1..-2 % at both shapes; tests all pass. fp32: 28's
# six 64-column passes each wait for the last one's reads (16 KiB a pass, no alternation), so its epilogue costs
# more than bf16's; from the bytes alone 28 would be -5..-8 % on fp32 outs; expected -2..+3 % (even).
# Run: `bash results/session38/scripts/final_run.sh 2>&1 | tail -50`, carry [".device/wide28/build/final"].
export B=.device/wide28/build/final
source ci/device_run_lib.sh
gpu_checks gpu_tests.log -m gpu tests
gzip $OUT/gpu_tests.log
V=default,WGRAD=21
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 && V+=,DX=99
step 300 bench.log python3 benchmarks/bench_moe.py --reps 20 --variants $V --json $OUT/bench.json
grep -v Warn $OUT/bench.log | grep -E '^\|' | tail -30
# (only with time left: the session's device budget was low when this ran)
if [ $SECONDS -lt 220 ]; then interleaved_shapes '^dW[12] fp32 (out|accumulate)(, wgrad variant wide_bk64)?$' 5 90 60; fi
echo "t=$SECONDS"
