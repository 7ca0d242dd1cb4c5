#!/usr/bin/env bash
# Session 11, device run 3 (library as run 2): under the power cap, do the 2-CTA multicast forms (the weight
# tile shared by a CTA pair: ~30 % fewer L2 -> SM bytes in GEMM 1) or the cooperative 128 x 256 GEMM 1 (-12 %
# bytes a FLOP) beat the defaults? Interleaved (9 rounds), then each back to back for 2 s with SM clock and power.
source ci/device_run_lib.sh
step 400 interleaved.log python3 benchmarks/interleaved.py --rounds 9 --sustained 2 --match '^(GEMM 1|GEMM 2|dX|dH) default$|^GEMM 1 cooperative 128x256|multicast|^layer fwd\+bwd( default|, 2-CTA|, GEMM 1 coop)'
grep -E "^\| |^[0-9]+b" $OUT/interleaved.log | grep -v "^| variant\|^|---"
echo "t=$SECONDS"
