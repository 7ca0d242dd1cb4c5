#!/usr/bin/env bash
# Session 11, device run 2 (library: the commit with the m-fastest default for n-blocks >= 16, .device/head):
# every GPU test; the layer benchmark (20 reps, now also back to back for 3 s: ours, torch, dense); layer and
# kernels interleaved in the default / forced n-fastest / forced m-fastest orders (11 rounds), then each back to
# back for 1.5 s with SM clock and power; memcheck + racecheck of a small layer with m-fastest forced.
source ci/device_run_lib.sh
step 150 gpu_tests.log python3 -m pytest -q -m gpu tests/ -p no:cacheprovider; tail -1 $OUT/gpu_tests.log; grep -E "^FAILED" $OUT/gpu_tests.log | head
step 240 bench.log python3 benchmarks/bench_moe.py --reps 20 --json $OUT/bench.json; grep -v "^{" $OUT/bench.log | tail -22
step 200 interleaved.log python3 benchmarks/interleaved.py --rounds 11 --sustained 1.5 --match '^(GEMM 1|GEMM 2|dX|dH) default|^layer fwd\+bwd(,)? (default|m-fastest tile order|n-fastest tile order)$|^dW[12] bf16 out$'
grep -E "^\| |^[0-9]+b" $OUT/interleaved.log | grep -v "^| variant\|^|---"
mkdir -p $OUT/san; PK_SM90_TILE_ORDER=m PK_SMALL_SHAPE=300,4,2,256,256 PK_SM90_MAX_CTAS=2 T_SAN=90 step 200 san.log bash ci/gpu_sanitize.sh $OUT/san; cat $OUT/san.log
cd $OUT && tar czf logs.tgz san gpu_tests.log && rm -rf san gpu_tests.log; echo "t=$SECONDS"
