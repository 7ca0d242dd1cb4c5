#!/usr/bin/env bash
# Session 13, run 1 (library: the working tree with split A / B rings, .device/head/build/final): the new
# variants' GPU tests, sanitizers on them (I = 768: GEMM 1 and dH both split; also racecheck with 2 CTAs), then
# dH and GEMM 1 split against the defaults back to back, and the layer with them.
source ci/device_run_lib.sh
step 150 gpu_tests.log python3 -m pytest -q -m gpu tests/test_sm90_moe.py -p no:cacheprovider -k "split_rings or shallow_b"; tail -1 $OUT/gpu_tests.log; grep -E "^FAILED" $OUT/gpu_tests.log | head
PK_SM90_VARIANT_GEMM1=196 PK_SM90_VARIANT_DH=168 PK_SMALL_SHAPE=67,4,2,256,768 step 200 sanitize.log bash ci/gpu_sanitize.sh $OUT; cat $OUT/sanitize.log
mkdir -p $OUT/san2; PK_SM90_VARIANT_GEMM1=228 PK_SM90_VARIANT_DH=169 PK_SMALL_SHAPE=300,4,4,256,768 PK_SM90_MAX_CTAS=2 SAN_TOOLS=racecheck step 200 sanitize2.log bash ci/gpu_sanitize.sh $OUT/san2; cat $OUT/sanitize2.log
step 200 dh_ab.log python3 benchmarks/interleaved.py --rounds 3 --sustained 2 --match '^dH (default|(2 )?epilogue warps 128x256, wait0, z L1 prefetch(, split rings A5 B2|, split rings A3 B2)?)$'
grep -E "^\| |^[0-9]+b" $OUT/dh_ab.log | grep -v "^| variant\|^|---"
step 200 g1_ab.log python3 benchmarks/interleaved.py --rounds 3 --sustained 2 --match '^GEMM 1 (default|staged 128x192, TMA store(, wait0)?, split rings A5 B3)$'
grep -E "^\| |^[0-9]+b" $OUT/g1_ab.log | grep -v "^| variant\|^|---"
step 120 layer_ab.log python3 benchmarks/interleaved.py --rounds 3 --sustained 3 --match '^layer fwd\+bwd( default|, split rings \(GEMM 1 A5 B3, dH A5 B2\))$'
grep -E "^\| |^[0-9]+b" $OUT/layer_ab.log | grep -v "^| variant\|^|---"
cd $OUT && tar czf logs.tgz *.log san2/*.log && rm -f gpu_tests.log san2/*.log; echo "t=$SECONDS"
