#!/usr/bin/env bash
# Session 8, device run 9: dH's split of warpgroup 0 between gathering and epilogue warps, re-measured
# after session 7's cheaper SwiGLU epilogue (run 6 found the 30B dH bound by its loads: 1.047 of 1.053 ms
# without MMAs). 8 + 32 (1 gathering warp, 3 epilogue warps: the 30B default) against 9 + 32 (2 + 2: the
# 235B default), both shapes, one process, 9 shuffled rounds, library of HEAD (.device/head).
source ci/device_run_lib.sh
step 200 interleaved.log python3 benchmarks/interleaved.py --rounds 9 --match "^dH (default|(2 )?epilogue warps 128x256, wait0, z L1 prefetch)$"
grep -E "^\| |^[0-9]+b" $OUT/interleaved.log | grep -v "^| variant\|^|---"
echo "t=$SECONDS"
