#!/usr/bin/env bash
# Session 6, device run 9: the m-grouped k-block loop with precomputed wgmma descriptors (all configs;
# + 128 = the old per-k-block rebuild): every GPU test, then interleaved A/B of the default forms.
source ci/device_run_lib.sh
step 150 gpu_tests.log python3 -m pytest -q -m gpu tests/ -p no:cacheprovider; tail -1 $OUT/gpu_tests.log; grep -E "^FAILED|^E  " $OUT/gpu_tests.log | head -10
step 200 interleaved.log python3 benchmarks/interleaved.py --rounds 7 --match "^GEMM 1 staged 128x192, 4 stages|^GEMM 2 staged, A by TMA, wait0, TMA store|^dX staged, A by TMA, wait0, TMA store|^dH (2 )?epilogue warps 128x256, wait0, z L1 prefetch"; grep -E "^\||^[0-9]+b" $OUT/interleaved.log
