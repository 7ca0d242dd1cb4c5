#!/usr/bin/env bash
# Session 23, run 4: HEAD's build (.device/s23e, SASS-identical to s23d, run 3's candidate). ncu role split of the 30B dH
# (what bounds it now), then the benchmark table.
export B=.device/s23e/build/final
source ci/device_run_lib.sh
step 200 ncu_dh30.log bash ci/ncu_sass_samples.sh 'EpiSwiGLUBwdWarps' 30b dh30
grep -E "^- |^/tmp" $OUT/roles_dh30.txt | cut -c1-200
step 240 bench.log python3 benchmarks/bench_moe.py --reps 20 --json $OUT/bench.json; grep -v "^{" $OUT/bench.log | tail -16
echo "t=$SECONDS"
