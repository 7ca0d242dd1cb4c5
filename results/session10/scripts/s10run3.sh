#!/usr/bin/env bash
# Session 10, device run 3: ping-pong 128 x 192 with 5 stages (8 staging rows a warp, scheduler tables sized
# for the real group count, no alignment slack): every m-grouped / MoE GPU test (the table layout and the
# shared-memory size changed for all kernels), memcheck + racecheck with the pp192 forms forced, then the
# defaults against them in one process (7 shuffled rounds, both shapes).
source ci/device_run_lib.sh
step 420 tests.log python3 -m pytest -q -x tests/test_sm90_moe.py tests/test_sm90_gemm.py; tail -2 $OUT/tests.log
mkdir -p $OUT/san; PK_SMALL_SHAPE=300,4,2,256,384 PK_SM90_MAX_CTAS=3 PK_SM90_VARIANT_GEMM1=7 PK_SM90_VARIANT_GEMM2=4 PK_SM90_VARIANT_DX=4 T_SAN=100 step 220 san.log bash ci/gpu_sanitize.sh $OUT/san; cat $OUT/san.log
step 200 interleaved.log python3 benchmarks/interleaved.py --rounds 7 --match "^(GEMM 1|GEMM 2|dX) (default|ping-pong 128x192)"
grep -E "^\| |^[0-9]+b" $OUT/interleaved.log | grep -v "^| variant\|^|---"
echo "t=$SECONDS"
