#!/usr/bin/env bash
# Session 19, run 4 (diagnostic): run 1's gather patterns again, on the libraries of runs 2 (.device/s19b: indices
# loaded branch-free) and 3 (.device/s19c: indices one tile ahead through shared memory): with the index stall gone,
# does the rows' pattern cost anything?
source ci/device_run_lib.sh
M='GEMM 1 product, plain m-grouped, (x gathered by cp.async|pre-gathered x, A by cp.async), ping-pong 128x192|GEMM 1 product, ping-pong 128x192, gather pattern: .*'
for L in s19b s19c; do
  step 200 kern_$L.log env PK_LIBRARY_PATH=.device/$L/build/final python3 benchmarks/interleaved.py --shapes 30b,235b --match "^($M)\$" --rounds 5 --reps 5
  echo "== $L"; grep "^|\|^[0-9a-z]" $OUT/kern_$L.log | grep -v -- "---" | grep -v "min-max" | sed 's/GEMM 1 product, //'
done
echo "t=$SECONDS"
