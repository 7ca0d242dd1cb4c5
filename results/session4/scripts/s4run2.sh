#!/usr/bin/env bash
# Session 4, device run 2: dH epilogue warps (4) with the 8-threads-per-row one-warp gather, GEMM 1 epilogue warps (5): tests, sanitizers, interleaved timing
# against the other dH forms; then every GPU test (HEAD validation).
source ci/device_run_lib.sh  # B, PYTHONPATH, PK_LIBRARY_PATH, GPU state, step()
echo "== dH variant tests"
timeout 120 python3 -m pytest -q -m gpu tests/test_sm90_moe.py -k "dh_warps or gemm1_warps or few_ctas" -p no:cacheprovider > $OUT/dh_tests.log 2>&1; echo "rc=$? t=$SECONDS"; tail -1 $OUT/dh_tests.log; grep -E "^FAILED|^E  " $OUT/dh_tests.log | head -10
echo "== sanitizers (dH 4, I=256, 2 CTAs)"
PK_SMALL_SHAPE=300,4,2,256,256 PK_SM90_VARIANT_DH=4 PK_SM90_VARIANT_GEMM1=5 PK_SM90_MAX_CTAS=2 T_SAN=150 bash ci/gpu_sanitize.sh "$OUT" 2>&1 | tee $OUT/sanitize.txt; echo "t=$SECONDS"
echo "== interleaved dH"
timeout 150 python3 benchmarks/interleaved.py --only "dH,GEMM 1" --rounds 5 > $OUT/interleaved.log 2>&1; echo "rc=$? t=$SECONDS"; grep -E "^\||^[0-9]+b" $OUT/interleaved.log
timeout 100 python3 -m pytest -q -m gpu tests/test_sm90_moe.py -k "bitwise" -p no:cacheprovider > $OUT/bitwise.log 2>&1; echo "rc=$? t=$SECONDS"; tail -1 $OUT/bitwise.log; grep -E "^FAILED" $OUT/bitwise.log | head
