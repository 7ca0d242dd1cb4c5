#!/usr/bin/env bash
# Session 8, device run 10: ncu warp samples per SASS instruction of the 30B dH kernel in its 2 + 2 form
# (9 + 32: two gathering, two epilogue warps), where run 9 put the epilogue warps on the critical path
# (1.139 ms against 0.939 for 1 + 3): what the epilogue warps wait on.
source ci/device_run_lib.sh
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
PK_SM90_VARIANT_DH=41 timeout 150 "$NCU" --profile-from-start off --clock-control none --kernel-name-base demangled --kernel-name regex:'EpiSwiGLUBwdWarps' \
  --launch-count 1 --section SourceCounters --section WarpStateStats --import-source no --export /tmp/dh --force-overwrite \
  python3 benchmarks/profile_moe.py --shape 30b > $OUT/ncu_dh22.log 2>&1
echo "ncu dH rc=$? t=$SECONDS"
"$NCU" -i /tmp/dh.ncu-rep --page source --csv --print-source sass > /tmp/dh.csv 2>&1
python3 benchmarks/ncu_source_top.py /tmp/dh.csv 60 > $OUT/stalls_dh22.txt 2>&1; head -40 $OUT/stalls_dh22.txt | cut -c1-170
gzip -c /tmp/dh.csv > $OUT/dh22.csv.gz
echo "t=$SECONDS"
