#!/usr/bin/env bash
# Session 21, run 4: candidate .device/s21d (wgrad variant 26: 21 with the k-steps in a runtime loop of one batch per
# pair, the group's last chunk multiplying only the pairs that hold rows; the defaults are HEAD's). Every GPU test (26
# in every k-grouped case), the sanitizers with 26, 26 against 21 in one process (whole, MMA-only, no-store bound).
B=.device/s21d/build/final BENCH=0 SAN_ENV="PK_SM90_VARIANT_WGRAD=26" \
INTERLEAVED="--rounds 9 --seed 24 --match '^dW[12] bf16 out(, wgrad variant split_bk128_(defer_tail|tail_steps)|, ours without the epilogue stores|, ours MMAs only( split_bk128_tail_steps \(26\))?)?\$'" \
bash ci/candidate_run.sh
