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
# session 32's run 3 as written, its bench step with --main-grad (40 s more time, 8 more lines printed)
sed -e 's/--reps 20 --json/--reps 20 --main-grad --json/' -e 's/step 200 bench.log/step 240 bench.log/' \
  -e 's/tail -24$/tail -32/' results/session32/scripts/run3.sh | bash
