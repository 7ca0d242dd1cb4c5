#!/usr/bin/env bash
# Session 10, device run 2: where the ping-pong 128 x 192 GEMM 1 loses its store-free speed. GEMM 1 variant 8
# (z staged per warp, h from the registers): its tests; then GEMM 1 / GEMM 2 / dX, defaults against the
# ping-pong 128 x 192 forms, as the normal library and the no-MMA / no-load / no-store diagnostic builds
# (ci/build_diag_libraries.sh; no-store now also drops the per-warp staged bulk copies), 5 shuffled rounds each.
source ci/device_run_lib.sh
step 200 tests.log python3 -m pytest -q -x tests/test_sm90_moe.py -k "pp192_hreg"; tail -2 $OUT/tests.log
M="^(GEMM 1|GEMM 2|dX) (default|ping-pong 128x192)"
for lib in final nostore noload nomma; do
  d=.device/head/build/final; [ $lib = final ] || d=.device/diag_$lib/build/final
  PK_LIBRARY_PATH=$d step 150 pp_$lib.log python3 benchmarks/interleaved.py --rounds 5 --match "$M"
  echo "== $lib"; grep -E "^\| |^[0-9]+b" $OUT/pp_$lib.log | grep -v "^| variant\|^|---"
done
echo "t=$SECONDS"
