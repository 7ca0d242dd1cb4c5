#!/usr/bin/env bash
# Session 18, run 4: GEMM 1 variant 7 (cooperative 256 x (64 + 64), each consumer warpgroup 128 rows, 4 stages):
# correctness (the layer tests under it; memcheck / racecheck at a small shape with tails, 4 CTAs), then against the
# default and cuBLAS's bmm back to back (1.5 s) and synchronised (5 shuffled rounds), alone and in the forward; ncu of
# it next to the default at 30B.
B=.device/s18c/build/final
source ci/device_run_lib.sh
SAN_ENV=PK_SM90_VARIANT_GEMM1=7 gpu_checks tests.log -x tests/test_sm90_moe.py -k "gemm1_256x128"
M='GEMM 1 default|GEMM 1 cooperative 256x128|layer fwd \(routing \+ forward\) default|layer fwd, GEMM 1 cooperative 256x128|ceiling GEMM 1: torch.bmm, balanced groups'
IL_TIMEOUT=240 interleaved_step kern.log --shapes 30b,235b --match "^($M)\$" --rounds 5 --reps 5 --sustained 1.5
step 150 ncu.log env ENTRIES='^(GEMM 1 default|GEMM 1 cooperative 256x128)$' NAME=gemm1_256 T_NCU=140 bash ci/profile_ncu.sh 30b
grep -E "^\[|Duration|tensor_op|lts__t_bytes|SM Freq|top stalls" $OUT/ncu_30b_gemm1_256_summary.txt
rm -f $OUT/*.ncu-rep $OUT/*_raw.csv
echo "t=$SECONDS"
