#!/usr/bin/env bash
# Session 8, device run 8: 2-CTA pairs multicasting the weight tile with wait_group 0 release (run 7: the
# loads alone run 27-35 % faster with the multicast at 235B, but the pair's lockstep ate it in the full
# kernels). New variants GEMM 1 4+16+32 (52), GEMM 2 / dX 3+16+32(+64) (51, 115). .device/head = this commit.
# (1) the m-grouped and MoE GPU tests; (2) interleaved (one process, 7 shuffled rounds) against the defaults.
source ci/device_run_lib.sh
step 200 gpu_tests.log python3 -m pytest -q -m gpu tests/test_sm90_gemm.py tests/test_sm90_moe.py -p no:cacheprovider; tail -1 $OUT/gpu_tests.log; grep -E "^FAILED|^E  " $OUT/gpu_tests.log | head -10
step 200 interleaved.log python3 benchmarks/interleaved.py --rounds 7 --match "^((GEMM 1|GEMM 2|dX) default|GEMM 1 staged 128x192, 2-CTA B multicast.*|.*2-CTA B multicast, wait0.*)$"
grep -E "^\| |^[0-9]+b" $OUT/interleaved.log | grep -v "^| variant\|^|---"
echo "t=$SECONDS"
