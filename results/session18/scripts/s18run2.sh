#!/usr/bin/env bash
# Session 18, run 2: GEMM 1 variant 6 (the epilogue warpgroup on 128 x (128 + 128) tiles, 3 stages, wait_group 0)
# against the default (5: 128 x (96 + 96), 4 stages, wait_group 1): correctness (the layer tests under it, memcheck /
# racecheck at a small shape), then back to back (1.5 s) and synchronised (5 shuffled rounds), alone and in the
# forward.
B=.device/s18b/build/final
source ci/device_run_lib.sh
SAN_ENV=PK_SM90_VARIANT_GEMM1=6 gpu_checks tests.log -x tests/test_sm90_moe.py -k "gemm1_epiwg"
M='GEMM 1 default|GEMM 1 epilogue warpgroup 128x256, wait0|GEMM 1 cooperative 128x256|layer fwd \(routing \+ forward\) default|layer fwd, GEMM 1 epilogue warpgroup 128x256|ceiling GEMM 1: torch.bmm, balanced groups'
IL_TIMEOUT=300 interleaved_step kern.log --shapes 30b,235b --match "^($M)\$" --rounds 5 --reps 5 --sustained 1.5
echo "t=$SECONDS"
