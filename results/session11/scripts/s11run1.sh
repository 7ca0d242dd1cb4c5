#!/usr/bin/env bash
# Session 11, device run 1 (library: HEAD, .device/head): the m-tile-fastest order within each group
# (PK_SM90_TILE_ORDER=m for the m-grouped kernels and the weight gradients) -- every GPU test with it forced,
# in-process interleaved A/B against the default order (11 shuffled rounds), ncu memory metrics (DRAM bytes,
# L2 hit rate) of one fwd+bwd at both shapes in both orders, and the timeline with the sustained dense ceiling.
source ci/device_run_lib.sh
PK_SM90_TILE_ORDER=m step 150 tests_m.log python3 -m pytest -q -m gpu tests/ -p no:cacheprovider; tail -1 $OUT/tests_m.log; grep -E "^FAILED" $OUT/tests_m.log | head
step 240 interleaved.log python3 benchmarks/interleaved.py --rounds 11 --match '^(GEMM 1|GEMM 2|dX|dH) default|^layer fwd\+bwd(,)? (default|m-fastest tile order)$|^dW[12] bf16 out(, m-fastest.*|, pre-gathered copies.*)?$'
grep -E "^\| |^[0-9]+b" $OUT/interleaved.log | grep -v "^| variant\|^|---"
mkdir -p $OUT/ncu
for s in 235b 30b; do
  OUT=$OUT/ncu NCU_LIGHT=1 NAME=def T_NCU=100 step 110 ncu_${s}_def.log bash ci/profile_ncu.sh $s
  OUT=$OUT/ncu NCU_LIGHT=1 NAME=m PK_SM90_TILE_ORDER=m T_NCU=100 step 110 ncu_${s}_m.log bash ci/profile_ncu.sh $s
done
rm -f $OUT/ncu/*.ncu-rep
grep -hE "^\[|Duration|dram__bytes|sector_hit|L2 Cache Throughput|DRAM Throughput|SM Frequency" $OUT/ncu/*_summary.txt | head -0
for f in $OUT/ncu/*_summary.txt; do echo "== $f"; grep -E "^\[|Duration|dram__bytes|sector_hit|L2 Cache Throughput|SM Frequency" $f | paste -sd' ' | sed 's/\[/\n[/g' | sed 's/  */ /g' | cut -c1-260; done
step 90 timeline.log python3 benchmarks/timeline_moe.py --iters 3 --clocks; grep -E "kernels,|back to back|grouped_gemm|kgrouped|combine" $OUT/timeline.log | cut -c1-30,74-100
echo "t=$SECONDS"
