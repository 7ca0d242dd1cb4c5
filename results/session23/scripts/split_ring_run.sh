#!/usr/bin/env bash
# For the session after 23 (not run: no device time left): branch next/split-ring's candidates. Build the branch's tree
# into .device/split (/tmp/build.sh-style: cmake -G Ninja -DPK_ARCHS=90a, carry .device/split/build/final), then:
# every GPU test (the new cases "split_ring", "split_ring_a5b3"), both sanitizers with the split forms, and the
# candidates against the defaults in one process a shape (then across processes for any that wins).
export B=.device/split/build/final
source ci/device_run_lib.sh
SAN_ENV="PK_SM90_VARIANT_GEMM1=6 PK_SM90_VARIANT_DH=43" gpu_checks gpu_tests.log -m gpu tests/
M='^(GEMM 1 (default|split ring, A 6 B 2|split ring, A 5 B 3)|dH (default|split ring, A 5 B 2)|layer fwd\+bwd (default|, split rings .*))$'
IL_TIMEOUT=300 interleaved_step sweep.log --rounds 7 --match "$M"
gzip $OUT/gpu_tests.log; rm -f $OUT/sanitize_*.log; echo "t=$SECONDS"
