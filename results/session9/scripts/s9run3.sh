#!/usr/bin/env bash
# Session 9, device run 3: the 256-row tiles with wait_group 0 release (GEMM 1 6 + 32; GEMM 2 / dX 4 + 32).
# GPU tests of the new forms, sanitizers with them forced, then defaults against 256-row forms (one process,
# 7 shuffled rounds, both shapes). Library of HEAD (.device/head).
source ci/device_run_lib.sh
step 240 tests.log python3 -m pytest -q -x tests/test_sm90_moe.py tests/test_sm90_gemm.py -k "rows256_wait0 or variant36"; tail -2 $OUT/tests.log
PK_SMALL_SHAPE=300,4,2,256,384 PK_SM90_MAX_CTAS=3 PK_SM90_VARIANT_GEMM1=38 PK_SM90_VARIANT_GEMM2=36 PK_SM90_VARIANT_DX=36 T_SAN=150 step 330 sanitize.log bash ci/gpu_sanitize.sh $OUT; cat $OUT/sanitize.log
step 240 interleaved.log python3 benchmarks/interleaved.py --rounds 7 --match "^(GEMM 1 default|GEMM 1 cooperative 256x192.*|GEMM 2 default|GEMM 2 cooperative 256x192, A by TMA, wait0|dX default|dX cooperative 256x192, A by TMA.*)$"
grep -E "^\| |^[0-9]+b" $OUT/interleaved.log | grep -v "^| variant\|^|---"
echo "t=$SECONDS"
