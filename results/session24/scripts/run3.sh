#!/usr/bin/env bash
# Session 24 run 3: where the 32-deep k-blocks lose (run 2: GEMM 1 +19..22 %, dH +24..30 %). The bk32 tree built as
# the timing-diagnostic libraries (ci/build_diag_libraries.sh noload nomma): MMAs only (no operand copies) and loads
# only (no wgmma), each with the 64-deep defaults and the 32-deep candidates in one process a shape.
source ci/device_run_lib.sh
M='^(GEMM 1 (default|k32, 8 stages)|dH (default|k32, 6 stages.*))$'
for k in noload nomma; do
  step 200 diag_$k.log env PK_LIBRARY_PATH=.device/diag_$k/build/final python3 benchmarks/interleaved.py --rounds 5 --match "$M"
  echo "== $k"; grep -E "^\||^[0-9]+b" $OUT/diag_$k.log
done
echo "t=$SECONDS"
