#!/usr/bin/env bash
# Session 7, device run 5: the weight gradients without the consumers' proxy fence (the new default):
# k-grouped and MoE GPU tests, then interleaved (rotated) A/B: with / without the fence, 2-CTA pairs on
# and off for dW2, pairs sharing dz for dW1, fp32 accumulate 16 vs 19.
source ci/device_run_lib.sh
step 150 tests.log python3 -m pytest -q -m gpu tests/test_sm90_kgrouped.py tests/test_sm90_moe.py -p no:cacheprovider; tail -1 $OUT/tests.log; grep -E "^FAILED|^E  " $OUT/tests.log | head -10
step 200 interleaved.log python3 benchmarks/interleaved.py --rounds 7 --match "^dW[12] (bf16 out|fp32 accumulate)(, ours with the proxy fence|, wgrad variant (staged_tma|split_bk128)|, no 2-CTA pairs.*|, 2-CTA pairs sharing dz.*)?$"; grep -E "^\||^[0-9]+b" $OUT/interleaved.log
