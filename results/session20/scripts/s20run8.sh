#!/usr/bin/env bash
# Session 20, run 8: candidate .device/s20e, the k-grouped bf16 default 20 (19 with a tile's second column pass stored
# straight from the registers instead of after the TMA engine has read the first pass out of the staging buffer).
# Every GPU test (variant 20 in every k-grouped case), the sanitizers, 20 against 19 in one process (and the form
# without epilogue stores, the bound), then the benchmark table. (Ran as the steps of ci/candidate_run.sh, the
# interleaved log then named wgrad.log.)
B=.device/s20e/build/final \
INTERLEAVED="--rounds 9 --seed 8 --match '^dW[12] bf16 out(, wgrad variant split_bk128(_direct_tail)?|, ours without the epilogue stores)?\$'" \
bash ci/candidate_run.sh
