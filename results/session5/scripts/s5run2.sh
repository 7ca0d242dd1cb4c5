#!/usr/bin/env bash
# Session 5, device run 2: where the warps of GEMM 1 (30B), dH (30B) and the weight gradients (30B)
# stall, instruction by instruction (ncu SourceCounters: warp-state samples per SASS instruction).
source ci/device_run_lib.sh  # B, PYTHONPATH, PK_LIBRARY_PATH, GPU state, step()
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
"$NCU" --version | tail -1
for shape in 30b 235b; do
timeout 200 "$NCU" --profile-from-start off --clock-control none --kernel-name-base demangled \
  --kernel-name regex:'EpiSwiGLUFwdStaged|EpiSwiGLUBwdWarps|kgrouped_wgrad' --launch-count 4 \
  --section SpeedOfLight --section WarpStateStats --section SourceCounters --import-source no \
  --export "$OUT/src_$shape" --force-overwrite python3 benchmarks/profile_moe.py --shape $shape > "$OUT/ncu_$shape.log" 2>&1
echo "ncu $shape rc=$? t=$SECONDS"; tail -2 "$OUT/ncu_$shape.log"
for id in 0 1 2 3; do
  "$NCU" -i "$OUT/src_$shape.ncu-rep" --page source --csv --print-source sass --launch-skip $id --launch-count 1 > "$OUT/src_${shape}_$id.csv" 2> "$OUT/src_${shape}_$id.err"
  echo "  source page $id rc=$? $(wc -l < $OUT/src_${shape}_$id.csv) lines"; head -c 300 "$OUT/src_${shape}_$id.err"
done
"$NCU" -i "$OUT/src_$shape.ncu-rep" --csv --page details > "$OUT/details_$shape.csv"
[ $shape = 30b ] && [ $SECONDS -gt 250 ] && break
done
rm -f $OUT/*.ncu-rep.tmp
ls -la $OUT | head -30
