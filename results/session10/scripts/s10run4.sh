#!/usr/bin/env bash
# Session 10, device run 4: GEMM 1 cooperative 128 x (128 + 128), 4 stages, z and h through 8 staging rows a warp
# (variant 9; scheduler tables for 163 experts, no alignment slack): its tests, memcheck + racecheck with it
# forced (I = 384, 3 CTAs), then against the default and the register-store 128 x 256 (variant 1) in one
# process (7 shuffled rounds, both shapes).
source ci/device_run_lib.sh
step 200 tests.log python3 -m pytest -q -x tests/test_sm90_moe.py -k "ws8 or default"; tail -2 $OUT/tests.log
mkdir -p $OUT/san; PK_SMALL_SHAPE=300,4,2,256,384 PK_SM90_MAX_CTAS=3 PK_SM90_VARIANT_GEMM1=9 T_SAN=100 step 220 san.log bash ci/gpu_sanitize.sh $OUT/san; cat $OUT/san.log
step 200 interleaved.log python3 benchmarks/interleaved.py --rounds 7 --match "^GEMM 1 (default|cooperative 128x256)"
grep -E "^\| |^[0-9]+b" $OUT/interleaved.log | grep -v "^| variant\|^|---"
echo "t=$SECONDS"
