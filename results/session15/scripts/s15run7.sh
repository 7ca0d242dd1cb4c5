#!/usr/bin/env bash
# Session 15, run 7 (library: the working tree = d41cab4's kernels + GEMM 1 variant 5: its SwiGLU and z / h stores
# in a fourth warpgroup of epilogue warps). MoE GPU tests of the form (incl. bitwise against the default),
# sanitizers (I = 384: 128 x (96 + 96) tiles, 2 CTAs), in-process A/B of GEMM 1, the forward and the layer.
source ci/device_run_lib.sh
step 200 gpu_tests.log python3 -m pytest -q -m gpu tests/test_sm90_moe.py -k "gemm1_epiwg or default" -p no:cacheprovider; tail -1 $OUT/gpu_tests.log; grep -E "^FAILED" $OUT/gpu_tests.log | head
mkdir -p $OUT/san5
PK_SM90_VARIANT_GEMM1=5 PK_SMALL_SHAPE=300,4,4,256,384 PK_SM90_MAX_CTAS=2 step 200 sanitize5.log bash ci/gpu_sanitize.sh $OUT/san5
cat $OUT/sanitize5.log
step 300 ab.log python3 benchmarks/interleaved.py --rounds 7 --sustained 2 --match '^(GEMM 1 default|GEMM 1 epilogue warpgroup 128x192|layer fwd \(routing \+ forward\) default|layer fwd, GEMM 1 epilogue warpgroup|layer fwd\+bwd( default|, GEMM 1 epilogue warpgroup))$'
grep -E "^\| |^[0-9]+b" $OUT/ab.log | grep -v "^| variant\|^|---"
cd $OUT && tar czf logs.tgz *.log san*/*.log && rm -f gpu_tests.log san*/*.log; echo "t=$SECONDS"
