#!/usr/bin/env bash
# Session 6, device run 7 (final): the session's last library (k-grouped chunk loop with precomputed
# descriptors, accumulate default 19 on the shared-B side): ci/final_device_run.sh (every GPU test, the
# layer benchmark, the per-kernel timeline, host overhead, routing timing, layer sanitizers; as run,
# the same steps inline without the routing timing), then racecheck of the k-grouped accumulate cases.
bash ci/final_device_run.sh
timeout 130 compute-sanitizer --tool racecheck --error-exitcode 9 python3 -m pytest -q -m gpu tests/test_sm90_kgrouped.py -k "test_accumulate" -p no:cacheprovider > $OUT/san_kg_racecheck.log 2>&1; echo "kgrouped racecheck rc=$? $(grep -E 'RACECHECK SUMMARY' $OUT/san_kg_racecheck.log | sort | uniq -c | tr '\n' ' ')"
cd $OUT && tar czf san.tgz san && rm -rf san; ls $OUT
