#!/usr/bin/env bash
# Session 6, device run 5: ncu warp samples per SASS instruction of the 30B dW1 weight gradient (bf16
# out, default pipeline 16) in its MMA-only form (debug 65) and in full, to find what makes the MMA-only
# form take ~1400 cycles a 64-row chunk when the same wgmma loop with a 3-stage mbarrier ring takes
# ~1070 (benchmarks/wgmma_majors.cu, run 4).
source ci/device_run_lib.sh
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
for dbg in 65 0; do
  timeout 150 "$NCU" --profile-from-start off --clock-control none --section SpeedOfLight --section WarpStateStats \
    --section SourceCounters --import-source no --export /tmp/kg_$dbg --force-overwrite \
    python3 benchmarks/profile_kgrouped.py --which dW1 --debug $dbg > $OUT/ncu_$dbg.log 2>&1
  echo "ncu debug=$dbg rc=$? t=$SECONDS"
  "$NCU" -i /tmp/kg_$dbg.ncu-rep --page source --csv --print-source sass > /tmp/kg_$dbg.csv 2>&1
  python3 benchmarks/ncu_source_top.py /tmp/kg_$dbg.csv 45 > $OUT/stalls_$dbg.txt 2>&1
  head -50 $OUT/stalls_$dbg.txt | cut -c1-190
  gzip -c /tmp/kg_$dbg.csv > $OUT/kg_$dbg.csv.gz
done
