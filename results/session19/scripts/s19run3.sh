#!/usr/bin/env bash
# Session 19, run 3: the next tile's row indices copied into shared memory (cp.async groups) (.device/s19c) against the session start's library (.device/s19a):
# every GPU test, the sanitizers, the A/B over alternating processes, the benchmark table.
B=.device/s19c/build/final BASE=.device/s19a/build/final DIAG=0 bash ci/candidate_run.sh
