#!/usr/bin/env bash
# Session 8, device run 11: dH with the gathered dy rows as per-row TMA boxes (dH + 128, AMode::kGatherPairTma).
# (1) the MoE tests of the two new forms (168 = 8+32+128, 169 = 9+32+128); (2) interleaved (one process, 9
# shuffled rounds) against the cp.async forms and the default, both shapes; (3) memcheck + racecheck of a
# small layer with dH 168. Library of this commit in .device/head.
source ci/device_run_lib.sh
step 120 tests.log python3 -m pytest -q -m gpu tests/test_sm90_moe.py -k "tma_gather" -p no:cacheprovider; tail -1 $OUT/tests.log; grep -E "^FAILED|^E  " $OUT/tests.log | head -8
step 200 interleaved.log python3 benchmarks/interleaved.py --rounds 9 --match "^dH (default|(2 )?epilogue warps 128x256, wait0, z L1 prefetch(, dy rows by TMA)?)$"
grep -E "^\| |^[0-9]+b" $OUT/interleaved.log | grep -v "^| variant\|^|---"
mkdir -p $OUT/san; PK_SM90_VARIANT_DH=168 PK_SMALL_SHAPE=300,4,2,256,256 PK_SM90_MAX_CTAS=2 T_SAN=60 bash ci/gpu_sanitize.sh "$OUT/san" > $OUT/sanitize.txt 2>&1; tail -6 $OUT/sanitize.txt
echo "t=$SECONDS"
