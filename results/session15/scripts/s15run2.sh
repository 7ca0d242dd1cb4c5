#!/usr/bin/env bash
# Session 15, run 2 (library: the working tree, .device/head/build/final): dH 12 (+ 32) = the epilogue warpgroup
# with 4-row batches (consumers 160 registers, epilogue warpgroup 112); the MoE GPU tests of the new forms, the
# sanitizers on 12, and the in-process A/B of dH and of the whole layer with dH 10 / 12 against the defaults
# (run 1's layer rows did not match its --match pattern).
source ci/device_run_lib.sh
step 200 gpu_tests.log python3 -m pytest -q -m gpu tests/test_sm90_moe.py -k "dh_wg or default" -p no:cacheprovider; tail -1 $OUT/gpu_tests.log; grep -E "^FAILED" $OUT/gpu_tests.log | head
mkdir -p $OUT/san44
PK_SM90_VARIANT_DH=44 PK_SMALL_SHAPE=300,4,4,256,256 PK_SM90_MAX_CTAS=2 step 200 sanitize44.log bash ci/gpu_sanitize.sh $OUT/san44
cat $OUT/sanitize44.log
step 400 dh_ab.log python3 benchmarks/interleaved.py --rounds 5 --sustained 2 --match '^(dH default|dH epilogue warpgroup, 4 gather.*|layer fwd\+bwd( default|, dH 4 gather.*))$'
grep -E "^\| |^[0-9]+b" $OUT/dh_ab.log | grep -v "^| variant\|^|---"
cd $OUT && tar czf logs.tgz *.log san*/*.log && rm -f gpu_tests.log san*/*.log; echo "t=$SECONDS"
