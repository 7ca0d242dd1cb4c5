#!/usr/bin/env bash
# Session 5, device run 12: after the fp32 TMA path and the out-alignment check: every GPU test and the
# layer benchmark (the per-kernel timeline and sanitizers of the same bf16 defaults are run 10's).
source ci/device_run_lib.sh  # B, PYTHONPATH, PK_LIBRARY_PATH, GPU state, step()
step 110 gpu_tests.log python3 -m pytest -q -m gpu tests/ -p no:cacheprovider; tail -1 $OUT/gpu_tests.log; grep -E "^FAILED|^E  " $OUT/gpu_tests.log | head -10
step 70 bench.log python3 benchmarks/bench_moe.py --reps 10 --json $OUT/bench.json; grep -v "^{" $OUT/bench.log | tail -9
