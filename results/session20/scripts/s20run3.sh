#!/usr/bin/env bash
# Session 20, run 3: the k-grouped producer's identity side prefetched into L2 a chunk ahead (.device/s20c, TMA
# prefetch by thread 0 after a chunk's copies) against HEAD's library (.device/s19f), and the same with the rows'
# sources computed before the ring wait (.device/s20d, run 2's part (a) without its TMA reordering) against s20c.
# A/B over alternating processes (GEMM 2: control), then every GPU test, the sanitizers and the benchmark table on
# both candidates.
source ci/device_run_lib.sh
BASE=.device/s19f/build/final C=.device/s20c/build/final D=.device/s20d/build/final
M='^(GEMM 2 default|dW[12] (bf16|fp32) out|dW[12] fp32 accumulate, wgrad variant staged_tma)$'
for pair in "base:$BASE:c:$C" "c:$C:d:$D"; do
  IFS=: read -r n1 l1 n2 l2 <<< "$pair"
  ab_shapes $l1 $l2 "$M" _${n1}_${n2}
done
for n in c d; do
  L=$C; [ $n = d ] && L=$D
  export PK_LIBRARY_PATH=$L
  step 200 gpu_tests_$n.log python3 -m pytest -q -m gpu tests/ -p no:cacheprovider; tail -1 $OUT/gpu_tests_$n.log; grep -E "^FAILED" $OUT/gpu_tests_$n.log | head
  step 120 san_$n.log env PK_SMALL_SHAPE=500,4,2,256,768 PK_SM90_MAX_CTAS=4 bash ci/gpu_sanitize.sh $OUT; cat $OUT/san_$n.log
  step 200 bench_$n.log python3 benchmarks/bench_moe.py --reps 20 --json $OUT/bench_$n.json; grep -v "^{" $OUT/bench_$n.log | tail -16
  gzip $OUT/gpu_tests_$n.log
done
echo "t=$SECONDS"
