#!/usr/bin/env bash
# Session 6, device run 3: the consumer warpgroups issuing in turn (m-grouped + 128, k-grouped 20 / 21):
# every GPU test (the new forms included), memcheck + racecheck of a small layer with every new form,
# then interleaved A/B against the defaults.
source ci/device_run_lib.sh  # B, PYTHONPATH, PK_LIBRARY_PATH, GPU state, step()
step 200 gpu_tests.log python3 -m pytest -q -m gpu tests/ -p no:cacheprovider; tail -1 $OUT/gpu_tests.log; grep -E "^FAILED|^E  " $OUT/gpu_tests.log | head -10
for form in "168 20" "169 21"; do set -- $form
  mkdir -p $OUT/san_$1
  env PK_SMALL_SHAPE=67,4,2,256,768 PK_SM90_MAX_CTAS=2 PK_SM90_VARIANT_GEMM1=132 PK_SM90_VARIANT_GEMM2=227 PK_SM90_VARIANT_DX=227 \
      PK_SM90_VARIANT_DH=$1 PK_SM90_VARIANT_WGRAD=$2 T_SAN=150 bash ci/gpu_sanitize.sh $OUT/san_$1 > $OUT/san_$1/summary.txt 2>&1
  echo "sanitize DH=$1 WGRAD=$2 rc=$? t=$SECONDS"; cat $OUT/san_$1/summary.txt
done
step 300 interleaved.log python3 benchmarks/interleaved.py --rounds 7 --match "in turn|, 4 stages$|wait0, TMA store$|wait0, z L1 prefetch$|bf16 out, wgrad variant (staged_tma|split_wait1)|MMAs only|accumulate, wgrad variant (staged_tma|split_bk128)"; grep -E "^\||^[0-9]+b" $OUT/interleaved.log
cd $OUT && tar czf san.tgz san_* && rm -rf san_*; ls $OUT
