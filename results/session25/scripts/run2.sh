#!/usr/bin/env bash
# Session 25 run 2: what bounds dH: its consumers' MMA path (two m64n128 wgmmas a k-step under the epilogue
# warpgroup's 128-register bound) or its epilogue warps. Four builds of main's tree: head, diag_noepi (the epilogue
# warps only take and hand back each staged tile), diag_mmaonly (no loads, no stores; the dH epilogue warps' loads and
# math stay), diag_mmanoepi (no loads, no epilogue work: the MMA path and hand-off alone). Rows: GEMM 1 default, dH
# default (10 + 32: n128 pairs, 4 epilogue warps), dH 8 + 32 / 9 + 32 (m64n256, 3 / 2 epilogue warps in the producer
# warpgroup); each back to back 1.5 s with the SM clock sampled (interleaved.py --sustained 1.5).
source ci/device_run_lib.sh
M='^(GEMM 1 default|dH default|dH (2 )?epilogue warps 128x256, wait0, z L1 prefetch)$'
for b in head diag_noepi diag_mmaonly diag_mmanoepi; do
  step 150 $b.log env PK_LIBRARY_PATH=.device/$b/build/final python3 benchmarks/interleaved.py --rounds 1 --sustained 1.5 --match "$M"
  echo "== $b"; grep -A8 "back to back" $OUT/$b.log | grep -E "^\| [GdD]|^[0-9]+b"
done
echo "t=$SECONDS"
