#!/usr/bin/env bash
# Session 8, device run 6: what bounds each kernel of the layer. The m-grouped defaults (GEMM 1, GEMM 2, dH,
# dX) timed with the normal library (.device/head) and the two timing-diagnostic builds of the same tree
# (ci/build_diag_libraries.sh: without wgmma / without operand copies), one process each, 5 shuffled rounds;
# the weight gradients' own diagnostic forms (loads only, MMAs only, pre-gathered copies, torch) with the
# normal library.
source ci/device_run_lib.sh
for lib in head diag_nomma diag_noload; do
  PK_LIBRARY_PATH=.device/$lib/build/final step 150 diag_$lib.log python3 benchmarks/interleaved.py --rounds 5 --match "^(GEMM 1|GEMM 2|dX|dH) default$"
  grep -E "^\| |^[0-9]+b" $OUT/diag_$lib.log | grep -v "^| variant\|^|---" | sed "s/^/$lib /"
done
step 200 diag_wgrad.log python3 benchmarks/interleaved.py --rounds 5 --match "^dW[12] bf16 out(, ours loads only|, ours MMAs only|, pre-gathered copies, ours|, pre-gathered copies, torch _grouped_mm)?$"
grep -E "^\| |^[0-9]+b" $OUT/diag_wgrad.log | grep -v "^| variant\|^|---"
echo "t=$SECONDS"
