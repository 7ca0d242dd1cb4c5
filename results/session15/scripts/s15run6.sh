#!/usr/bin/env bash
# Session 15, run 6 (library: the working tree = d41cab4's + dH 10 without + 32): run 5's samples put the new dH's
# consumers on their own MMAs (WARPGROUP.DEPBAR, wait_group 0) a fifth of all samples; with four gathering warps the
# wait_group 1 release (one k-block of MMAs in flight) may win again. MoE GPU tests of the form, sanitizers, A/B.
source ci/device_run_lib.sh
step 200 gpu_tests.log python3 -m pytest -q -m gpu tests/test_sm90_moe.py -k "dh_wait1 or default" -p no:cacheprovider; tail -1 $OUT/gpu_tests.log; grep -E "^FAILED" $OUT/gpu_tests.log | head
mkdir -p $OUT/san10
PK_SM90_VARIANT_DH=10 PK_SMALL_SHAPE=300,4,4,256,256 PK_SM90_MAX_CTAS=2 step 200 sanitize10.log bash ci/gpu_sanitize.sh $OUT/san10
cat $OUT/sanitize10.log
step 300 ab.log python3 benchmarks/interleaved.py --rounds 7 --sustained 2 --match '^(dH default|dH epilogue warpgroup, wait_group 1|layer fwd\+bwd( default|, dH epilogue warpgroup, wait_group 1))$'
grep -E "^\| |^[0-9]+b" $OUT/ab.log | grep -v "^| variant\|^|---"
cd $OUT && tar czf logs.tgz *.log san*/*.log && rm -f gpu_tests.log san*/*.log; echo "t=$SECONDS"
