#!/usr/bin/env bash
# Session 7, device run 10: opt-in dH + 128 (gathering warps prefetch dy rows into L2 with plain
# prefetch.global.L2, 8-15 k-blocks ahead): its MoE GPU tests (bitwise against the defaults), interleaved
# (shuffled, 9 rounds) against the defaults at both shapes, memcheck of a small layer with it.
source ci/device_run_lib.sh
step 100 tests.log python3 -m pytest -q -m gpu tests/test_sm90_moe.py -k "l2_prefetch" -p no:cacheprovider; tail -1 $OUT/tests.log; grep -E "^FAILED|^E  " $OUT/tests.log | head -5
step 150 interleaved.log python3 benchmarks/interleaved.py --rounds 9 --match "^dH (2 )?epilogue warps 128x256, wait0, z L1 prefetch(, dy L2 prefetch)?$"; grep -E "^\||^[0-9]+b" $OUT/interleaved.log
mkdir -p $OUT/san; PK_SM90_VARIANT_DH=168 PK_SMALL_SHAPE=300,4,2,256,256 PK_SM90_MAX_CTAS=2 T_SAN=60 bash ci/gpu_sanitize.sh "$OUT/san" > $OUT/sanitize.txt 2>&1; tail -4 $OUT/sanitize.txt
echo "t=$SECONDS"
