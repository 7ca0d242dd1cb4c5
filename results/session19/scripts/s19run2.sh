#!/usr/bin/env bash
# Session 19, run 2: the m-grouped producers' row indices loaded branch-free before use (.device/s19b) against the session start's library (.device/s19a):
# every GPU test, the sanitizers, the A/B over alternating processes, the benchmark table.
B=.device/s19b/build/final BASE=.device/s19a/build/final DIAG=0 bash ci/candidate_run.sh
