#!/usr/bin/env bash
set -u
export PYTHONPATH=. PYTHONUNBUFFERED=1 PK_LIBRARY_PATH=.device/head/build/final
SECONDS=0
timeout 150 python3 -m pytest -q -m gpu tests/test_sm90_kgrouped.py tests/test_sm90_moe.py -p no:cacheprovider > $OUT/tests.log 2>&1; echo "rc=$? t=$SECONDS"; tail -1 $OUT/tests.log; grep -E "^FAILED|^E  " $OUT/tests.log | head -6
