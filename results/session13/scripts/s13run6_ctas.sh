#!/usr/bin/env bash
# Session 13, run 6 (library: f78ccd4, the session start's kernels): the four m-grouped kernels with their persistent
# grid capped at 124 / 116 / 100 CTAs (of 132 SMs) against the full grid, back to back: is the L2 load what binds them?
source ci/device_run_lib.sh
step 330 ctas_ab.log python3 benchmarks/interleaved.py --rounds 3 --sustained 1.5 --match '^(GEMM 1|GEMM 2|dX|dH) default(, (124|116|100) CTAs)?$'
grep -E "^\| |^[0-9]+b" $OUT/ctas_ab.log | grep -v "^| variant\|^|---"
