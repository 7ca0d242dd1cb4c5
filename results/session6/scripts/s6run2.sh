#!/usr/bin/env bash
# Session 6, device run 2 (diagnostics, no kernel change): where the weight gradients' time goes
# (interleaved: pre-gathered copies ours vs torch _grouped_mm, loads only, MMAs only), and ncu
# throughput of every GEMM of one 30B / 235B layer: tensor pipe, shared-memory banks, L2, DRAM, clock.
source ci/device_run_lib.sh  # B, PYTHONPATH, PK_LIBRARY_PATH, GPU state, step()
step 200 interleaved.log python3 benchmarks/interleaved.py --only "pre-gathered,loads only,MMAs only,wgrad variant staged_tma,dX staged, A by TMA, wait0, TMA store" --rounds 5; grep -E "^\||^[0-9]+b" $OUT/interleaved.log
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
"$NCU" --query-metrics --chip gh100 > /tmp/metrics.txt 2>&1
want=""
for m in sm__pipe_tensor_op_gmma_cycles_active sm__inst_executed_pipe_tensor_op_gmma l1tex__data_bank_reads l1tex__data_bank_writes l1tex__data_pipe_lsu_wavefronts_mem_shared lts__t_sectors dram__throughput sm__throughput; do
  grep -q "^$m " /tmp/metrics.txt && want="$want,$m.avg.pct_of_peak_sustained_elapsed"
done
want="${want#,},sm__cycles_elapsed.avg.per_second,gpc__cycles_elapsed.max"
echo "metrics: $want"; grep -E "gmma|data_bank" /tmp/metrics.txt | cut -c1-120 | head -12
for shape in 30b 235b; do
  timeout 200 "$NCU" --profile-from-start off --clock-control none --kernel-name-base demangled \
    --kernel-name regex:'grouped_gemm|kgrouped' --launch-count 6 --metrics "$want" --csv \
    python3 benchmarks/profile_moe.py --shape $shape > $OUT/ncu_$shape.csv 2>&1
  echo "ncu $shape rc=$? t=$SECONDS"
  python3 - $OUT/ncu_$shape.csv <<'PY'
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
hdr = rows[0]; ki = hdr.index("Kernel Name"); mi = hdr.index("Metric Name"); vi = hdr.index("Metric Value"); ii = hdr.index("ID")
tab = collections.OrderedDict()
for r in rows[1:]:
    tab.setdefault((r[ii], r[ki][:60]), {})[r[mi]] = r[vi]
names = sorted({m for v in tab.values() for m in v})
print("kernel | " + " | ".join(n.replace(".avg.pct_of_peak_sustained_elapsed", "%").replace("sm__cycles_elapsed.avg.per_second", "clk") for n in names))
for (i, k), v in tab.items():
    print(f"{i} {k} | " + " | ".join(v.get(n, "") for n in names))
PY
done
