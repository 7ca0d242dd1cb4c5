#!/usr/bin/env bash
# Session 33 run 2 = session 31's prepared run 3 (results/session31/scripts/run3.sh: on an H200, every big kernel's
# default against its existing forms, and what bounds dW1), on main's library, at 235B and then at 30B.
# Prediction (session 31's, unchanged): no existing form beats its default by more than 2 % at 235B; dW1's loads
# only and MMAs only each 0.75-0.85 of the whole (the H100 gave 0.79 / 0.77 in session 32).
# Run: `bash results/session33/scripts/run2.sh 2>&1 | tail -120`, carry [".device/final/build/final"].
export B=.device/final/build/final
source ci/device_run_lib.sh
eval "$(grep '^M+\?=' results/session31/scripts/run3.sh)"  # session 31's row list
echo "rows: $M" | cut -c1-200
IL_TIMEOUT=240 interleaved_step il_235b.log --shapes 235b --rounds 5 --reps 10 --match "$M"
IL_TIMEOUT=150 interleaved_step il_30b.log --shapes 30b --rounds 5 --reps 10 --match "$M"
echo "t=$SECONDS"
