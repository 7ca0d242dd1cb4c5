#!/usr/bin/env bash
# Nsight Compute on one MoE forward + backward (benchmarks/profile_moe.py), our kernels only.
#   PK_LIBRARY_PATH=build/final bash ci/profile_ncu.sh [30b|235b]     (reports under $OUT)
# NCU_LIGHT=1: speed-of-light and memory sections only (fewer replays: for comparing tile orders etc.);
# NAME=tag: report names ncu_<shape>_<tag> (several runs into one $OUT). The environment passes through.
# ENTRIES=regex: profile benchmarks/interleaved.py's matching entries instead of one layer (profile_moe.py --entries),
# every kernel they launch (cuBLAS's too) unless NCU_KERNELS_REGEX narrows it.
set -u
SHAPE=${1:-30b}
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export PYTHONPATH=${PYTHONPATH:-.} PYTHONUNBUFFERED=1
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
# Clocks stay as the card is (--clock-control none): never change the card's settings.
N=ncu_$SHAPE${NAME:+_$NAME}
SECTIONS="--section SpeedOfLight --section MemoryWorkloadAnalysis"
[ "${NCU_LIGHT:-0}" = 1 ] || SECTIONS="$SECTIONS --section Occupancy --section LaunchStats --section SchedulerStats \
  --section WarpStateStats --section ComputeWorkloadAnalysis"
timeout ${T_NCU:-240} "$NCU" --profile-from-start off --clock-control none \
  --kernel-name regex:"${NCU_KERNELS_REGEX:-$( [ -n "${ENTRIES:-}" ] && echo . || echo 'grouped_gemm|kgrouped' )}" \
  --launch-count ${NCU_KERNELS:-8} $SECTIONS \
  --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,lts__t_sectors_srcunit_tex.sum,lts__t_sector_hit_rate.pct,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.pct_of_peak_sustained_elapsed,lts__t_sectors.sum.pct_of_peak_sustained_elapsed,smsp__cycles_active.avg,sm__cycles_elapsed.avg.per_second \
  --export "$OUT/$N" --force-overwrite \
  python3 benchmarks/profile_moe.py --shape "$SHAPE" ${ENTRIES:+--entries "$ENTRIES"} > "$OUT/$N.log" 2>&1
echo "ncu rc=$?"; tail -3 "$OUT/$N.log"
"$NCU" --import "$OUT/$N.ncu-rep" --csv --page details > "$OUT/$N.csv"
"$NCU" --import "$OUT/$N.ncu-rep" --csv --page raw > "$OUT/${N}_raw.csv"
python3 - "$OUT/$N.csv" <<'PY' | tee "$OUT/${N}_summary.txt"
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
if not rows:
    print("no ncu rows"); sys.exit(0)
hdr, data = rows[0], rows[1:]
col = {h: i for i, h in enumerate(hdr)}
want = ["Duration", "Grid Size", "Cluster Size", "dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_bytes.sum",
        "lts__t_sectors_srcunit_tex.sum", "lts__t_sector_hit_rate.pct", "SM Frequency", "Compute (SM) Throughput", "Memory Throughput", "DRAM Throughput", "L2 Cache Throughput",
        "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.pct_of_peak_sustained_elapsed",
        "lts__t_sectors.sum.pct_of_peak_sustained_elapsed", "Registers Per Thread",
        "Achieved Occupancy", "Issue Slots Busy", "No Eligible", "Warp Cycles Per Issued Instruction",
        "L1/TEX Hit Rate", "L2 Hit Rate", "Dynamic Shared Memory Per Block", "Block Limit Registers"]
per = collections.OrderedDict()
for r in data:
    key = (r[col["ID"]], r[col["Kernel Name"]][:150])
    name = r[col["Metric Name"]]
    if name in want:
        per.setdefault(key, {})[name] = f'{r[col["Metric Value"]]} {r[col["Metric Unit"]]}'.strip()
for (kid, kname), m in per.items():
    print(f"[{kid}] {kname}")
    for k in want:
        if k in m:
            print(f"    {k:40s} {m[k]}")
PY
python3 - "$OUT/${N}_raw.csv" <<'PY' | tee -a "$OUT/${N}_summary.txt"
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
if len(rows) < 3:
    print("no raw rows"); sys.exit(0)
hdr, data = rows[0], rows[2:]   # row 1 holds units
stall = [i for i, h in enumerate(hdr) if h.startswith("smsp__average_warps_issue_stalled_") and h.endswith("_per_issue_active.ratio")]
name_i = hdr.index("Kernel Name")
def num(v):
    try:
        return float(v.replace(",", ""))
    except ValueError:
        return 0.0
for r in data:
    vals = sorted(((num(r[i]), hdr[i][len("smsp__average_warps_issue_stalled_"):-len("_per_issue_active.ratio")]) for i in stall), reverse=True)
    print(r[name_i][:100], "top stalls (warps per issue):", ", ".join(f"{n} {v:.2f}" for v, n in vals[:6]))
PY
