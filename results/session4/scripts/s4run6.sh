#!/usr/bin/env bash
# Session 4, device run 6: ncu of one fwd+bwd at both shapes with the new dH defaults (tensor pipe,
# shared memory, L2, stalls), then GEMM 1 variants again at 235B (interleaved, 7 rounds).
source ci/device_run_lib.sh  # B, PYTHONPATH, PK_LIBRARY_PATH, GPU state, step()
for s in 30b 235b; do T_NCU=130 bash ci/profile_ncu.sh $s > $OUT/ncu_run_$s.txt 2>&1; echo "ncu $s t=$SECONDS"; done
rm -f $OUT/*.ncu-rep $OUT/*_raw.csv
timeout 80 python3 benchmarks/interleaved.py --shapes 235b --only "GEMM 1" --rounds 7 > $OUT/interleaved_gemm1.log 2>&1; echo "rc=$? t=$SECONDS"; grep -E "^\|" $OUT/interleaved_gemm1.log
