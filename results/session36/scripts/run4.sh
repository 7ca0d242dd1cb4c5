#!/usr/bin/env bash
# Session 36 run 4: is dW1's epilogue cost beside its loads the consumers' pause or the stores' traffic?
# Library .device/s36diag2 = main + results/session36/debug_bit14.patch: debug bits 13 (stores into one L2-resident tile a CTA) and 14 (the whole epilogue:
# stmatrix, barriers, the deferred pass, but no TMA store issued).
# Prediction (written before the run): runs 2-3 found the epilogue costs dW1 ~9-10 % at 235B in either orientation,
# only 1-4 % of it the DRAM writes, and only 3-7 % without loads; so the pause alone is short and the stores' traffic
# (the TMA unit and L2 shared with the loads) is the larger part: "epilogue without its TMA stores" within ~3 % of
# "without the epilogue" for dW1 (235B ~5.5-5.7 ms against whole ~6.1); if instead it sits near the whole kernel,
# the pause is what the 2-stage ring does not absorb, and a deeper ring (not wider tiles) is the form to build.
# Run: `bash results/session36/scripts/run4.sh 2>&1 | tail -40`, carry [".device/s36diag2/build/final"].
export B=.device/s36diag2/build/final
source ci/device_run_lib.sh
M='^dW[12] bf16 out(, ours( without the epilogue stores|, stores into one L2-resident tile a CTA'
M+='|, epilogue without its TMA stores))?$'
interleaved_shapes "$M"
echo "t=$SECONDS"
