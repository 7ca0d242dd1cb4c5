#!/usr/bin/env bash
# Session 27 run 1: dW1 (bf16 out) with its operands swapped and its tiles stored transposed (the candidate library,
# B=.device/cand/build/final): every GPU test and the sanitizers (the small MoE step now also takes the bf16 weight
# gradients); dW1 swapped against its old orientation (debug bit 10) and both against dW2 and the cuBLAS bmm
# products, in one process (7 rounds, then back to back 1.5 s each with the clock); then the benchmark table.
B=.device/cand/build/final
source ci/device_run_lib.sh
gpu_checks gpu_tests.log -m gpu tests
M='^dW[12] bf16 out$|^dW1 bf16 out, (caller|wgrad variant (staged_tma|split_bk128)$)|^ceiling dW[12]: torch\.bmm'
interleaved_step wgrad.log --rounds 7 --match "$M"
interleaved_step wgrad_sust.log --rounds 1 --sustained 1.5 --match "$M"
step 330 bench.log python3 benchmarks/bench_moe.py --reps 20 --json $OUT/bench.json; grep -v "^{" $OUT/bench.log | tail -24
gzip $OUT/gpu_tests.log
echo "t=$SECONDS"
