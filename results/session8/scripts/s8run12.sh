#!/usr/bin/env bash
# Session 8, device run 12: the cp.async gather with full-size copies (rows past a group's end copy the
# group's last row). .device/old = 41469ea (the kernels of 103f1f6), .device/head = this commit.
# (1) every GPU test on the new library; (2) A/B across processes (2 each) of GEMM 1 and dH; (3) memcheck +
# racecheck of a small layer; (4) the layer benchmark (10 reps).
source ci/device_run_lib.sh
step 200 gpu_tests.log python3 -m pytest -q -m gpu tests/ -p no:cacheprovider; tail -1 $OUT/gpu_tests.log; grep -E "^FAILED|^E  " $OUT/gpu_tests.log | head -10
bash ci/ab_libraries.sh .device/old/build/final .device/head/build/final "^(GEMM 1|dH) default$" 2 $OUT/ab.log
echo "t=$SECONDS"
mkdir -p $OUT/san; PK_SMALL_SHAPE=300,4,2,256,256 PK_SM90_MAX_CTAS=2 T_SAN=60 bash ci/gpu_sanitize.sh "$OUT/san" > $OUT/sanitize.txt 2>&1; tail -6 $OUT/sanitize.txt
step 120 bench.log python3 benchmarks/bench_moe.py --reps 10 --json $OUT/bench.json; grep -v "^{" $OUT/bench.log | tail -9
cd $OUT && tar czf san.tgz san && rm -rf san; echo "t=$SECONDS"
