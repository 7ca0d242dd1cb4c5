#!/usr/bin/env bash
# Session 23, run 3: s23d (run 1's dH epilogue plus a branch-free copy of the row loop for full tiles and a 4-shuffle
# d(topk) reduction). Every GPU test and both sanitizers on s23d; A/B across processes of dH against s23c (run 1's
# candidate) at 30B, then dH and the layer against HEAD's library before the session (s23base) at both shapes.
export B=.device/s23d/build/final
source ci/device_run_lib.sh
gpu_checks gpu_tests.log -m gpu tests/
step 200 ab30_cd.log env AB_ARGS="--shapes 30b" AB_TIMEOUT=90 bash ci/ab_libraries.sh .device/s23c/build/final $B '^dH default$' 3 $OUT/ab30_cd_rows.log; cat $OUT/ab30_cd.log
ab_shapes .device/s23base/build/final $B '^(dH default|layer fwd\+bwd default)$'
gzip $OUT/gpu_tests.log; rm -f $OUT/sanitize_*.log; echo "t=$SECONDS"
