#!/usr/bin/env bash
# run1.sh's steps in priority order for a short device budget (what a cut-off run still returns): every GPU test and
# compute-sanitizer on the final selection first, then the benchmark with --main-grad, the SASS compare, the
# accumulate rows. Predictions: run1.sh's.
# Run: `bash results/session33/scripts/run1b.sh 2>&1 | tail -75`, carry [".device/final/build/final", ".device/head/build/final"].
export B=.device/final/build/final
source ci/device_run_lib.sh
gpu_checks gpu_tests.log -m gpu tests
gzip $OUT/gpu_tests.log
step 240 bench.log python3 benchmarks/bench_moe.py --reps 20 --main-grad --json $OUT/bench.json; grep -v "^{" $OUT/bench.log | tail -32
sass_rename() { cuobjdump -sass .device/head/build/final/libprime_kernels_sm90.so > /tmp/old.sass && cuobjdump -sass $B/libprime_kernels_sm90.so > /tmp/new.sass
  python3 ci/ptx_compare.py /tmp/old.sass /tmp/new.sass --rename ELi2ENS1_4Pipe=ELb1ENS1_4Pipe \
    --rename ELi1ENS1_4Pipe=ELb0ENS1_4Pipe > $OUT/sass_compare.log 2>&1; echo "sass compare rc=$?"; grep -v "^    " $OUT/sass_compare.log | head -20; }
sass_rename
W='^dW1 fp32 accumulate(, 4-CTA clusters \(debug bit 11\)|, pairs \(debug bit 12\))?$|^layer fwd\+bwd (default|, fp32 main_grad accumulate)$'
IL_TIMEOUT=200 interleaved_step il.log --shapes 30b,235b --rounds 5 --reps 10 --match "$W"
echo "t=$SECONDS"
