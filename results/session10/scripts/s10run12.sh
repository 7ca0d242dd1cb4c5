#!/usr/bin/env bash
# Session 10, device run 12: GEMM 1 staged 128 x 192 with 32-column k-blocks in 8 stages (variant 4 + 128, + 64 with
# the TMA store; .device/bk): its GPU tests (every MoE case, few CTAs, bitwise against the 64-column forms),
# memcheck + racecheck with it forced (I = 384, 3 CTAs), then against the defaults in one process (7 rounds).
source ci/device_run_lib.sh
export PK_LIBRARY_PATH=.device/bk/build/final
step 150 tests.log python3 -m pytest -q -x tests/test_sm90_moe.py -k "bk32"; tail -1 $OUT/tests.log
mkdir -p $OUT/san; PK_SMALL_SHAPE=300,4,2,256,384 PK_SM90_MAX_CTAS=3 PK_SM90_VARIANT_GEMM1=196 T_SAN=100 step 220 san.log bash ci/gpu_sanitize.sh $OUT/san; cat $OUT/san.log
step 150 interleaved.log python3 benchmarks/interleaved.py --rounds 7 --match "^GEMM 1 (default|staged 128x192, (4 stages|BK 32.*))$"
grep -E "^\| |^[0-9]+b" $OUT/interleaved.log | grep -v "^| variant\|^|---"
echo "t=$SECONDS"
