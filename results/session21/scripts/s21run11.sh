#!/usr/bin/env bash
# Session 21, run 11: the ring-timing diagnostic library (.device/diag_ring: -DPK_SM90_DIAG_RING_TIMES, built by
# ci/build_diag_libraries.sh ring) for benchmarks/ring_times.py; HEAD's library (.device/s21i, SASS-identical to
# s21g) for the new GPU test of the entry point's error in a normal build.
export B=.device/s21i/build/final
source ci/device_run_lib.sh
step 120 test.log python3 -m pytest -q -p no:cacheprovider tests/test_sm90_moe.py -k diag_ring; tail -1 $OUT/test.log
step 200 ring.log env PK_LIBRARY_PATH=.device/diag_ring/build/final python3 benchmarks/ring_times.py; cat $OUT/ring.log
echo "t=$SECONDS"
