#!/bin/bash
# One device call for the k-grouped wgrad kernel: SASS facts, GPU tests, memcheck, benchmark.
# Run from the repo root with the library built in build/kg (carried).
set -o pipefail
export PYTHONPATH=. PK_LIBRARY_PATH=build/kg PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/kg_out}; mkdir -p "$OUT"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
if command -v cuobjdump >/dev/null; then
  cuobjdump -sass build/kg/sm90/api/sm90_kgrouped.cu.o > "$OUT/kgrouped.sass" 2>&1
  echo "SASS op counts (ours):"; grep -oE "HGMMA[.A-Z0-9x]*|LDGSTS[.A-Z0-9]*|STG[.A-Z0-9]*|LDL|STL|SYNCS[.A-Z0-9]*" "$OUT/kgrouped.sass" | sort | uniq -c
fi
echo "=== pytest"; timeout 240 python -m pytest -q -rs tests/test_sm90_kgrouped.py 2>&1 | tee "$OUT/pytest.log" | tail -25
echo "=== memcheck"; timeout 150 compute-sanitizer --tool memcheck python benchmarks/bench_kgrouped.py --sanitize 2>&1 | tee "$OUT/memcheck.log" | tail -6
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
if [ -n "$NCU" ] && [ -z "$SKIP_NCU" ]; then
  echo "=== ncu (30B dW2, ours)"
  timeout 150 "$NCU" --clock-control none -k regex:kgrouped_wgrad --launch-skip 1 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats \
    python benchmarks/bench_kgrouped.py --profile 1 > "$OUT/ncu.txt" 2>&1
  grep -E "Throughput|Busy|Bandwidth|Hit Rate|Duration|Stall|Issued Warp|No Eligible|Active Warps|Eligible Warps|Max Bandwidth|L2 Compression|Elapsed Cycles|SM Frequency" "$OUT/ncu.txt" | head -60
fi
echo "=== bench"; timeout 240 python benchmarks/bench_kgrouped.py 2>&1 | tee "$OUT/bench.log"
