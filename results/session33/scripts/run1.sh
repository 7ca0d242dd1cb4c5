#!/usr/bin/env bash
# Session 33 run 1 = session 32's prepared run 3 (results/session32/scripts/run3.sh: main's library with the swapped
# dW1's fp32 accumulate in 4-CTA clusters, on an H200: SASS against 676f3fb, every GPU test, compute-sanitizer, the
# benchmark, the accumulate rows) with the benchmark's new --main-grad table (ours and torch adding fp32 weight
# gradients into main_grad accumulators).
# Prediction: every test passes; SASS of the old kernels unchanged (the 4-CTA ones new); bench as session 31's
# (bf16 path unchanged: 30B ~2.13 / ~7.2 ms, 235B ~8.7 / ~26.9); dW1 fp32 accumulate 4-CTA 5-10 % under pairs;
# main_grad: torch pays ~2 adds of 4*E*3*H*I bytes read+write (~1.2 ms at 235B at ~3.3 TB/s, read 2 fp32 + 1 bf16,
# write 1 fp32 per element), ours ~+1 ms over its bf16 fwd+bwd at 235B (session 32's dW1 accumulate +3 ms pairs -> +~2.2
# in 4-CTA; dW2 accumulate +~1): main_grad speedup ~1.45x at 235B, ~1.9x at 30B.
# Run: `bash results/session33/scripts/run1.sh 2>&1 | tail -90`, carry [".device/final/build/final", ".device/head/build/final"].
export B=.device/final/build/final
source ci/device_run_lib.sh
cuobjdump -sass .device/head/build/final/libprime_kernels_sm90.so > /tmp/old.sass && cuobjdump -sass $B/libprime_kernels_sm90.so > /tmp/new.sass
python3 ci/ptx_compare.py /tmp/old.sass /tmp/new.sass --rename ELi2ENS1_4Pipe=ELb1ENS1_4Pipe \
  --rename ELi1ENS1_4Pipe=ELb0ENS1_4Pipe > $OUT/sass_compare.log 2>&1; echo "sass compare rc=$?"; grep -v "^    " $OUT/sass_compare.log | head -20
gpu_checks gpu_tests.log -m gpu tests
gzip $OUT/gpu_tests.log
step 240 bench.log python3 benchmarks/bench_moe.py --reps 20 --main-grad --json $OUT/bench.json; grep -v "^{" $OUT/bench.log | tail -32
W='^dW1 fp32 accumulate(, 4-CTA clusters \(debug bit 11\)|, pairs \(debug bit 12\))?$|^layer fwd\+bwd (default|, fp32 main_grad accumulate)$'
IL_TIMEOUT=200 interleaved_step il.log --shapes 30b,235b --rounds 5 --reps 10 --match "$W"
echo "t=$SECONDS"
