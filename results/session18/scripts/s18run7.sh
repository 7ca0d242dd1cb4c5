#!/usr/bin/env bash
# Session 18, run 7: the gathers' cp.async with the L2 prefetch-size hint (.L2::256B: an L2 miss fetches 256 bytes,
# the row's next k-block too), library built with -DPK_SM90_GATHER_L2_PREFETCH=256, against the same tree without it;
# every gather changes (GEMM 1, dH, the weight gradients, the plain products with gathered rows); GEMM 2 (TMA only)
# is the control. Two libraries cannot share a process: ci/ab_libraries.sh alternates them over processes.
source ci/device_run_lib.sh
M='^(GEMM 1 default|dH default|GEMM 2 default|dW1 bf16 out|dW2 bf16 out|GEMM 1 product, plain m-grouped, x gathered by cp.async, ping-pong 128x192)$'
step 330 ab30.log env AB_ARGS="--shapes 30b" AB_TIMEOUT=90 bash ci/ab_libraries.sh .device/base18/build/final .device/l2pf/build/final "$M" 3 $OUT/ab30_rows.log
cat $OUT/ab30.log
step 330 ab235.log env AB_ARGS="--shapes 235b" AB_TIMEOUT=120 bash ci/ab_libraries.sh .device/base18/build/final .device/l2pf/build/final "$M" 2 $OUT/ab235_rows.log
cat $OUT/ab235.log
echo "t=$SECONDS"
