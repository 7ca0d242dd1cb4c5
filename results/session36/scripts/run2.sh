#!/usr/bin/env bash
# Session 36 run 2: what the weight gradients' bf16 stores cost without their DRAM traffic.
# Library .device/s36diag/build/final = main + debug bit 13 (kgrouped_wgrad.cuh: every TMA-stored bf16 tile of a CTA
# lands in one tile-sized region of group 0, L2-resident; the whole epilogue otherwise as is); .device/dx99 = main.
# Prediction (written before the run): at 235B dW1 whole ~6.03 ms, without the epilogue ~5.49, with L2-resident stores
# 5.55-5.75 (most of the stores' 0.55 ms is the 3.2 GB write stream to DRAM contending with the operand loads, the
# SM-side work of a pass being a few hundred cycles a tile); at 30B 1.57 / 1.46 / 1.47-1.51; dW2 the same shape of
# result. If L2-resident stores instead sit within ~2 % of the whole kernel, the cost is on the SM / L2 side (the
# staging buffer's wait for the bulk engine, the TMA unit shared with the dz loads) and a larger staging buffer
# (both passes at once) is the next form to build. Also: the default rows of the two libraries within noise (the
# new branch runs on one thread a pass), and the k-grouped GPU tests pass on the diagnostic library.
# Run: `bash results/session36/scripts/run2.sh 2>&1 | tail -70`, carry [".device/s36diag/build/final", ".device/dx99/build/final"].
export B=.device/s36diag/build/final
source ci/device_run_lib.sh
M='^dW[12] bf16 out(, ours (without the epilogue stores|MMAs and epilogue, no loads|loads only|MMAs only)'
M+='|, ours, stores into one L2-resident tile a CTA)?$'
interleaved_shapes "$M" 9 200 120
step 200 kg_tests.log python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_sm90_kgrouped.py
tail -1 $OUT/kg_tests.log; grep -E "^FAILED" $OUT/kg_tests.log | head
AB_N30=3 AB_N235=2 ab_merged .device/dx99/build/final .device/s36diag/build/final '^dW[12] bf16 out$'
echo "t=$SECONDS"
