#!/usr/bin/env bash
# Prepared in session 24, not run (its device time was spent; build the library first as said below): run 10, GEMM 1's and dH's MMA path without the epilogue's global stores (HEAD's tree built by
# `ci/build_diag_libraries.sh mmaonly`: .device/diag_mmaonly; in dH the epilogue's loads and math then have
# no use and go too), back to back 1.5 s with the clock, against run 8 / 9's MMA-only rows (same kernels with stores).
source ci/device_run_lib.sh
step 100 nl_ns.log env PK_LIBRARY_PATH=.device/diag_mmaonly/build/final python3 benchmarks/interleaved.py --rounds 1 --sustained 1.5 --match '^(GEMM 1 default|dH default)$'
grep -A6 "back to back" $OUT/nl_ns.log | grep -E "^\||^[0-9]+b"
echo "t=$SECONDS"
