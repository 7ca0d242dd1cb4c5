#!/usr/bin/env bash
set -u
export PYTHONPATH=. PYTHONUNBUFFERED=1
P=.device/prev/build/final; A=.device/head/build/final; B=.device/head2/build/final
SECONDS=0
echo "== moe tests with fast sigmoid everywhere (head2)"
PK_LIBRARY_PATH=$B timeout 150 python3 -m pytest -q -m gpu tests/test_sm90_moe.py -p no:cacheprovider > $OUT/moe_tests_head2.log 2>&1; echo "rc=$? t=$SECONDS"; tail -1 $OUT/moe_tests_head2.log; grep -E "^FAILED|^E  " $OUT/moe_tests_head2.log | head -6
for round in 1 2; do for L in P A B; do
  eval LIB=\$$L
  PK_LIBRARY_PATH=$LIB timeout 100 python3 benchmarks/interleaved.py --only "GEMM 1 staged 128x192,dH ping-pong,dH coop 128x256,GEMM 2 staged" --rounds 3 > $OUT/sig_${L}_$round.log 2>&1
  echo "-- $L round $round t=$SECONDS"; grep "^|" $OUT/sig_${L}_$round.log | grep -v "variant |\|---"
done; done
