#!/usr/bin/env bash
# Session 18, run 3 (diagnostic): Nsight Compute on our GEMM 1, dH and dW1 next to cuBLAS's torch.bmm on the same
# products (pre-gathered rows, 128 equal groups), one call each at 30B (GEMM 1 also at 235B), plus GEMM 1's 2-CTA form
# (its launch statistics give the cluster count). Library: run 2's (.device/s18b).
B=.device/s18b/build/final
source ci/device_run_lib.sh
E30='^(GEMM 1 default|GEMM 1 epilogue warpgroup 128x192, 2-CTA B multicast|dH default|dW1 bf16 out|ceiling (GEMM 1|dH|dW1): torch.bmm, balanced groups)$'
step 280 ncu30.log env ENTRIES="$E30" NAME=vs_cublas T_NCU=260 bash ci/profile_ncu.sh 30b
cat $OUT/ncu30.log
E235='^(GEMM 1 default|ceiling GEMM 1: torch.bmm, balanced groups)$'
step 200 ncu235.log env ENTRIES="$E235" NAME=vs_cublas T_NCU=180 bash ci/profile_ncu.sh 235b
cat $OUT/ncu235.log
rm -f $OUT/*.ncu-rep.gz; gzip -f $OUT/*_raw.csv $OUT/*.ncu-rep 2>/dev/null
cat $OUT/ncu_30b_vs_cublas_summary.txt $OUT/ncu_235b_vs_cublas_summary.txt
echo "t=$SECONDS"
