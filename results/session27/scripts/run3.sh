#!/usr/bin/env bash
# Session 27 run 3: run 2 left the 30B layer open (dW1 -3.6 %, the layer +1.1 % with overlapping ranges): 8 more
# process pairs at 30B, base (7e3eee4) against cand, with dW2 (an unchanged kernel) as the control.
B=.device/cand/build/final
source ci/device_run_lib.sh
step 300 ab30.log env AB_ARGS="--shapes 30b" AB_TIMEOUT=90 bash ci/ab_libraries.sh .device/base/build/final \
  .device/cand/build/final '^layer fwd\+bwd default$|^dW[12] bf16 out$' 8 $OUT/ab30_rows.log
cat $OUT/ab30.log
echo "t=$SECONDS"
