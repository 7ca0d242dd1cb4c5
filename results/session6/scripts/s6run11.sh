#!/usr/bin/env bash
# Session 6, device run 11: the gather's 32-bit row arithmetic (all k-grouped pipelines; 23 = 16 with the
# old 64-bit arithmetic): every GPU test, then interleaved A/B.
source ci/device_run_lib.sh
step 150 gpu_tests.log python3 -m pytest -q -m gpu tests/ -p no:cacheprovider; tail -1 $OUT/gpu_tests.log; grep -E "^FAILED|^E  " $OUT/gpu_tests.log | head -10
step 120 interleaved.log python3 benchmarks/interleaved.py --rounds 7 --match "bf16 out, wgrad variant staged_tma(_wide)?$|fp32 out, wgrad variant lean$|accumulate, wgrad variant split_bk128"; grep -E "^\||^[0-9]+b" $OUT/interleaved.log
