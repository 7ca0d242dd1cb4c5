#!/usr/bin/env bash
# Session 6, device run 7 (final): the session's last library (k-grouped chunk loop with precomputed
# descriptors, accumulate default 19 on the shared-B side): every GPU test, the layer benchmark, the
# per-kernel timeline, host overhead, layer sanitizers, racecheck of the k-grouped accumulate cases.
source ci/device_run_lib.sh  # B, PYTHONPATH, PK_LIBRARY_PATH, GPU state, step()
step 150 gpu_tests.log python3 -m pytest -q -m gpu tests/ -p no:cacheprovider; tail -1 $OUT/gpu_tests.log; grep -E "^FAILED|^E  " $OUT/gpu_tests.log | head -10
step 150 bench.log python3 benchmarks/bench_moe.py --reps 10 --json $OUT/bench.json; grep -v "^{" $OUT/bench.log | tail -12
step 60 timeline.log python3 benchmarks/timeline_moe.py --iters 3 --clocks; grep -E "kernels,|back to back|grouped_gemm|kgrouped|combine" $OUT/timeline.log | cut -c1-30,74-100
step 60 host.log python3 benchmarks/host_overhead.py --shape 30b; tail -8 $OUT/host.log
mkdir -p $OUT/san; PK_SMALL_SHAPE=300,4,2,256,256 PK_SM90_MAX_CTAS=2 T_SAN=60 bash ci/gpu_sanitize.sh "$OUT/san" 2>&1 | tee $OUT/sanitize.txt; echo "t=$SECONDS"
timeout 130 compute-sanitizer --tool racecheck --error-exitcode 9 python3 -m pytest -q -m gpu tests/test_sm90_kgrouped.py -k "test_accumulate" -p no:cacheprovider > $OUT/san_kg_racecheck.log 2>&1; echo "kgrouped racecheck rc=$? $(grep -E 'RACECHECK SUMMARY' $OUT/san_kg_racecheck.log | sort | uniq -c | tr '\n' ' ')"; echo "t=$SECONDS"
cd $OUT && tar czf san.tgz san && rm -rf san; ls $OUT
