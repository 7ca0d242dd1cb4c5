#!/usr/bin/env bash
# Session 7, device run 8 (data for the next session, no kernel change): ncu warp samples per SASS
# instruction of the 30B dH kernel (epilogue warps: what their time goes to after the instruction cut that
# bought 1 %), and speed-of-light / memory sections of the 235B GEMM 1 (the forward's largest kernel, whose
# time moved 5.4-6.4 ms between runs).
source ci/device_run_lib.sh
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
timeout 150 "$NCU" --profile-from-start off --clock-control none --kernel-name-base demangled --kernel-name regex:'EpiSwiGLUBwdWarps' \
  --launch-count 1 --section SourceCounters --section WarpStateStats --import-source no --export /tmp/dh --force-overwrite \
  python3 benchmarks/profile_moe.py --shape 30b > $OUT/ncu_dh.log 2>&1
echo "ncu dH rc=$? t=$SECONDS"
"$NCU" -i /tmp/dh.ncu-rep --page source --csv --print-source sass > /tmp/dh.csv 2>&1
python3 benchmarks/ncu_source_top.py /tmp/dh.csv 50 > $OUT/stalls_dh.txt 2>&1; head -30 $OUT/stalls_dh.txt | cut -c1-170
gzip -c /tmp/dh.csv > $OUT/dh.csv.gz
timeout 200 "$NCU" --profile-from-start off --clock-control none --kernel-name-base demangled --kernel-name regex:'GemmConfig<\(int\)192' \
  --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy \
  python3 benchmarks/profile_moe.py --shape 235b > $OUT/ncu_g1_235b.txt 2>&1
echo "ncu GEMM 1 235B rc=$? t=$SECONDS"; grep -E "Duration|Throughput|Hit Rate|SM Frequency|Busy|Bandwidth|Stall|Issued" $OUT/ncu_g1_235b.txt | head -40
