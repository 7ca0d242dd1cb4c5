#!/usr/bin/env bash
# Session 18, run 8 (diagnostic): ncu on GEMM 1's product through the ping-pong 128 x 192 kernel with x's rows gathered
# in the load against the same on the pre-gathered copy (A by cp.async both), and GEMM 1 itself, at 30B: where the
# gather's 8-12 % goes. Library: run 7's base (.device/base18).
B=.device/base18/build/final
source ci/device_run_lib.sh
E='^(GEMM 1 default|GEMM 1 product, plain m-grouped, (x gathered by cp.async|pre-gathered x, A by cp.async), ping-pong 128x192)$'
step 240 ncu.log env ENTRIES="$E" NAME=gather T_NCU=220 bash ci/profile_ncu.sh 30b
cat $OUT/ncu_30b_gather_summary.txt
rm -f $OUT/*.ncu-rep; gzip -f $OUT/*_raw.csv
echo "t=$SECONDS"
