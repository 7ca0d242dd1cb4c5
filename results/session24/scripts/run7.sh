#!/usr/bin/env bash
# Session 24 run 7: where the synchronised fwd+bwd call loses ~0.3 ms against its CUDA graph (run 6: 30B 7.27 vs
# 6.97 ms): the per-kernel timeline of the direct calls (kernels, idle gaps, wall) with HEAD's kernels.
export B=.device/head/build/final
source ci/device_run_lib.sh
step 200 timeline.log python3 benchmarks/timeline_moe.py --shapes 30b,235b --iters 5; cat $OUT/timeline.log | tail -40
echo "t=$SECONDS"
