#!/usr/bin/env bash
# Session 9, device run 8: the ping-pong 128 x 192 source (af55a91, archived to .device/pp192 with its own
# benchmarks and python package) as normal / no-MMA / no-load libraries: GEMM 1 and GEMM 2, default against
# ping-pong 128 x 192, both shapes, 5 shuffled rounds each; then ncu warp samples of 30B GEMM 1 ping-pong 128 x 192.
# Run 8: LIBS=nostore, a library of the same source built with -DPK_SM90_DIAG_NO_STORES (the register
# epilogues EpiStoreBf16 and EpiSwiGLUFwd store nothing; the patch lives in .device/pp192 only).
source ci/device_run_lib.sh
M="^(GEMM 1 default|GEMM 1 ping-pong 128x192|GEMM 2 default|GEMM 2 ping-pong 128x192, A by TMA)$"
for lib in ${LIBS:-final nomma noload}; do
  PYTHONPATH=.device/pp192 PK_LIBRARY_PATH=.device/pp192/build/$lib step 150 pp_$lib.log python3 .device/pp192/benchmarks/interleaved.py --rounds 5 --match "$M"
  echo "== $lib"; grep -E "^\| |^[0-9]+b" $OUT/pp_$lib.log | grep -v "^| variant\|^|---"
done
# (no ncu this time)
echo "t=$SECONDS"
