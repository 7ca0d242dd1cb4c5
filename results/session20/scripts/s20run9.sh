#!/usr/bin/env bash
# Session 20, run 9: candidate .device/s20g, the k-grouped bf16 default 21 (19 with a tile's second column pass held in
# registers as packed bf16 and written out while the next tile's first chunk of wgmma runs; setmaxnreg 72 / 216 / 216).
# Every GPU test (variant 21 in every k-grouped case), the sanitizers, 21 against 19 in one process (and the form
# without epilogue stores, the bound), then the benchmark table.
B=.device/s20g/build/final
source ci/device_run_lib.sh
step 200 gpu_tests.log python3 -m pytest -q -m gpu tests/ -p no:cacheprovider; tail -1 $OUT/gpu_tests.log; grep -E "^FAILED" $OUT/gpu_tests.log | head
step 120 san.log env PK_SMALL_SHAPE=500,4,2,256,768 PK_SM90_MAX_CTAS=4 bash ci/gpu_sanitize.sh $OUT; cat $OUT/san.log
interleaved_step wgrad.log --rounds 9 --seed 9 \
  --match '^dW[12] bf16 out(, wgrad variant split_bk128(_defer_tail)?|, ours without the epilogue stores)?$'
step 200 bench.log python3 benchmarks/bench_moe.py --reps 20 --json $OUT/bench.json; grep -v "^{" $OUT/bench.log | tail -16
gzip $OUT/gpu_tests.log; rm -f $OUT/sanitize_*.log; echo "t=$SECONDS"
