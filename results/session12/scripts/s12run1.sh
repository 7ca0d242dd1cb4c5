#!/usr/bin/env bash
# Session 12, run 1 (library: the working tree with the opt-in row skip, .device/head/build/final): every GPU test
# (new: row-skip cases, and the session-11 test names never run), sanitizers with the row skip on, then the row
# skip against the defaults back to back (2 s a kernel, 3 s the layer) at both shapes.
source ci/device_run_lib.sh
step 150 gpu_tests.log python3 -m pytest -q -m gpu tests/ -p no:cacheprovider; tail -1 $OUT/gpu_tests.log; grep -E "^FAILED" $OUT/gpu_tests.log | head
PK_SM90_ROW_SKIP=1 PK_SM90_VARIANT_GEMM2=4 PK_SM90_VARIANT_DX=4 step 200 sanitize.log bash ci/gpu_sanitize.sh $OUT; cat $OUT/sanitize.log
step 240 skip_ab.log python3 benchmarks/interleaved.py --rounds 3 --sustained 2 --match '^(GEMM 1|GEMM 2|dX) default(, row skip)?$'
grep -E "^\| |^[0-9]+b" $OUT/skip_ab.log | grep -v "^| variant\|^|---"
step 120 layer_ab.log python3 benchmarks/interleaved.py --rounds 3 --sustained 3 --match '^layer fwd\+bwd( default|, row skip)$'
grep -E "^\| |^[0-9]+b" $OUT/layer_ab.log | grep -v "^| variant\|^|---"
cd $OUT && tar czf logs.tgz *.log && rm -f gpu_tests.log; echo "t=$SECONDS"
