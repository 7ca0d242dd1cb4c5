#!/usr/bin/env bash
# Session 29 run 3: branch next/dw2-coords (.device/cand: the k-grouped passes carry their TMA coordinates again, the
# untransposed kernels in session 26's PTX): every GPU test, memcheck / racecheck; dW2's SASS against session 26's
# library (.device/base); dW1 / dW2 / the layer against main's head (.device/head) across processes.
# Run: `bash results/session29/scripts/run3.sh 2>&1 | tail -60`,
# carry [".device/cand/build/final", ".device/head/build/final", ".device/base/build/final"].
B=.device/cand/build/final
source ci/device_run_lib.sh
sass_compare .device/base/build/final .device/cand/build/final
gpu_checks gpu_tests.log -m gpu tests
gzip $OUT/gpu_tests.log
AB_N30=2 AB_N235=2 ab_merged .device/head/build/final .device/cand/build/final '^layer fwd\+bwd default$|^dW[12] bf16 out$'
echo "t=$SECONDS"
