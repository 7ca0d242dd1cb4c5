#!/usr/bin/env bash
# Session 15, run 1 (library: the working tree, .device/head/build/final): dH with a fourth warpgroup of epilogue
# warps (variants 10 / 11, + 32). Every GPU test, sanitizers on the new forms (2 CTAs walking many tiles), then
# the in-process A/B against the defaults (8 / 9 + 32), synchronised and back to back, at both shapes.
source ci/device_run_lib.sh
step 200 gpu_tests.log python3 -m pytest -q -m gpu tests/ -p no:cacheprovider; tail -1 $OUT/gpu_tests.log; grep -E "^FAILED" $OUT/gpu_tests.log | head
for v in 42 43; do
  mkdir -p $OUT/san$v
  PK_SM90_VARIANT_DH=$v PK_SMALL_SHAPE=300,4,4,256,256 PK_SM90_MAX_CTAS=2 step 200 sanitize$v.log bash ci/gpu_sanitize.sh $OUT/san$v
  cat $OUT/sanitize$v.log
done
step 300 dh_ab.log python3 benchmarks/interleaved.py --rounds 5 --sustained 2 --match '^(dH default|dH epilogue warpgroup.*|dH (2 )?epilogue warps 128x256, wait0, z L1 prefetch|layer fwd\+bwd (default|, dH .*))$'
grep -E "^\| |^[0-9]+b" $OUT/dh_ab.log | grep -v "^| variant\|^|---"
cd $OUT && tar czf logs.tgz *.log san*/*.log && rm -f gpu_tests.log san*/*.log; echo "t=$SECONDS"
