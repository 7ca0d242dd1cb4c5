#!/usr/bin/env bash
# Session 19, run 5: the next tile's row indices through shared memory, completing on mbarriers (.device/s19d) against the session start's library (.device/s19a):
# every GPU test, the sanitizers, the A/B over alternating processes, the benchmark table.
B=.device/s19d/build/final BASE=.device/s19a/build/final DIAG=0 bash ci/candidate_run.sh
