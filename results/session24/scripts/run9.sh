#!/usr/bin/env bash
# Session 24 run 9: GEMM 1's MMA path without loads (diag_noload: bk32's tree, its 64-deep kernels SASS-identical to
# HEAD's) in three tile forms (128 x 192 with the epilogue warpgroup = default, cooperative 128 x 256 with m64n256,
# staged 128 x 192) next to cuBLAS's bmm on balanced groups, back to back with the clock: is the MMA path's 77 % of
# the tensor peak a property of the tile shape (two warpgroups each reading the whole B tile) or of the per-tile work?
source ci/device_run_lib.sh
M='^(GEMM 1 (default|cooperative 128x256|staged 128x192, 4 stages)|ceiling GEMM 1: torch\.bmm, balanced groups)$'
step 200 mma_forms.log env PK_LIBRARY_PATH=.device/diag_noload/build/final python3 benchmarks/interleaved.py --rounds 3 --sustained 1.5 --match "$M"
grep -E "^\||^[0-9]+b" $OUT/mma_forms.log
echo "t=$SECONDS"
