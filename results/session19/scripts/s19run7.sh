#!/usr/bin/env bash
# Session 19, run 7: the next tile's coordinate and row indices loaded during the current tile, a multiply-high division (.device/s19e) against the session start's library (.device/s19a):
# every GPU test, the sanitizers, the A/B over alternating processes, gather_diag.py, the benchmark table.
B=.device/s19e/build/final BASE=.device/s19a/build/final DIAG=1 bash ci/candidate_run.sh
