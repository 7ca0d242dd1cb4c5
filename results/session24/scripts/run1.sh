#!/usr/bin/env bash
# Session 24 run 1: branch next/split-ring (rebased on d5e7606) built into .device/split: every GPU test, both
# sanitizers with the split forms, the candidates against the defaults in one process a shape.
export B=.device/split/build/final
source ci/device_run_lib.sh
SAN_ENV="PK_SM90_VARIANT_GEMM1=6 PK_SM90_VARIANT_DH=43" gpu_checks gpu_tests.log -m gpu tests/
M='^(GEMM 1 (default|split ring, A 6 B 2|split ring, A 5 B 3)|dH (default|split ring, A 5 B 2)|layer fwd\+bwd( default|, split rings .*))$'
IL_TIMEOUT=300 interleaved_step sweep.log --rounds 7 --match "$M"
gzip $OUT/gpu_tests.log; rm -f $OUT/sanitize_*.log; echo "t=$SECONDS"
