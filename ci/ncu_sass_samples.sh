#!/usr/bin/env bash
# ncu warp-stall samples per SASS instruction of one kernel in one MoE forward + backward on the GPU machine
# (benchmarks/profile_moe.py; the environment passes through, e.g. PK_SM90_VARIANT_DH=41), summarised by
# benchmarks/ncu_source_top.py. Used from the device-run scripts (results/session*/scripts/).
#   bash ci/ncu_sass_samples.sh KERNEL_REGEX SHAPE NAME
# Writes $OUT/ncu_NAME.log, $OUT/stalls_NAME.txt (printed: its first 40 lines), $OUT/roles_NAME.txt (the samples by warp
# role, benchmarks/ncu_roles.py) and $OUT/NAME.csv.gz.
set -u
regex=$1 shape=$2 name=$3
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
timeout 150 "$NCU" --profile-from-start off --clock-control none --kernel-name-base demangled --kernel-name regex:"$regex" \
  --launch-count 1 --section SourceCounters --section WarpStateStats --import-source no --export /tmp/$name --force-overwrite \
  python3 benchmarks/profile_moe.py --shape "$shape" > $OUT/ncu_$name.log 2>&1
echo "ncu $name rc=$?"
"$NCU" -i /tmp/$name.ncu-rep --page source --csv --print-source sass > /tmp/$name.csv 2>&1
python3 benchmarks/ncu_source_top.py /tmp/$name.csv 60 > $OUT/stalls_$name.txt 2>&1; head -40 $OUT/stalls_$name.txt | cut -c1-170
python3 benchmarks/ncu_roles.py /tmp/$name.csv > $OUT/roles_$name.txt 2>&1
gzip -c /tmp/$name.csv > $OUT/$name.csv.gz
