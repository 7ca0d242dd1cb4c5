#!/usr/bin/env bash
# Session 9, device run 2: why the 256-row tiles lost (run 1: GEMM 1 +30 %, GEMM 2 +28 %, dX +10 % at 235B).
# (a) timing-diagnostic libraries (ci/build_diag_libraries.sh: no MMAs / no loads) against the normal one,
# GEMM 1 and GEMM 2, default against 256-row, both shapes, 5 shuffled rounds each;
# (b) ncu sections of 235B GEMM 1, default and variant 6; (c) ncu stall samples of 235B GEMM 1 variant 6.
source ci/device_run_lib.sh
M="^(GEMM 1 default|GEMM 1 cooperative 256x192|GEMM 2 default|GEMM 2 cooperative 256x192, A by TMA)$"
for lib in head:.device/head/build/final nomma:.device/diag_nomma/build/final noload:.device/diag_noload/build/final; do
  PK_LIBRARY_PATH=${lib#*:} step 150 diag_${lib%%:*}.log python3 benchmarks/interleaved.py --rounds 5 --match "$M"
  echo "== ${lib%%:*}"; grep -E "^\| |^[0-9]+b" $OUT/diag_${lib%%:*}.log | grep -v "^| variant\|^|---"
done
mkdir -p $OUT/ncu_default $OUT/ncu_v6
OUT=$OUT/ncu_default NCU_KERNELS=1 T_NCU=150 step 170 ncu_default.log bash ci/profile_ncu.sh 235b; grep -E "Duration|Frequency|Throughput|hmma|Hit Rate|lts__t|No Eligible|top stalls" $OUT/ncu_default/ncu_235b_summary.txt
OUT=$OUT/ncu_v6 PK_SM90_VARIANT_GEMM1=6 NCU_KERNELS=1 T_NCU=150 step 170 ncu_v6.log bash ci/profile_ncu.sh 235b; grep -E "Duration|Frequency|Throughput|hmma|Hit Rate|lts__t|No Eligible|top stalls" $OUT/ncu_v6/ncu_235b_summary.txt
rm -f $OUT/ncu_*/*.ncu-rep
echo "t=$SECONDS"
