#!/usr/bin/env bash
# Session 24 run 8: cycles or clock? GEMM 1 and dH back to back for 1.5 s each with the SM clock sampled, in HEAD's
# library and in the timing-diagnostic builds (bk32's tree: its 64-deep default kernels are SASS-identical to HEAD's)
# without operand copies (MMAs + epilogue only) and without wgmma (loads + epilogue only).
source ci/device_run_lib.sh
M='^(GEMM 1 default|dH default)$'
for lib in head diag_noload diag_nomma; do
  step 120 clocks_$lib.log env PK_LIBRARY_PATH=.device/$lib/build/final python3 benchmarks/interleaved.py --rounds 3 --sustained 1.5 --match "$M"
  echo "== $lib"; grep -A6 "back to back" $OUT/clocks_$lib.log | grep -E "^\||^[0-9]+b"
done
echo "t=$SECONDS"
