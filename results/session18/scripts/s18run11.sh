#!/usr/bin/env bash
# Session 18, run 11: run 9's failing test case again with its seed (1885602693, from the log), three times with each
# library: is its dx calc_diff of 1.2e-5 the input's (deterministic, both libraries) or a race?
source ci/device_run_lib.sh
for L in base18 idx18; do
  step 120 seed_$L.log env PK_LIBRARY_PATH=.device/$L/build/final python3 results/session18/scripts/s18run10_check.py $OUT/$L.pt 1885602693,1885602693,1885602693
  cat $OUT/seed_$L.log
done
rm -f $OUT/*.pt
