#!/usr/bin/env bash
# Session 9, device run 11: GEMM 1 ping-pong 128 x 192 (variant 7) with the 16-byte register stores: its MoE GPU
# tests, memcheck + racecheck with it forced (I = 384), then default against it (one process, 7 shuffled rounds).
source ci/device_run_lib.sh
step 150 tests.log python3 -m pytest -q -x tests/test_sm90_moe.py -k "gemm1_pp192"; tail -2 $OUT/tests.log
mkdir -p $OUT/san; PK_SMALL_SHAPE=300,4,2,256,384 PK_SM90_MAX_CTAS=3 PK_SM90_VARIANT_GEMM1=7 T_SAN=90 step 200 san.log bash ci/gpu_sanitize.sh $OUT/san; cat $OUT/san.log
step 120 interleaved.log python3 benchmarks/interleaved.py --rounds 7 --match "^GEMM 1 (default|ping-pong 128x192)$"
grep -E "^\| |^[0-9]+b" $OUT/interleaved.log | grep -v "^| variant\|^|---"
echo "t=$SECONDS"
