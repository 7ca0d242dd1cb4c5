#!/usr/bin/env bash
set -u
export PYTHONPATH=. PYTHONUNBUFFERED=1 PK_LIBRARY_PATH=.device/head/build/final
SECONDS=0
for s in 30b 235b; do T_NCU=200 bash ci/profile_ncu.sh $s 2>&1 | tail -80; echo "t=$SECONDS"; done
rm -f $OUT/*.ncu-rep
