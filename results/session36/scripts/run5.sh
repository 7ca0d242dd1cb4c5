#!/usr/bin/env bash
# Session 36 run 5: run 4 found dW1's epilogue cost is its TMA stores' traffic (the pause alone ~1 %, DRAM or L2
# target alike). Every tile has the same length, so all CTAs store at once; debug bit 3 offsets odd CTAs by ~half a
# tile (measured without effect in session 2, on the pipeline of then). Prediction: if the cost is the burst, the
# offset form is 2-5 % faster than the default at 235B; if it is the stores' total traffic through the TMA unit, even.
# Run: `bash results/session36/scripts/run5.sh 2>&1 | tail -30`, carry [".device/s36diag2/build/final"].
export B=.device/s36diag2/build/final
source ci/device_run_lib.sh
M='^dW[12] bf16 out(, ours( without the epilogue stores|, odd CTAs offset by half a tile))?$'
interleaved_shapes "$M"
echo "t=$SECONDS"
