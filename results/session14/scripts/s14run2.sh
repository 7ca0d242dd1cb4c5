#!/usr/bin/env bash
# Session 14, run 2 (library: the working tree with PK_SM90_ALIGN, .device/head/build/final): every GPU test with
# the defaults, the m-grouped tests with the CTAs meeting every 3 tiles, then the A/B of the meeting interval.
source ci/device_run_lib.sh
step 200 gpu_tests.log python3 -m pytest -q -m gpu tests/ -p no:cacheprovider; tail -1 $OUT/gpu_tests.log; grep -E "^FAILED" $OUT/gpu_tests.log | head
PK_SM90_ALIGN=3 step 200 gpu_tests_align.log python3 -m pytest -q -m gpu tests/test_sm90_moe.py tests/test_sm90_gemm.py -p no:cacheprovider -k "fwd_bwd or contiguous or masked or bitwise"; tail -1 $OUT/gpu_tests_align.log; grep -E "^FAILED" $OUT/gpu_tests_align.log | head
step 400 align_ab.log python3 benchmarks/interleaved.py --rounds 3 --sustained 2 --match '^((GEMM 1|GEMM 2|dX|dH) default(, aligned every (2|8|32) tiles)?|layer fwd\+bwd( default|, aligned every (2|8) tiles))$'
grep -E "^\| |^[0-9]+b" $OUT/align_ab.log | grep -v "^| variant\|^|---"
cd $OUT && tar czf logs.tgz *.log && rm -f gpu_tests*.log; echo "t=$SECONDS"
