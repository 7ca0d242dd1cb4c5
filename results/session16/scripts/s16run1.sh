#!/usr/bin/env bash
# Session 16, run 1 (library: session 15's 91 kernels, SASS-identical, + k-grouped 17 / 18 re-added + GEMM 1 5 + 32).
# Tests of the new forms (k-grouped: every variant; MoE: the new forms and the defaults, incl. bitwise against the
# default), sanitizers on the new forms (I = 384, 2 CTAs), in-process A/B: the weight gradients (17 / 18 against the
# default 19, with loads-only / MMAs-only diagnostics), GEMM 1, the forward and the layer.
source ci/device_run_lib.sh
step 240 gpu_tests.log python3 -m pytest -q -m gpu tests/test_sm90_kgrouped.py tests/test_sm90_moe.py -k "kgrouped or gemm1_epiwg_wait0 or wgrad_split or default" -p no:cacheprovider; tail -1 $OUT/gpu_tests.log; grep -E "^FAILED" $OUT/gpu_tests.log | head
mkdir -p $OUT/san18 $OUT/san17
PK_SM90_VARIANT_GEMM1=37 PK_SM90_VARIANT_WGRAD=18 PK_SMALL_SHAPE=300,4,4,256,384 PK_SM90_MAX_CTAS=2 step 200 sanitize18.log bash ci/gpu_sanitize.sh $OUT/san18
cat $OUT/sanitize18.log
PK_SM90_VARIANT_WGRAD=17 PK_SMALL_SHAPE=300,4,4,256,384 PK_SM90_MAX_CTAS=2 step 200 sanitize17.log bash ci/gpu_sanitize.sh $OUT/san17
cat $OUT/sanitize17.log
step 330 ab.log python3 benchmarks/interleaved.py --rounds 7 --sustained 2 --match '^(dW[12] bf16 out(, wgrad variant split_(wait0|wait1|bk128)|, ours (loads|MMAs) only( split_wait0 \(18\))?)?|GEMM 1 default|GEMM 1 epilogue warpgroup 128x192, wait0|layer fwd \(routing \+ forward\) default|layer fwd, GEMM 1 epilogue warpgroup, wait0|layer fwd\+bwd( default|, GEMM 1 epilogue warpgroup, wait0|, wgrad variant 1[78]))$'
grep -E "^\| |^[0-9]+b" $OUT/ab.log | grep -v "^| variant\|^|---"
cd $OUT && tar czf logs.tgz *.log san*/*.log && rm -f gpu_tests.log san*/*.log; echo "t=$SECONDS"
