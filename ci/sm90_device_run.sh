#!/usr/bin/env bash
# One device-machine call for the sm90 MoE work: correctness table, pytest, sanitizers, benchmark.
# Run from the repo root with the prebuilt library carried in build/sm90. Logs go to $OUT.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export PYTHONPATH=. PK_LIBRARY_PATH=build/sm90 PYTHONUNBUFFERED=1
STEPS=${STEPS:-table,pytest,sanitize,bench}
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv,noheader
case ",$STEPS," in *,table,*)
  echo "== correctness table"; PK_MOE_WGRAD=${TABLE_WGRAD:-native} timeout ${T_TABLE:-150} python3 tests/test_sm90_moe.py > "$OUT/table.log" 2>&1
  rc=$?; cat "$OUT/table.log"
  if [ $rc -ne 0 ]; then echo "table step failed or hung (rc=$rc): stopping"; exit $rc; fi
  echo "== correctness table, ping-pong variants"
  PK_SM90_VARIANT_GEMM1=2 PK_SM90_VARIANT_GEMM2=2 PK_SM90_VARIANT_DH=2 PK_SM90_VARIANT_DX=2 \
    PK_MOE_WGRAD=${TABLE_WGRAD:-native} timeout ${T_TABLE:-150} python3 tests/test_sm90_moe.py > "$OUT/table_pp.log" 2>&1
  rc=$?; cat "$OUT/table_pp.log"
  if [ $rc -ne 0 ]; then echo "ping-pong table failed or hung (rc=$rc): stopping"; exit $rc; fi;;
esac
case ",$STEPS," in *,bench,*)
  echo "== bench"; timeout ${T_BENCH:-240} python3 benchmarks/bench_moe.py ${BENCH_ARGS:-} --json "$OUT/bench.json" 2>&1 | tee "$OUT/bench.log";;
esac
case ",$STEPS," in *,pytest,*)
  echo "== pytest"; timeout ${T_PYTEST:-200} python3 -m pytest -q tests/test_sm90_gemm.py tests/test_sm90_moe.py ${PYTEST_EXTRA:-} 2>&1 | tail -25 | tee "$OUT/pytest.log";;
esac
case ",$STEPS," in *,sanitize,*)
  echo "== sanitize"; ci/gpu_sanitize.sh "$OUT" 2>&1 | tee "$OUT/sanitize.txt";;
esac
