#!/usr/bin/env bash
# Session 19, run 6 (diagnostic): where the gathered ping-pong product's remaining ~10 % over the pre-gathered copy
# goes. The identity row list on the copy (topk 1) against the copy without a list, in one process each, on: run 5's
# library (.device/s19d), a build whose gathering producer computes contiguous rows (PK_SM90_DIAG_GATHER=1: the index
# copies, waits and reads stay, the division and the index use go: .device/diag1), and one that only drops the
# division (PK_SM90_DIAG_GATHER=2: row = index, right for topk 1: .device/diag2). Only row lists within the copy run
# (the diagnostic builds would read past x's rows with the real gather).
source ci/device_run_lib.sh
M='GEMM 1 product, plain m-grouped, pre-gathered x, A by cp.async, ping-pong 128x192|GEMM 1 product, ping-pong 128x192, gather pattern: pre-gathered x, identity list'
for L in s19d diag1 diag2; do
  step 200 kern_$L.log env PK_LIBRARY_PATH=.device/$L/build/final python3 benchmarks/interleaved.py --shapes 30b,235b --match "^($M)\$" --rounds 7 --reps 5
  echo "== $L"; grep "^|\|^[0-9a-z]" $OUT/kern_$L.log | grep -v -- "---" | grep -v "min-max" | sed 's/GEMM 1 product, //'
done
echo "t=$SECONDS"
