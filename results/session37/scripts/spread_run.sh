#!/usr/bin/env bash
# Session 37: session 36's spread_run.sh with one row added to the interleaved steps, dW1's bf16 4-CTA form (debug
# bit 11, session 32), whose 3-4 % loss predates session 36's reading that the stores' traffic beside the loads is
# what dW1 pays (a third fewer operand bytes an SM might now pay for its lockstep). Prediction for it: +2..+4 % against
# the default at 235B as in session 32 (its loss there was idle SMs and lockstep, which the stores do not change); a
# reading at or below the default would reopen the 4-CTA form with spread stores. Otherwise session 36's script, run as it is:
SPREAD_MATCH="^dW[12] bf16 out(, wgrad variant split_bk128_(defer_tail|spread)|, ours without the epilogue stores)?$|^dW1 bf16 out, 4-CTA clusters \\(debug bit 11\\)$" \
  exec bash results/session36/scripts/spread_run.sh
