#!/usr/bin/env bash
# Session 7, device run 8 (data for the next session, no kernel change): ncu warp samples per SASS
# instruction of the 30B dH kernel (epilogue warps: what their time goes to after the instruction cut that
# bought 1 %), and speed-of-light / memory sections of the 235B GEMM 1 (the forward's largest kernel, whose
# time moved 5.4-6.4 ms between runs).
source ci/device_run_lib.sh
# (As run, the dH block was inline: the same commands are now ci/ncu_sass_samples.sh.)
bash ci/ncu_sass_samples.sh EpiSwiGLUBwdWarps 30b dh
echo "t=$SECONDS"
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
timeout 200 "$NCU" --profile-from-start off --clock-control none --kernel-name-base demangled --kernel-name regex:'GemmConfig<\(int\)192' \
  --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy \
  python3 benchmarks/profile_moe.py --shape 235b > $OUT/ncu_g1_235b.txt 2>&1
echo "ncu GEMM 1 235B rc=$? t=$SECONDS"; grep -E "Duration|Throughput|Hit Rate|SM Frequency|Busy|Bandwidth|Stall|Issued" $OUT/ncu_g1_235b.txt | head -40
