#!/usr/bin/env bash
# Session 17, run 6: what bounds GEMM 1, dH, GEMM 2 and dX in their current default forms (session 8's table
# was of older forms): the same tree built as the timing-diagnostic libraries (ci/build_diag_libraries.sh:
# without the consumers' wgmma = loads + epilogue; without the producers' copies = MMAs + epilogue; without the
# epilogues' global stores, now also dH's epilogue warps), one process each, synchronised calls, 7 shuffled rounds;
# the normal library (run 4's) with torch.bmm over equal groups next to it.
B=.device/new/build/final
source ci/device_run_lib.sh
M='GEMM 1 default|GEMM 2 default|dX default|dH default'
step 150 normal.log python3 benchmarks/interleaved.py --shapes 30b,235b --match "^($M|ceiling (GEMM 1|GEMM 2|dH|dX): torch.bmm, balanced groups)\$" --rounds 7 --reps 5
for k in nomma noload nostore; do
  step 120 $k.log env PK_LIBRARY_PATH=.device/diag_$k/build/final python3 benchmarks/interleaved.py --shapes 30b,235b --match "^($M)\$" --rounds 7 --reps 5
done
for f in normal nomma noload nostore; do echo "== $f"; grep "^|\|^[0-9a-z]" $OUT/$f.log | grep -v -- "---" | grep -v "min-max"; done
echo "t=$SECONDS"
