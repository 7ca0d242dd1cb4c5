#!/usr/bin/env bash
# Session 25 run 1 = session 24's runs 11 and 10 (prepared there, never run). Run 11: branch next/consumer-no-lookup
# (consumers of the m-grouped epilogue-warps forms skip the tile lookup they never use; the k-grouped weight-gradient
# consumers load the next tile's group offsets during the current tile) built into .device/nolookup, main's tree in
# .device/head (/tmp/build.sh-style: cmake -G Ninja -DPK_ARCHS=90a). Every GPU test and both sanitizers on nolookup,
# then GEMM 1, dH, dW1, dW2 and the layer across processes. Run 10 (if time is left): GEMM 1 and dH with no loads and
# no stores (`ci/build_diag_libraries.sh mmaonly` of main's tree) back to back 1.5 s with the SM clock sampled.
export B=.device/nolookup/build/final
source ci/device_run_lib.sh
AB_N30=3 AB_N235=2 ab_shapes .device/head/build/final .device/nolookup/build/final '^(GEMM 1 default|dH default|dW[12] bf16 out|layer fwd\+bwd default)$'
gpu_checks gpu_tests.log -m gpu tests/
gzip $OUT/gpu_tests.log; rm -f $OUT/sanitize_*.log; echo "t=$SECONDS"
if [ $SECONDS -lt 470 ]; then
  step 100 mmaonly.log env PK_LIBRARY_PATH=.device/diag_mmaonly/build/final python3 benchmarks/interleaved.py --rounds 1 --sustained 1.5 --match '^(GEMM 1 default|dH default)$'
  grep -A6 "back to back" $OUT/mmaonly.log | grep -E "^\||^[0-9]+b"
fi
echo "t=$SECONDS"
