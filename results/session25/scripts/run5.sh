#!/usr/bin/env bash
# Session 25 run 5: are GEMM 1 and dH bound by L2 throughput? ncu (clocks uncontrolled) memory metrics of one call each:
# GEMM 1 default, dH default and cuBLAS's bmm on balanced groups for both products, 30B and 235B, with head's library
# and with diag_nostore's (the epilogues' stores dropped: run 4 found them worth -10 % on 30B dH).
source ci/device_run_lib.sh
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
MET=gpu__time_duration.sum,lts__t_bytes.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__t_sector_hit_rate.pct,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_active,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__cycles_elapsed.avg.per_second
E='^(GEMM 1 default|dH default|ceiling (GEMM 1|dH): torch.bmm, balanced groups)$'
for b in head diag_nostore; do
  for s in 30b 235b; do
    PK_LIBRARY_PATH=.device/$b/build/final timeout 150 $NCU --profile-from-start off --clock-control none --metrics $MET --csv \
      python3 benchmarks/profile_moe.py --shape $s --entries "$E" > $OUT/ncu_${b}_$s.csv 2> $OUT/ncu_${b}_$s.err
    echo "[$b $s] rc=$? t=$SECONDS"
  done
done
python3 - $OUT <<'PY'
import csv, glob, os, sys
for f in sorted(glob.glob(os.path.join(sys.argv[1], "ncu_*.csv"))):
    rows = [r for r in csv.reader(l for l in open(f) if l.startswith('"'))]
    if not rows: print(f, "no rows"); continue
    h = rows[0]; ki, mi, vi = h.index("Kernel Name"), h.index("Metric Name"), h.index("Metric Value")
    d = {}
    for r in rows[1:]:
        d.setdefault((r[0], r[ki][:60]), {})[r[mi]] = r[vi]
    print("==", os.path.basename(f))
    for (i, k), m in d.items():
        g = lambda n: m.get(n, "?")
        print(f"{k:60s} t={g('gpu__time_duration.sum')} L2B={g('lts__t_bytes.sum')} L2%={g('lts__throughput.avg.pct_of_peak_sustained_elapsed')} "
              f"hit={g('lts__t_sector_hit_rate.pct')} rd={g('lts__t_sectors_op_read.sum')} wr={g('lts__t_sectors_op_write.sum')} "
              f"DRAMr={g('dram__bytes_read.sum')} DRAMw={g('dram__bytes_write.sum')} DRAM%={g('dram__throughput.avg.pct_of_peak_sustained_elapsed')} "
              f"L1%={g('l1tex__throughput.avg.pct_of_peak_sustained_active')} TC%={g('sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active')} clk={g('sm__cycles_elapsed.avg.per_second')}")
PY
echo "t=$SECONDS"
