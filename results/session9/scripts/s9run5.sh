#!/usr/bin/env bash
# Session 9, device run 5: ping-pong 128 x 192 (GEMM 1 variant 7; GEMM 2 / dX variant 4). GPU tests of the new
# forms, compute-sanitizer with them forced, then defaults against them (one process, 7 shuffled rounds, both
# shapes). Library of HEAD (.device/head).
source ci/device_run_lib.sh
step 240 tests.log python3 -m pytest -q -x tests/test_sm90_moe.py tests/test_sm90_gemm.py -k "pp192 or variant4"; tail -2 $OUT/tests.log
PK_SMALL_SHAPE=300,4,2,256,384 PK_SM90_MAX_CTAS=3 PK_SM90_VARIANT_GEMM1=7 PK_SM90_VARIANT_GEMM2=4 PK_SM90_VARIANT_DX=4 T_SAN=150 step 330 sanitize.log bash ci/gpu_sanitize.sh $OUT; cat $OUT/sanitize.log
step 240 interleaved.log python3 benchmarks/interleaved.py --rounds 7 --match "^(GEMM 1 default|GEMM 1 ping-pong 128x192|GEMM 2 default|GEMM 2 ping-pong 128x192, A by TMA|dX default|dX ping-pong 128x192, A by TMA)$"
grep -E "^\| |^[0-9]+b" $OUT/interleaved.log | grep -v "^| variant\|^|---"
echo "t=$SECONDS"
