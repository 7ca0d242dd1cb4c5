#!/usr/bin/env bash
# Session 11, device run 4 (library: HEAD with the evict_first store experiment, .device/head): every GPU test with
# PK_SM90_OUT_EVICT_FIRST=1; interleaved A/B of the kernels and the layer with and without it (11 rounds), then each
# back to back for 2 s; ncu memory metrics of one 235B fwd+bwd with it (DRAM bytes, L2 hit rate).
source ci/device_run_lib.sh
PK_SM90_OUT_EVICT_FIRST=1 step 150 tests_ef.log python3 -m pytest -q -m gpu tests/ -p no:cacheprovider; tail -1 $OUT/tests_ef.log; grep -E "^FAILED" $OUT/tests_ef.log | head
step 330 interleaved.log python3 benchmarks/interleaved.py --rounds 11 --sustained 2 --match '^(GEMM 1|GEMM 2|dX|dH) default(, evict-first outputs)?$|^layer fwd\+bwd( default|, evict-first outputs)$|^dW[12] bf16 out(, evict-first outputs)?$'
grep -E "^\| |^[0-9]+b" $OUT/interleaved.log | grep -v "^| variant\|^|---"
mkdir -p $OUT/ncu
OUT=$OUT/ncu NCU_LIGHT=1 NAME=ef PK_SM90_OUT_EVICT_FIRST=1 T_NCU=100 step 110 ncu_235b_ef.log bash ci/profile_ncu.sh 235b
rm -f $OUT/ncu/*.ncu-rep $OUT/ncu/*_raw.csv
grep -E "^\[|Duration|dram__bytes|sector_hit|SM Frequency" $OUT/ncu/ncu_235b_ef_summary.txt | paste -sd' ' | sed 's/\[/\n[/g' | sed 's/  */ /g' | cut -c1-260
cd $OUT && tar czf logs.tgz ncu tests_ef.log && rm -rf ncu tests_ef.log; echo "t=$SECONDS"
