#!/usr/bin/env bash
set -u
export PYTHONPATH=. PYTHONUNBUFFERED=1 PK_LIBRARY_PATH=.device/head/build/final
SECONDS=0
echo "== smoke: 2-CTA cluster kernels at a small shape"
PK_SM90_VARIANT_GEMM1=20 PK_SM90_VARIANT_GEMM2=19 PK_SM90_VARIANT_DX=19 PK_SM90_VARIANT_DH=19 timeout 40 python3 ci/sm90_moe_small.py 2>&1 | tail -3; echo "rc=$? t=$SECONDS"
PK_SM90_VARIANT_GEMM1=20 PK_SM90_VARIANT_GEMM2=19 PK_SM90_VARIANT_DX=19 timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 python3 ci/sm90_moe_small.py > $OUT/memcheck_cluster.log 2>&1; echo "memcheck rc=$? t=$SECONDS"; grep "ERROR SUMMARY" $OUT/memcheck_cluster.log
echo "== moe + gemm tests"
timeout 180 python3 -m pytest -q -m gpu tests/test_sm90_moe.py tests/test_sm90_gemm.py -p no:cacheprovider -x > $OUT/tests.log 2>&1; echo "rc=$? t=$SECONDS"; tail -1 $OUT/tests.log; grep -E "^FAILED|^E  " $OUT/tests.log | head -10
echo "== interleaved"
timeout 150 python3 benchmarks/interleaved.py --only "2-CTA,GEMM 1 staged 128x192, 4 stages,GEMM 2 staged, A by TMA,dX, A by TMA,dX staged, A by TMA,dH coop 128x256" --rounds 3 > $OUT/interleaved_cluster.log 2>&1; echo "rc=$? t=$SECONDS"; grep "^|\|^[0-9]" $OUT/interleaved_cluster.log | grep -v "variant |\|---"
