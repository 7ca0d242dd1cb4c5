#!/usr/bin/env bash
# Session 14, run 1 (library: the working tree, .device/head/build/final; .device/base = the session start's
# library, SASS-identical to session 13's measured one): routing in one cooperative launch, narrow wgmmas
# on the N tail of GEMM 2 / dX. Every GPU test, sanitizers on the new paths, in-process A/B of the N tail,
# across-process A/B of the routing against the old library.
source ci/device_run_lib.sh
step 200 gpu_tests.log python3 -m pytest -q -m gpu tests/ -p no:cacheprovider; tail -1 $OUT/gpu_tests.log; grep -E "^FAILED" $OUT/gpu_tests.log | head
# H = 320: GEMM 2 / dX ping-pong 128 x 192 with a 128-column tail; H = 448 (64-column tail) with 2 CTAs walking many tiles
PK_SM90_VARIANT_GEMM2=4 PK_SM90_VARIANT_DX=4 PK_SMALL_SHAPE=300,4,4,320,256 step 200 sanitize.log bash ci/gpu_sanitize.sh $OUT; cat $OUT/sanitize.log
mkdir -p $OUT/san2; PK_SM90_VARIANT_GEMM2=4 PK_SM90_VARIANT_DX=4 PK_SMALL_SHAPE=300,4,4,448,256 PK_SM90_MAX_CTAS=2 step 200 sanitize2.log bash ci/gpu_sanitize.sh $OUT/san2; cat $OUT/sanitize2.log
step 240 tail_ab.log python3 benchmarks/interleaved.py --rounds 3 --sustained 2 --match '^((GEMM 2|dX) default(, full-width N tail)?|layer fwd\+bwd( default|, full-width N tail))$'
grep -E "^\| |^[0-9]+b" $OUT/tail_ab.log | grep -v "^| variant\|^|---"
step 240 routing_ab.log bash ci/ab_libraries.sh .device/base .device/head/build/final '^(routing|layer fwd \(routing \+ forward\) default)$' 4 $OUT/routing_ab_rows.log
cat $OUT/routing_ab.log | tail -8
cd $OUT && tar czf logs.tgz *.log san2/*.log && rm -f gpu_tests.log san2/*.log; echo "t=$SECONDS"
