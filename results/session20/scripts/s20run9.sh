#!/usr/bin/env bash
# Session 20, run 9: candidate .device/s20g, the k-grouped bf16 default 21 (19 with a tile's second column pass held in
# registers as packed bf16 and written out while the next tile's first chunk of wgmma runs; setmaxnreg 72 / 216 / 216).
# Every GPU test (variant 21 in every k-grouped case), the sanitizers, 21 against 19 in one process (and the form
# without epilogue stores, the bound), then the benchmark table. (Ran as the steps of ci/candidate_run.sh, the
# interleaved log then named wgrad.log.)
B=.device/s20g/build/final \
INTERLEAVED="--rounds 9 --seed 9 --match '^dW[12] bf16 out(, wgrad variant split_bk128(_defer_tail)?|, ours without the epilogue stores)?\$'" \
bash ci/candidate_run.sh
