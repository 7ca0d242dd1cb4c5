#!/usr/bin/env bash
# Session 41, run 1: main's library (.device/final39/build/final, rebuilt this session from cdb43ff; device code
# SASS-identical since 3947260) on whatever card comes, one machine start for both of session 40's open runs.
# H200: (1) the benchmark, default against DX=99 and WGRAD=21 (session 40 run1.sh's prediction: 235B fwd+bwd
#   26.0-26.6 ms, 1.48-1.52x; 30B 7.1-7.3 ms, 1.90-1.95x; forward unchanged 2.12-2.13 / 8.63-8.73); (2) the per-kernel
#   gaps to cuBLAS bmm (session 40 gaps.sh's prediction: dW1 1.00-1.06, dW2 1.09-1.13, dH 1.2-1.3, GEMM 1 1.08-1.16,
#   GEMM 2 1.02-1.05, dX 1.02-1.07); (3) dX 99 against ping-pong and 28 against 21, interleaved; (4) every GPU test
#   if the call has time left.
# Any other card: (2) only (the gaps are ratios to cuBLAS, which carry across cards better than times). Run 1 came on
# an H100 and ran (2) (results/session41/run1); from run 2 on any card but an H200 runs nothing (GAPS_ON_OTHER=1: (2)).
# Run: `bash results/session41/scripts/run1.sh 2>&1 | tail -60`, carry [".device/final39/build/final"].
export B=${B:-.device/final39/build/final}
if ! nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  [ -n "${GAPS_ON_OTHER:-}" ] && exec bash results/session40/scripts/gaps.sh
  nvidia-smi --query-gpu=name --format=csv,noheader; echo "not an H200: nothing run"; exit 0
fi
source ci/device_run_lib.sh
step 300 bench.log python3 benchmarks/bench_moe.py --reps 20 --variants ${BENCH_VARIANTS:-default,DX=99,WGRAD=21} --json $OUT/bench.json
grep -v Warn $OUT/bench.log | grep -E '^\|' | tail -24
M='^(GEMM 1|GEMM 2|dX|dH) default$|^dW[12] bf16 out$|^combine default$|torch\.bmm, balanced|contiguous sum'
IL_TIMEOUT=150 interleaved_step kernels.log --rounds 1 --sustained 1.5 --match "$M"
M='^dX (default|staged, A by TMA, wait0, TMA store)$|^layer fwd\+bwd default$'
M+='|^layer fwd\+bwd, dX staged, A by TMA, wait0, TMA store$|^layer fwd\+bwd, wgrad defer tail \(21\)$'
M+='|^dW[12] bf16 out(, wgrad variant split_bk128_defer_tail)?$'
[ $SECONDS -lt 420 ] && interleaved_shapes "$M" ${IL_ROUNDS:-5} 100 70
if [ $SECONDS -lt ${TESTS_IF_BEFORE:-330} ]; then gpu_checks gpu_tests.log -m gpu tests; gzip $OUT/gpu_tests.log; fi
echo "t=$SECONDS"
