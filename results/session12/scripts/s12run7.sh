#!/usr/bin/env bash
# Session 12, run 7 (library: the working tree with dH 10 + 32, the consumers gathering rows 64..127 of dy,
# .device/head/build/final): every GPU test, sanitizers on it (I = 256; also with 2 CTAs), then it against the
# default and 8 + 32 back to back, and the layer with it.
source ci/device_run_lib.sh
step 170 gpu_tests.log python3 -m pytest -q -m gpu tests/ -p no:cacheprovider; tail -1 $OUT/gpu_tests.log; grep -E "^FAILED" $OUT/gpu_tests.log | head
PK_SM90_VARIANT_DH=42 PK_SMALL_SHAPE=67,4,2,256,256 step 200 sanitize.log bash ci/gpu_sanitize.sh $OUT; cat $OUT/sanitize.log
mkdir -p $OUT/san2; PK_SM90_VARIANT_DH=42 PK_SMALL_SHAPE=300,4,4,256,256 PK_SM90_MAX_CTAS=2 SAN_TOOLS=racecheck step 200 sanitize2.log bash ci/gpu_sanitize.sh $OUT/san2; cat $OUT/sanitize2.log
step 200 dh_ab.log python3 benchmarks/interleaved.py --rounds 3 --sustained 2 --match '^dH (default|epilogue warps 128x256, wait0, z L1 prefetch(, consumers gather half)?)$'
grep -E "^\| |^[0-9]+b" $OUT/dh_ab.log | grep -v "^| variant\|^|---"
step 120 layer_ab.log python3 benchmarks/interleaved.py --rounds 3 --sustained 3 --match '^layer fwd\+bwd( default|, dH consumers gather half)$'
grep -E "^\| |^[0-9]+b" $OUT/layer_ab.log | grep -v "^| variant\|^|---"
cd $OUT && tar czf logs.tgz *.log san2/*.log && rm -f gpu_tests.log san2/*.log; echo "t=$SECONDS"
