#!/usr/bin/env bash
# Session 28 run 1: the PDL candidate (.device/pdl = HEAD 4cf1036 + dependent_launch.cuh), which also carries the
# untested review refactor 096fd43: every GPU test and the sanitizers; PDL against plain launches in one process
# (interleaved.py's "no PDL" rows, PK_PDL=0); the benchmark table; the layer against session 26's library (7e3eee4)
# across processes. Run: `bash results/session28/scripts/run1.sh 2>&1 | tail -70`, carry [".device/pdl/build/final",
# ".device/base/build/final"].
B=.device/pdl/build/final
source ci/device_run_lib.sh
gpu_checks gpu_tests.log -m gpu tests
IL_TIMEOUT=240 interleaved_step pdl_ab.log --rounds 9 --reps 10 \
  --match '^layer fwd\+bwd default$|^layer fwd\+bwd, no PDL$|^layer fwd \(routing \+ forward\)'
step 200 bench.log python3 benchmarks/bench_moe.py --reps 20 --json $OUT/bench.json; grep -v "^{" $OUT/bench.log | tail -24
gzip $OUT/gpu_tests.log
AB_N30=2 AB_N235=2 ab_shapes .device/base/build/final .device/pdl/build/final \
  '^layer fwd\+bwd default$|^layer fwd\+bwd, fp32 weight gradients$|^dW[12] bf16 out$'
cat $OUT/ab30.log $OUT/ab235.log > $OUT/ab.log && cat $OUT/ab30_rows.log $OUT/ab235_rows.log > $OUT/ab_rows.log && \
  rm -f $OUT/ab30.log $OUT/ab235.log $OUT/ab30_rows.log $OUT/ab235_rows.log
echo "t=$SECONDS"
