#!/usr/bin/env bash
# Session 25 run 4: does the epilogue's 1 GB of DRAM traffic (30B dH: z in, dz and h*w out) cost the operand stream
# through L2 residency? Libraries: head (main's tree), stcs (branch next/epi-stream-stores: the epilogue warps' z, h,
# dz, h*w stores as st.global.cs), ldcs (next/epi-stream-all: also dH's z loads as ld.global.cs), diag_nostore
# (main's tree without the epilogues' stores). Each back to back 1.5 s with the SM clock (A/B within ~0.5 %,
# session 11), head first and last to see drift.
source ci/device_run_lib.sh
M='^(GEMM 1 default|dH default|layer fwd\+bwd default)$'
for b in head stcs ldcs diag_nostore head; do
  log=$b.$SECONDS.log
  step 150 $log env PK_LIBRARY_PATH=.device/$b/build/final python3 benchmarks/interleaved.py --rounds 1 --sustained 1.5 --match "$M"
  echo "== $b"; grep -A8 "back to back" $OUT/$log | grep -E "^\| [GdDl]|^[0-9]+b"
done
echo "t=$SECONDS"
