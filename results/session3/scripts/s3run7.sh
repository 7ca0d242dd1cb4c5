#!/usr/bin/env bash
source ci/device_run_lib.sh  # B, PYTHONPATH, PK_LIBRARY_PATH, GPU state, step()
echo "== GPU tests"
timeout 150 python3 -m pytest -q -m gpu tests/ -p no:cacheprovider > $OUT/gpu_tests.log 2>&1; echo "rc=$? t=$SECONDS"; tail -1 $OUT/gpu_tests.log; grep -E "^FAILED|^E  " $OUT/gpu_tests.log | head -10
echo "== bench"; timeout 240 python3 benchmarks/bench_moe.py --reps 10 --json $OUT/bench.json > $OUT/bench.log 2>&1; echo "rc=$? t=$SECONDS"
grep -v "^{" $OUT/bench.log | tail -12
echo "== timeline"; timeout 90 python3 benchmarks/timeline_moe.py --iters 3 --clocks > $OUT/timeline.log 2>&1; echo "rc=$? t=$SECONDS"; grep -E "kernels,|back to back|MHz|W " $OUT/timeline.log | head -8
echo "== sanitizers"; T_SAN=120 bash ci/gpu_sanitize.sh "$OUT" 2>&1 | tee $OUT/sanitize.txt; echo "t=$SECONDS"
echo "== host overhead"; timeout 60 python3 benchmarks/host_overhead.py > $OUT/host_overhead.log 2>&1; tail -7 $OUT/host_overhead.log; echo "t=$SECONDS"
