#!/usr/bin/env bash
# Session 12, run 6 (library: the working tree with GEMM 1 variant 3, cooperative 192 x (96 + 96) with three consumer
# warpgroups, .device/head/build/final): every GPU test, sanitizers on it (I = 384), then it against the default and
# cooperative 128 x 256 back to back, and the layer with it.
source ci/device_run_lib.sh
step 170 gpu_tests.log python3 -m pytest -q -m gpu tests/ -p no:cacheprovider; tail -1 $OUT/gpu_tests.log; grep -E "^FAILED" $OUT/gpu_tests.log | head
PK_SM90_VARIANT_GEMM1=3 PK_SMALL_SHAPE=67,4,2,256,384 step 200 sanitize.log bash ci/gpu_sanitize.sh $OUT; cat $OUT/sanitize.log
step 200 g1_ab.log python3 benchmarks/interleaved.py --rounds 3 --sustained 2 --match '^GEMM 1 (default|cooperative 128x256|cooperative 192x192, 3 consumer warpgroups)$'
grep -E "^\| |^[0-9]+b" $OUT/g1_ab.log | grep -v "^| variant\|^|---"
step 120 layer_ab.log python3 benchmarks/interleaved.py --rounds 3 --sustained 3 --match '^layer fwd\+bwd( default|, GEMM 1 cooperative 192x192)$'
grep -E "^\| |^[0-9]+b" $OUT/layer_ab.log | grep -v "^| variant\|^|---"
cd $OUT && tar czf logs.tgz *.log && rm -f gpu_tests.log; echo "t=$SECONDS"
