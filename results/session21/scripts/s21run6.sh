#!/usr/bin/env bash
# Session 21, run 6: candidate .device/s21e (dH variant 12 + 32: the epilogue-warpgroup form on 128 x 192 tiles with 4
# stages; every dH form's d(topk_weights) partials per 64 columns). Every GPU test (the new form as "dh192", a new
# I = 768 case), the sanitizers with DH=44, then dH 12 + 32 against the default 10 + 32 and the layer with each, in one
# process a shape.
B=.device/s21e/build/final BENCH=0 SAN_ENV="PK_SM90_VARIANT_DH=44" \
INTERLEAVED="--rounds 7 --seed 26 --match '^(dH default|dH epilogue warpgroup 128x192|layer fwd\+bwd default|layer fwd\+bwd, dH epilogue warpgroup 128x192)\$'" \
bash ci/candidate_run.sh
