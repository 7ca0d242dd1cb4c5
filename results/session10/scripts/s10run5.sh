#!/usr/bin/env bash
# Session 10, device run 5: GEMM 1's forms against each other once more (run 4 had the register-store cooperative
# 128 x 256 ahead of the default at 235B): one process, 15 shuffled rounds, both shapes.
source ci/device_run_lib.sh
step 300 interleaved.log python3 benchmarks/interleaved.py --rounds 15 --match "^GEMM 1 (default|cooperative 128x256|staged 128x192, (4 stages|wait0|TMA store))$"
grep -E "^\| |^[0-9]+b" $OUT/interleaved.log | grep -v "^| variant\|^|---"
echo "t=$SECONDS"
