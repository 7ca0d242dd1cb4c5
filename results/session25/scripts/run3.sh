#!/usr/bin/env bash
# Session 25 run 3: the epilogue alone (diag_epionly: no operand copies, no MMAs; the consumers stage garbage tiles
# and the epilogue warps do all their loads, math and stores), GEMM 1 and dH forms as in run 2, back to back 1.5 s.
source ci/device_run_lib.sh
M='^(GEMM 1 default|dH default|dH (2 )?epilogue warps 128x256, wait0, z L1 prefetch)$'
for b in diag_epionly; do
  step 150 $b.log env PK_LIBRARY_PATH=.device/$b/build/final python3 benchmarks/interleaved.py --rounds 1 --sustained 1.5 --match "$M"
  echo "== $b"; grep -A8 "back to back" $OUT/$b.log | grep -E "^\| [GdD]|^[0-9]+b"
done
echo "t=$SECONDS"
