#!/usr/bin/env bash
# Session 19, run 8: no address arithmetic between a stage's empty wait and its copies, multiply-high division (.device/s19f) against the session start's library (.device/s19a):
# every GPU test, the sanitizers, the A/B over alternating processes, gather_diag.py, the benchmark table.
B=.device/s19f/build/final BASE=.device/s19a/build/final DIAG=1 bash ci/candidate_run.sh
