#!/usr/bin/env bash
source ci/device_run_lib.sh  # B, PYTHONPATH, PK_LIBRARY_PATH, GPU state, step()
echo "== kgrouped tests"
timeout 200 python3 -m pytest -q -m gpu tests/test_sm90_kgrouped.py -p no:cacheprovider > $OUT/kg_tests.log 2>&1; echo "rc=$? t=$SECONDS"; tail -1 $OUT/kg_tests.log; grep -E "^FAILED|^E  " $OUT/kg_tests.log | head -10
echo "== interleaved wgrad"
timeout 300 python3 benchmarks/interleaved.py --only "wgrad variant" --rounds 5 > $OUT/interleaved_wgrad.log 2>&1; echo "rc=$? t=$SECONDS"; cat $OUT/interleaved_wgrad.log
