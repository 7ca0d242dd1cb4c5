#!/usr/bin/env bash
# Session 34 run 1: (a) would a pre-gathered dy pay (dH and dW2 read it by TMA / as consecutive rows, against the cost
# of making it)? (b) session 31's prepared run 3 (every big kernel's default against its existing forms, and what
# bounds dW1), not run in sessions 31-33. Main's library (kernels as 0636614), 235B then 30B, one process a shape.
# Prediction (a): dH on consecutive rows 5-10 % under its default, dW2 on pre-gathered copies 5-9 % under its default
# (session 32's H100 dW1: -8 %); the copy (index_select: each row read K times) ~0.3-0.4 ms at 235B, ~0.1 at 30B,
# i.e. the saving (~0.35-0.55 ms at 235B) about equal to the copy: a dy pre-gather is built only if saving - copy
# exceeds ~1 % of the layer (0.27 ms at 235B, 0.07 at 30B). (b) session 31's: no existing form beats its default by
# more than 2 %; dW1's loads only and MMAs only each 0.75-0.85 of the whole (the H100 gave 0.79 / 0.77).
# Run: `bash results/session34/scripts/run1.sh 2>&1 | tail -120`, carry [".device/final/build/final"].
export B=.device/final/build/final
source ci/device_run_lib.sh
eval "$(grep '^M+\?=' results/session31/scripts/run3.sh)"  # session 31's row list
M+='|^dH, pre-gathered dy, consecutive rows$|^dW2 bf16 out, pre-gathered copies, (ours|torch _grouped_mm)$|^dy gather copy'
echo "rows: $M" | cut -c1-200
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
IL_TIMEOUT=240 interleaved_step il_235b.log --shapes 235b --rounds 5 --reps 10 --match "$M"
IL_TIMEOUT=150 interleaved_step il_30b.log --shapes 30b --rounds 5 --reps 10 --match "$M"
echo "t=$SECONDS"
