#!/usr/bin/env bash
# Prepared in session 32 for the next session (not run: the device time was spent): main's library with session 32's
# selection (the swapped dW1's fp32 accumulate in 4-CTA clusters, commit 33739d7 onward) on an H200: every GPU test,
# compute-sanitizer, the benchmark, and the main_grad layer row against the same with dW1 in pairs.
# Prediction: every test passes; bench as session 31's (the bf16 path is unchanged); dW1 fp32 accumulate 4-CTA
# 5-10 % under pairs (as on the H100). The main_grad layer row has no pair form to compare in one process: the
# dW1 delta (~0.1 ms at 30B, ~0.5-1.0 at 235B) bounds what it moves.
# Run: `bash results/session32/scripts/run3.sh 2>&1 | tail -90`, carry [".device/final/build/final", ".device/head/build/final"]
# (~5 minutes; build both first: /tmp/build.sh-style, notes' recipe, head = 676f3fb, final = main).
export B=.device/final/build/final
source ci/device_run_lib.sh
# SASS against the session's start (676f3fb, .device/head): the cluster flag became a size (bool MC -> int CS), so the
# pair / single kernels' names change (Lb1E -> Li2E, Lb0E -> Li1E); predicted: every old kernel's SASS the same, the
# 4-CTA kernels new.
cuobjdump -sass .device/head/build/final/libprime_kernels_sm90.so > /tmp/old.sass && cuobjdump -sass $B/libprime_kernels_sm90.so > /tmp/new.sass
python3 ci/ptx_compare.py /tmp/old.sass /tmp/new.sass --rename ELi2ENS1_4Pipe=ELb1ENS1_4Pipe \
  --rename ELi1ENS1_4Pipe=ELb0ENS1_4Pipe > $OUT/sass_compare.log 2>&1; echo "sass compare rc=$?"; grep -v "^    " $OUT/sass_compare.log | head -20
gpu_checks gpu_tests.log -m gpu tests
gzip $OUT/gpu_tests.log
step 200 bench.log python3 benchmarks/bench_moe.py --reps 20 --json $OUT/bench.json; grep -v "^{" $OUT/bench.log | tail -24
W='^dW1 fp32 accumulate(, 4-CTA clusters \(debug bit 11\)|, pairs \(debug bit 12\))?$|^layer fwd\+bwd (default|, fp32 main_grad accumulate)$'
IL_TIMEOUT=200 interleaved_step il.log --shapes 30b,235b --rounds 5 --reps 10 --match "$W"
echo "t=$SECONDS"
