#!/usr/bin/env bash
# Session 6, device run 10 (data for the next session, no kernel change): ncu warp samples per SASS
# instruction of the full 30B dW1 weight gradient (after the descriptor change) and of the 30B GEMM 1,
# to split each kernel's samples between its gathering producers and its consumers.
source ci/device_run_lib.sh
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
timeout 120 "$NCU" --profile-from-start off --clock-control none --section SourceCounters --section WarpStateStats \
  --import-source no --export /tmp/kg_full --force-overwrite python3 benchmarks/profile_kgrouped.py --which dW1 > $OUT/ncu_kg.log 2>&1
echo "ncu dW1 rc=$? t=$SECONDS"
timeout 150 "$NCU" --profile-from-start off --clock-control none --kernel-name-base demangled --kernel-name regex:'GemmConfig<\(int\)192' \
  --launch-count 1 --section SourceCounters --section WarpStateStats --import-source no --export /tmp/g1 --force-overwrite \
  python3 benchmarks/profile_moe.py --shape 30b > $OUT/ncu_g1.log 2>&1
echo "ncu GEMM 1 rc=$? t=$SECONDS"
for r in kg_full g1; do
  "$NCU" -i /tmp/$r.ncu-rep --page source --csv --print-source sass > /tmp/$r.csv 2>&1
  python3 benchmarks/ncu_source_top.py /tmp/$r.csv 40 > $OUT/stalls_$r.txt 2>&1; head -25 $OUT/stalls_$r.txt | cut -c1-170
  gzip -c /tmp/$r.csv > $OUT/$r.csv.gz
done
