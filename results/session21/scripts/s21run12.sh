#!/usr/bin/env bash
# Session 21, run 12: candidate .device/s21j (branch next/share-a: GEMM 1 5 + 128, 2-CTA pairs sharing the gathered x
# tile; every other kernel SASS-identical to HEAD's). The MoE GPU tests with that variant (stop if they fail), the
# sanitizers with it, then it against the default 5 in one process, kernel and layer, both shapes.
export B=.device/s21j/build/final
source ci/device_run_lib.sh
step 120 share_tests.log python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_sm90_moe.py -k "share_a"
tail -2 $OUT/share_tests.log; grep -q " passed" $OUT/share_tests.log && ! grep -q "failed" $OUT/share_tests.log || { grep -E "^FAILED|Error" $OUT/share_tests.log | head; exit 1; }
step 150 san.log env PK_SMALL_SHAPE=500,4,2,256,768 PK_SM90_MAX_CTAS=4 PK_SM90_VARIANT_GEMM1=133 bash ci/gpu_sanitize.sh $OUT
cat $OUT/san.log; rm -f $OUT/sanitize_*.log
IL_TIMEOUT=150 interleaved_step interleaved.log --rounds 7 --seed 27 --match '^(GEMM 1 default|GEMM 1 epilogue warpgroup 128x192, 2-CTA pairs sharing x|layer fwd\+bwd default|layer fwd\+bwd, GEMM 1 2-CTA pairs sharing x)$'
echo "t=$SECONDS"
