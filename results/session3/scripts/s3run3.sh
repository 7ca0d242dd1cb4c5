#!/usr/bin/env bash
set -u
NEW=.device/head/build/final; OLD=.device/prev/build/final
export PYTHONPATH=. PYTHONUNBUFFERED=1
SECONDS=0
echo "== GPU tests (new)"
PK_LIBRARY_PATH=$NEW timeout 200 python3 -m pytest -q -m gpu tests/ -p no:cacheprovider > $OUT/gpu_tests.log 2>&1; echo "rc=$? t=$SECONDS"; tail -1 $OUT/gpu_tests.log; grep -E "^FAILED|^E  " $OUT/gpu_tests.log | head -10
echo "== dH old vs new epilogue (interleaved within each build; GEMM 2 staged as the clock reference)"
for round in 1 2; do for B in OLD NEW; do
  eval L=\$$B
  PK_LIBRARY_PATH=$L timeout 100 python3 benchmarks/interleaved.py --only "dH ping-pong,dH coop 128x256,GEMM 2 staged" --rounds 3 > $OUT/dh_${B}_$round.log 2>&1
  echo "-- $B round $round t=$SECONDS"; grep "^|" $OUT/dh_${B}_$round.log | grep -v "variant\|---"
done; done
echo "== host overhead (new)"
PK_LIBRARY_PATH=$NEW timeout 100 python3 benchmarks/host_overhead.py > $OUT/host_overhead.log 2>&1; echo "rc=$? t=$SECONDS"; cat $OUT/host_overhead.log
