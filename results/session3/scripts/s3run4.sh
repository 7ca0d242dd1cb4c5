#!/usr/bin/env bash
set -u
export PYTHONPATH=. PYTHONUNBUFFERED=1 PK_LIBRARY_PATH=.device/head/build/final
SECONDS=0
echo "== kgrouped tests"
timeout 200 python3 -m pytest -q -m gpu tests/test_sm90_kgrouped.py -p no:cacheprovider > $OUT/kg_tests.log 2>&1; echo "rc=$? t=$SECONDS"; tail -1 $OUT/kg_tests.log; grep -E "^FAILED|^E  " $OUT/kg_tests.log | head -10
echo "== interleaved: wgrad MC-A pairs"
timeout 200 python3 benchmarks/interleaved.py --only "dW1 bf16 out, wgrad variant v7_staged,dW1 fp32 out, wgrad variant v6_pf_lean,debug bit 9" --rounds 5 > $OUT/interleaved_mc_a.log 2>&1; echo "rc=$? t=$SECONDS"; grep "^|\|^[0-9]" $OUT/interleaved_mc_a.log | grep -v "variant |\|---"
echo "== host overhead profile"
timeout 120 python3 benchmarks/host_overhead.py --profile > $OUT/host_profile.log 2>&1; echo "rc=$? t=$SECONDS"; head -12 $OUT/host_profile.log; grep -A30 "cProfile of 10 calls of mega_moe" $OUT/host_profile.log | head -34
