#!/usr/bin/env bash
# Session 17, run 7 (library: run 4's): where the mega_moe autograd step's CPU time goes (830 µs in run 5 against
# 253 for the direct calls and 247 for torch's autograd alone): its pieces timed inside the step.
B=.device/new/build/final
source ci/device_run_lib.sh
step 150 host_split.log python3 benchmarks/host_overhead.py --shape 30b --rounds 7 --calls 10 --split
grep "^|" $OUT/host_split.log | grep -v -- "---"
echo "t=$SECONDS"
