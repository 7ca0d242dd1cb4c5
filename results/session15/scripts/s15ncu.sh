#!/usr/bin/env bash
# Session 15, run 4 (library: d41cab4, the final run's): Nsight Compute on one 30B forward + backward (our GEMM
# kernels: GEMM 1, GEMM 2, dH, dX, dW2, dW1), for the per-kernel tensor-pipe activity, DRAM / L2 traffic and warp
# stalls with the new dH default, compared with session 6's run 2 profile.
source ci/device_run_lib.sh
T_NCU=300 step 330 ncu.log bash ci/profile_ncu.sh 30b
grep -E "^\[|Duration|SM Frequency|hmma|Compute \(SM\)|L2 Cache Throughput|DRAM Throughput|No Eligible|top stalls" $OUT/ncu_30b_summary.txt | cut -c1-160
cd $OUT && rm -f *.ncu-rep && gzip -f *_raw.csv *.csv 2>/dev/null; ls; echo "t=$SECONDS"
