#!/usr/bin/env bash
# Session 32 run 2 (right after run 1, same warm H100), as it ran (an inline command; the prepared form, benchmark of
# both libraries + every GPU test, did not fit the ~6 minutes of device time left): the library with 4-CTA clusters
# the default of every swapped dW1 (.device/cs4def: run 1's source with the selection inverted, bit 11 = pairs)
# through every GPU test and compute-sanitizer, then dW1's fp32 accumulate 4-CTA (default there) against pairs.
# Prediction: every test passes; the accumulate's 4-CTA gain of run 1 (-5 % / -10 %) repeats.
# Run: carry [".device/cs4def/build/final"].
export B=.device/cs4def/build/final; source ci/device_run_lib.sh
gpu_checks gpu_tests_cs4def.log -m gpu tests; gzip $OUT/gpu_tests_cs4def.log
W='^dW1 fp32 accumulate(, 4-CTA clusters \(debug bit 11\))?$'
IL_TIMEOUT=80 interleaved_step il_acc.log --shapes 30b,235b --rounds 7 --reps 10 --match "$W"; echo "t=$SECONDS"
