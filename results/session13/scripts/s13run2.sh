#!/usr/bin/env bash
# Session 13, run 2 (library: the working tree with PK_SM90_K_STAGGER, .device/head/build/final): every GPU test
# (every m-grouped kernel's producer changed), sanitizers with the stagger on (I = 768; racecheck also with 2
# CTAs), then each m-grouped kernel's default with stagger 0 / 1 / 2 / 4 back to back, and the layer.
source ci/device_run_lib.sh
step 200 gpu_tests.log python3 -m pytest -q -m gpu tests/ -p no:cacheprovider; tail -1 $OUT/gpu_tests.log; grep -E "^FAILED" $OUT/gpu_tests.log | head
PK_SM90_K_STAGGER=2 PK_SMALL_SHAPE=67,4,2,256,768 step 200 sanitize.log bash ci/gpu_sanitize.sh $OUT; cat $OUT/sanitize.log
mkdir -p $OUT/san2; PK_SM90_K_STAGGER=2 PK_SMALL_SHAPE=300,4,4,256,768 PK_SM90_MAX_CTAS=2 SAN_TOOLS=racecheck step 200 sanitize2.log bash ci/gpu_sanitize.sh $OUT/san2; cat $OUT/sanitize2.log
step 240 kern_ab.log python3 benchmarks/interleaved.py --rounds 3 --sustained 1.5 --match '^(GEMM 1|GEMM 2|dX|dH) default(, k stagger [124])?$'
grep -E "^\| |^[0-9]+b" $OUT/kern_ab.log | grep -v "^| variant\|^|---"
step 150 layer_ab.log python3 benchmarks/interleaved.py --rounds 3 --sustained 3 --match '^layer fwd\+bwd( default|, k stagger [24])$'
grep -E "^\| |^[0-9]+b" $OUT/layer_ab.log | grep -v "^| variant\|^|---"
cd $OUT && tar czf logs.tgz *.log san2/*.log && rm -f gpu_tests.log san2/*.log; echo "t=$SECONDS"
