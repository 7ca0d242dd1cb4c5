#!/usr/bin/env bash
# Session 25 run 6: branch next/gemm1-z-bulk (GEMM 1's z by bulk copies from the staging tile), built into
# .device/zbulk. Every GPU test and both sanitizers on it, then GEMM 1 and the layer back to back 1.5 s, head / zbulk
# alternating over four processes.
export B=.device/zbulk/build/final
source ci/device_run_lib.sh
gpu_checks gpu_tests.log -m gpu tests/
gzip $OUT/gpu_tests.log; rm -f $OUT/sanitize_*.log
M='^(GEMM 1 default|layer fwd \(routing \+ forward\) default|layer fwd\+bwd default)$'
for b in head zbulk head zbulk; do
  log=$b.$SECONDS.log
  step 150 $log env PK_LIBRARY_PATH=.device/$b/build/final python3 benchmarks/interleaved.py --rounds 1 --sustained 1.5 --match "$M"
  echo "== $b"; grep -A8 "back to back" $OUT/$log | grep -E "^\| [GdDl]|^[0-9]+b"
done
echo "t=$SECONDS"
