#!/usr/bin/env bash
# Session 11, device run 5 (library: run 2's, c61fa8d source): the existing kernel forms of every op re-measured
# under sustained load (each back to back for 2 s, SM clock and power), after 3 interleaved rounds: the defaults
# were chosen from synchronised calls, which start each call on a cooler GPU. Pairs that are the same kernel
# (each default and its named form) give the noise.
source ci/device_run_lib.sh
step 420 interleaved.log python3 benchmarks/interleaved.py --rounds 3 --sustained 2 --match '^(GEMM 1|GEMM 2|dX|dH) default$|^GEMM 1 (cooperative 128x256|staged 128x192, (4 stages|TMA store|wait0))$|^GEMM 2 (ping-pong 128x192, A by TMA|staged, A by TMA, (wait0, )?TMA store)$|^dX (ping-pong 128x192, A by TMA|staged, A by TMA, (wait0, )?TMA store|, A by TMA, wait0)$|^dH (2 )?epilogue warps 128x256, wait0(, z L1 prefetch)?$|^dW[12] bf16 out(, wgrad variant (staged|staged_tma|split_bk128))?$'
grep -E "^\| |^[0-9]+b" $OUT/interleaved.log | grep -v "^| variant\|^|---"
echo "t=$SECONDS"
