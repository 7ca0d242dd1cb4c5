#!/usr/bin/env bash
set -u
export PYTHONPATH=. PYTHONUNBUFFERED=1 PK_LIBRARY_PATH=.device/head/build/final
SECONDS=0
echo "== kgrouped tests"
timeout 200 python3 -m pytest -q -m gpu tests/test_sm90_kgrouped.py -p no:cacheprovider > $OUT/kg_tests.log 2>&1; echo "rc=$? t=$SECONDS"; tail -1 $OUT/kg_tests.log; grep -E "^FAILED|^E  " $OUT/kg_tests.log | head -10
echo "== interleaved: wait0"
timeout 250 python3 benchmarks/interleaved.py --only "variant v7_staged,variant v8_staged_wait0,variant v6_pf_lean,variant v8_lean_wait0,accumulate, wgrad variant v8_staged" --rounds 5 > $OUT/interleaved_wait0.log 2>&1; echo "rc=$? t=$SECONDS"; grep "^|\|^[0-9]" $OUT/interleaved_wait0.log | grep -v "variant |\|---"
