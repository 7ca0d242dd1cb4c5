#!/usr/bin/env bash
# A candidate kernel library, checked and timed in one device run: every GPU test and the sanitizers on it, the
# A/B against a base library over alternating processes (GEMM 1, dH, GEMM 1's plain ping-pong product gathered and
# pre-gathered; GEMM 2 is the control) or, for variants the library selects at run time, benchmarks/interleaved.py
# in one process, then the benchmark table. Logs under $OUT.
#   B=NEW_BUILD_DIR [BASE=OLD_BUILD_DIR [AB_MATCH=REGEX]] [INTERLEAVED="interleaved.py arguments"] [DIAG=1: also
#   benchmarks/gather_diag.py] [BENCH=0: no benchmark table] bash ci/candidate_run.sh
source ci/device_run_lib.sh
gpu_checks gpu_tests.log -m gpu tests/
# AB_MATCH: the interleaved.py rows to compare (default: the m-grouped kernels the gathering producer runs in).
M=${AB_MATCH:-'^(GEMM 1 default|dH default|GEMM 2 default|GEMM 1 product, plain m-grouped, (x gathered by cp.async|pre-gathered x, A by cp.async), ping-pong 128x192)$'}
if [ -n "${BASE:-}" ]; then ab_shapes $BASE $B "$M"; fi
if [ -n "${INTERLEAVED:-}" ]; then eval "interleaved_step interleaved.log $INTERLEAVED"; fi
if [ "${DIAG:-0}" = 1 ]; then step 60 diag.log python3 benchmarks/gather_diag.py; cat $OUT/diag.log; fi
if [ "${BENCH:-1}" = 1 ]; then
  step 200 bench.log python3 benchmarks/bench_moe.py --reps 20 --json $OUT/bench.json; grep -v "^{" $OUT/bench.log | tail -16
fi
gzip $OUT/gpu_tests.log; rm -f $OUT/sanitize_*.log; echo "t=$SECONDS"
