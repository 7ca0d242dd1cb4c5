#!/usr/bin/env bash
# Session 8, device run 3: dW1 at 256 x 128 tiles with the staged 19 pipeline (opt-in, debug bit 8) against
# the default 128 x 256; the m-grouped row skip now without dH. .device/head = this commit.
# (1) k-grouped, m-grouped and MoE GPU tests; (2) interleaved (shuffled, 7 rounds) of the dW1 forms.
source ci/device_run_lib.sh
step 200 gpu_tests.log python3 -m pytest -q -m gpu tests/test_sm90_kgrouped.py tests/test_sm90_gemm.py tests/test_sm90_moe.py -p no:cacheprovider; tail -1 $OUT/gpu_tests.log; grep -E "^FAILED|^E  " $OUT/gpu_tests.log | head -10
step 200 interleaved.log python3 benchmarks/interleaved.py --rounds 7 --match "^dW1 bf16 out$|^dW1 bf16 out, 256x128|^dW1 fp32 accumulate, (wgrad variant 16|256x128)"; grep -E "^\||^[0-9]+b" $OUT/interleaved.log
echo "t=$SECONDS"
