#!/usr/bin/env bash
# Session 9, device run 1: the 256-row cooperative tiles (GEMM 1 variant 6; GEMM 2 / dX variant 4).
# GPU tests of the new variants, compute-sanitizer with them forced, then one process of 7 shuffled
# rounds: defaults against the 256-row forms at both shapes. Library of HEAD (.device/head).
source ci/device_run_lib.sh
step 240 tests.log python3 -m pytest -q -x tests/test_sm90_moe.py tests/test_sm90_gemm.py -k "256 or variant4"; tail -3 $OUT/tests.log
PK_SMALL_SHAPE=300,4,2,256,384 PK_SM90_MAX_CTAS=3 PK_SM90_VARIANT_GEMM1=6 PK_SM90_VARIANT_GEMM2=4 PK_SM90_VARIANT_DX=4 T_SAN=150 step 330 sanitize.log bash ci/gpu_sanitize.sh $OUT; cat $OUT/sanitize.log
step 240 interleaved.log python3 benchmarks/interleaved.py --rounds 7 --match "^(GEMM 1 default|GEMM 1 cooperative 256x192|GEMM 2 default|GEMM 2 cooperative 256x192, A by TMA|dX default|dX cooperative 256x192, A by TMA)$"
grep -E "^\| |^[0-9]+b" $OUT/interleaved.log | grep -v "^| variant\|^|---"
echo "t=$SECONDS"
