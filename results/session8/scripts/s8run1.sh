#!/usr/bin/env bash
# Session 8, device run 1: the row-skip change (m-grouped: a consumer warpgroup with no rows of the
# group skips its MMAs; k-grouped: only the 16-row steps of a group's last chunk that hold rows are
# loaded and multiplied). Library of 41469ea in .device/old, of this commit in .device/head.
# (1) every GPU test on the new library; (2) A/B across processes (3 each, shuffled rounds) of the
# layer's kernels at both shapes, plus the 2-CTA multicast forms of GEMM 1 and dX re-measured;
# (3) memcheck + racecheck of a small layer, racecheck of the k-grouped boundary cases.
source ci/device_run_lib.sh
step 200 gpu_tests.log python3 -m pytest -q -m gpu tests/ -p no:cacheprovider; tail -1 $OUT/gpu_tests.log; grep -E "^FAILED|^E  " $OUT/gpu_tests.log | head -10
bash ci/ab_libraries.sh .device/old/build/final .device/head/build/final "^((GEMM 1|GEMM 2|dX|dH) default|dW[12] (bf16|fp32) out|GEMM 1 staged 128x192, 2-CTA B multicast|dX staged, 2-CTA B multicast)$" 3 $OUT/ab.log
echo "t=$SECONDS"
mkdir -p $OUT/san; PK_SMALL_SHAPE=300,4,2,256,256 PK_SM90_MAX_CTAS=2 T_SAN=60 bash ci/gpu_sanitize.sh "$OUT/san" > $OUT/sanitize.txt 2>&1; tail -8 $OUT/sanitize.txt
timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 python3 -m pytest -q -m gpu "tests/test_sm90_kgrouped.py::test_small_shapes[128-512-True-False]" "tests/test_sm90_kgrouped.py::test_small_shapes[128-512-False-True]" -p no:cacheprovider > $OUT/san_kg_racecheck.log 2>&1; echo "kgrouped racecheck rc=$? $(grep -E 'RACECHECK SUMMARY|passed|failed' $OUT/san_kg_racecheck.log | sort | uniq -c | tr '\n' ' ')"
cd $OUT && tar czf san.tgz san && rm -rf san; echo "t=$SECONDS"
