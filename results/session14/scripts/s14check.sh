#!/usr/bin/env bash
# Session 14, run 4 (library: HEAD after the review's host-code change in routing.cu; every kernel SASS-identical to
# run 3's): every GPU test, and the routing call timed (interleaved, 3 rounds).
source ci/device_run_lib.sh
step 150 gpu_tests.log python3 -m pytest -q -m gpu tests/ -p no:cacheprovider; tail -1 $OUT/gpu_tests.log; grep -E "^FAILED" $OUT/gpu_tests.log | head
step 120 routing.log python3 benchmarks/interleaved.py --rounds 3 --match '^routing$'; grep -E "^\| routing|^[0-9]+b" $OUT/routing.log
cd $OUT && gzip gpu_tests.log; echo "t=$SECONDS"
