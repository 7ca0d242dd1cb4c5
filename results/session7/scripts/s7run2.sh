#!/usr/bin/env bash
# Session 7, device run 2: the library of e99d536 (variant 24 removed again; every kernel PTX-identical to
# run 11's build). Interleaved A/B with each round's order rotated (existing variants whose earlier
# comparisons were close: GEMM 1 forms, GEMM 2 / dX against their 2-CTA multicast forms, the two dH forms,
# k-grouped 16 against 19 for bf16 outs, MMA-only forms; the default dW2 entry and the explicit 16 are the
# same kernel: a check of the rotation), then ci/final_device_run.sh (every GPU test, layer benchmark,
# timeline, host overhead, routing timing, layer memcheck + racecheck) and racecheck of the k-grouped
# accumulate cases.
source ci/device_run_lib.sh
step 240 interleaved.log python3 benchmarks/interleaved.py --rounds 7 --match "^GEMM 1 staged 128x192(, 4 stages|, wait0|, TMA store)$|^(GEMM 2|dX) staged, (A by TMA, wait0, TMA store|2-CTA B multicast)$|^dH (2 )?epilogue warps 128x256, wait0, z L1 prefetch$|^dW[12] bf16 out(, wgrad variant (staged_tma|split_bk128))?$|MMAs only( split_bk128 \(19\))?$"; grep -E "^\||^[0-9]+b" $OUT/interleaved.log
bash ci/final_device_run.sh
timeout 130 compute-sanitizer --tool racecheck --error-exitcode 9 python3 -m pytest -q -m gpu tests/test_sm90_kgrouped.py -k "test_accumulate" -p no:cacheprovider > $OUT/san_kg_racecheck.log 2>&1; echo "kgrouped racecheck rc=$? $(grep -E 'RACECHECK SUMMARY' $OUT/san_kg_racecheck.log | sort | uniq -c | tr '\n' ' ')"
cd $OUT && tar czf san.tgz san && rm -rf san; ls $OUT
