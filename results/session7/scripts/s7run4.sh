#!/usr/bin/env bash
# Session 7, device run 4: the m-grouped defaults (GEMM 1, GEMM 2, dX, dH) with and without the consumers'
# proxy fence (PK_SM90_PROXY_FENCE=0), the weight gradients with and without it (debug bit 5), interleaved
# with rotated rounds; then the m-grouped and MoE GPU tests without the fence.
source ci/device_run_lib.sh
step 200 interleaved.log python3 benchmarks/interleaved.py --rounds 7 --match "default(, no proxy fence)?$|^dW[12] bf16 out(, ours without the proxy fence)?$"; grep -E "^\||^[0-9]+b" $OUT/interleaved.log
export PK_SM90_PROXY_FENCE=0
step 150 tests_nofence.log python3 -m pytest -q -m gpu tests/test_sm90_moe.py tests/test_sm90_gemm.py tests/test_moe.py -p no:cacheprovider; tail -1 $OUT/tests_nofence.log; grep -E "^FAILED|^E  " $OUT/tests_nofence.log | head -10
