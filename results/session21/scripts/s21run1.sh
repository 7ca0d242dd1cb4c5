#!/usr/bin/env bash
# Session 21, run 1: candidate .device/s21a (wgrad variant 22: the two consumer warpgroups staggered at a tile's end;
# the defaults are HEAD's). Every GPU test (22 in every k-grouped case), the sanitizers with 22 as the wgrad variant,
# 22 against 21 (the bf16 default, by its own id too) and the no-store bound in one process. No benchmark table.
B=.device/s21a/build/final BENCH=0 SAN_ENV="PK_SM90_VARIANT_WGRAD=22" \
INTERLEAVED="--rounds 9 --seed 21 --match '^dW[12] bf16 out(, wgrad variant split_bk128_(defer_tail|stagger)|, ours without the epilogue stores)?\$'" \
bash ci/candidate_run.sh
