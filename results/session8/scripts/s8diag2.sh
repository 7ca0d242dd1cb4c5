#!/usr/bin/env bash
# Session 8, device run 7: is the operand stream of GEMM 1 / dX at 235B bound by the L2 -> SM transfer
# or by DRAM? Loads only (.device/diag_nomma), the default against the 2-CTA form that multicasts the
# weight tile (half its L2 -> SM bytes, the same DRAM bytes), one process, 7 shuffled rounds.
source ci/device_run_lib.sh
PK_LIBRARY_PATH=.device/diag_nomma/build/final step 200 diag2_nomma.log python3 benchmarks/interleaved.py --rounds 7 --match "^(GEMM 1 default|GEMM 1 staged 128x192, 2-CTA B multicast|dX default|dX staged, 2-CTA B multicast|dX staged, A by TMA)$"
grep -E "^\| |^[0-9]+b" $OUT/diag2_nomma.log | grep -v "^| variant\|^|---"
echo "t=$SECONDS"
