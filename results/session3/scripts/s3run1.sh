#!/usr/bin/env bash
source ci/device_run_lib.sh  # B, PYTHONPATH, PK_LIBRARY_PATH, GPU state, step()
compute-sanitizer --version | tail -1
echo "== racecheck"; SAN_TOOLS=racecheck T_SAN=240 bash ci/gpu_sanitize.sh "$OUT" 2>&1 | tail -8; echo "t=$SECONDS"
grep -B2 -A12 -m3 "Race\|Error\|error" $OUT/sanitize_racecheck.log | head -80
echo "== memcheck"; SAN_TOOLS=memcheck T_SAN=120 bash ci/gpu_sanitize.sh "$OUT" 2>&1 | tail -4; echo "t=$SECONDS"
echo "== GPU tests"
timeout 150 python3 -m pytest -q -m gpu tests/ -p no:cacheprovider > $OUT/gpu_tests.log 2>&1; echo "rc=$? t=$SECONDS"; tail -1 $OUT/gpu_tests.log; grep -E "^FAILED|^E  " $OUT/gpu_tests.log | head -10
echo "== timeline"; timeout 60 python3 benchmarks/timeline_moe.py --iters 3 > $OUT/timeline.log 2>&1; echo "rc=$? t=$SECONDS"; tail -25 $OUT/timeline.log
