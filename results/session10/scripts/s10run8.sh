#!/usr/bin/env bash
# Session 10, device run 8 (after the final run's two calls): the whole layer, new defaults against session 10's
# starting ones, interleaved in one process (15 shuffled rounds, both shapes; the final run's layer benches ran
# one after the other while the card's dense rate drifted 751 -> 776 TFLOP/s); then ncu warp-stall samples of
# the 30B GEMM 1 default (staged 128 x 192 + TMA store) for where its consumers and producer wait.
source ci/device_run_lib.sh
step 200 layer_ab.log python3 benchmarks/interleaved.py --rounds 15 --match "^layer"
grep -E "^\| |^[0-9]+b" $OUT/layer_ab.log | grep -v "^| variant\|^|---"
bash ci/ncu_sass_samples.sh "EpiSwiGLUFwdStaged<" 30b g1_default_30b
echo "t=$SECONDS"
