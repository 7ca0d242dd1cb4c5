#!/usr/bin/env bash
# Session 12, run 3 (library: the working tree with the opt-in dynamic unit order, one ring arrival a warp, .device/head/build/final): every GPU
# test (new: dynamic-order cases, bitwise against the static walk, few-CTA walks), sanitizers with the dynamic order
# (default kernels and GEMM 2 / dX ping-pong), then dynamic against static back to back at both shapes.
source ci/device_run_lib.sh
step 170 gpu_tests.log python3 -m pytest -q -m gpu tests/ -p no:cacheprovider; tail -1 $OUT/gpu_tests.log; grep -E "^FAILED" $OUT/gpu_tests.log | head
PK_SM90_UNIT_ORDER=dynamic PK_SM90_VARIANT_GEMM2=4 PK_SM90_VARIANT_DX=4 step 200 sanitize.log bash ci/gpu_sanitize.sh $OUT; cat $OUT/sanitize.log
mkdir -p $OUT/san2; PK_SM90_UNIT_ORDER=dynamic PK_SM90_MAX_CTAS=2 step 200 sanitize2.log bash ci/gpu_sanitize.sh $OUT/san2; cat $OUT/sanitize2.log
step 260 dyn_ab.log python3 benchmarks/interleaved.py --rounds 3 --sustained 2 --match '^(GEMM 1|GEMM 2|dX|dH) default(, dynamic order)?$'
grep -E "^\| |^[0-9]+b" $OUT/dyn_ab.log | grep -v "^| variant\|^|---"
step 120 layer_ab.log python3 benchmarks/interleaved.py --rounds 3 --sustained 3 --match '^layer fwd\+bwd( default|, dynamic order)$'
grep -E "^\| |^[0-9]+b" $OUT/layer_ab.log | grep -v "^| variant\|^|---"
cd $OUT && tar czf logs.tgz *.log san2/*.log && rm -f gpu_tests.log; echo "t=$SECONDS"
