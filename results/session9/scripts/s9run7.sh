#!/usr/bin/env bash
# Session 9, device run 7: the ping-pong 128 x 192 source (af55a91, archived to .device/pp192 with its own
# benchmarks and python package) as normal / no-MMA / no-load libraries: GEMM 1 and GEMM 2, default against
# ping-pong 128 x 192, both shapes, 5 shuffled rounds each; then ncu warp samples of 30B GEMM 1 ping-pong 128 x 192.
# (First call: the no-MMA build hung in the ping-pong form: its consumers skipped the turn handshake; fixed in
# mainloop.cuh, only the no-MMA libraries rebuilt, and the second call ran LIBS="nomma noload".)
source ci/device_run_lib.sh
M="^(GEMM 1 default|GEMM 1 ping-pong 128x192|GEMM 2 default|GEMM 2 ping-pong 128x192, A by TMA)$"
for lib in ${LIBS:-final nomma noload}; do
  PYTHONPATH=.device/pp192 PK_LIBRARY_PATH=.device/pp192/build/$lib step 150 pp_$lib.log python3 .device/pp192/benchmarks/interleaved.py --rounds 5 --match "$M"
  echo "== $lib"; grep -E "^\| |^[0-9]+b" $OUT/pp_$lib.log | grep -v "^| variant\|^|---"
done
[ "${NCU:-1}" = 0 ] || (cd .device/pp192 && PYTHONPATH=. PK_LIBRARY_PATH=build/final PK_SM90_VARIANT_GEMM1=7 bash ci/ncu_sass_samples.sh "EpiSwiGLUFwd<" 30b g1_pp192_30b)
echo "t=$SECONDS"
