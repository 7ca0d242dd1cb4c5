#!/usr/bin/env bash
# Session 5, device run 5: ncu per-instruction warp samples (SourceCounters) of the 30B dH (3 epilogue
# warps, wait_group 0) and both weight-gradient kernels, and the 235B weight gradients. The
# source listings come back as one tarball (the tool returns at most 8 files).
source ci/device_run_lib.sh  # B, PYTHONPATH, PK_LIBRARY_PATH, GPU state, step()
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
mkdir -p /tmp/src
for shape in 30b 235b; do
  re='EpiSwiGLUBwdWarps|kgrouped_wgrad'; n=3
  timeout 150 "$NCU" --profile-from-start off --clock-control none --kernel-name-base demangled \
    --kernel-name regex:"$re" --launch-count $n \
    --section SpeedOfLight --section WarpStateStats --section SourceCounters --import-source no \
    --export "/tmp/src/src_$shape" --force-overwrite python3 benchmarks/profile_moe.py --shape $shape > "/tmp/src/ncu_$shape.log" 2>&1
  echo "ncu $shape rc=$? t=$SECONDS"
  for id in $(seq 0 $((n-1))); do
    "$NCU" -i "/tmp/src/src_$shape.ncu-rep" --page source --csv --print-source sass --launch-skip $id --launch-count 1 > "/tmp/src/src_${shape}_$id.csv" 2>&1
    python3 benchmarks/ncu_source_top.py "/tmp/src/src_${shape}_$id.csv" 60 > "$OUT/stalls_${shape}_$id.txt" 2>&1
    head -3 "$OUT/stalls_${shape}_$id.txt" | cut -c1-200
  done
  rm -f /tmp/src/src_$shape.ncu-rep
done
tar -czf $OUT/src_csv.tgz -C /tmp/src .
ls -la $OUT
