#!/usr/bin/env bash
# Session 36 run 3: dW1 in the caller's orientation (debug bit 10: dz as A by TMA, x gathered on the 256-wide side,
# tiles stored as they are) taken apart like run 2's swapped form, with bit 13 (stores into one L2-resident tile a CTA).
# Prediction (written before the run): if the transposed staging / out^T's store shape is what dW1 pays and dW2 does
# not, the caller's orientation's epilogue costs 1-3 % like dW2's (whole within 3 % of its no-epilogue form); if it is
# the output's L2 footprint (24 MiB an expert at 235B), it pays the same ~10 % as the swapped form, 40 % of it removed
# by L2-resident stores. Second part, only on an H200: session 34's open question (h200_run.sh).
# Run: `bash results/session36/scripts/run3.sh 2>&1 | tail -60`, carry [".device/s36diag/build/final", ".device/dx99/build/final"].
export B=.device/s36diag/build/final
source ci/device_run_lib.sh
M="^dW1 bf16 out(, caller's orientation.*|, ours (without the epilogue stores|MMAs and epilogue, no loads|loads only"
M+="|MMAs only)|, ours, stores into one L2-resident tile a CTA)?$"
interleaved_shapes "$M" 9 200 120
# Second part (never reached: the card was an H100): h200_run.sh, which checks the card itself
exec bash results/session36/scripts/h200_run.sh
