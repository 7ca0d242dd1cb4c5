#!/usr/bin/env bash
# Session 13, run 5: host-side change (stream_of through the raw current-stream handle, y allocated after GEMM 1's
# launch) against the session start's package (.device/old), same library: CPU µs per call and synchronised-call
# times, alternating processes.
source ci/device_run_lib.sh
step 60 gpu_tests.log python3 -m pytest -q -m gpu tests/test_backend.py tests/test_sm90_moe.py -p no:cacheprovider -k "stream_of or fwd_bwd"; tail -1 $OUT/gpu_tests.log
for i in 1 2 3; do
  for v in old new; do
    if [ $v = old ]; then PP=.device/old:.; else PP=.; fi
    echo "== $v round $i"
    PYTHONPATH=$PP python3 benchmarks/host_overhead.py --shape 30b --rounds 9 2>&1 | grep "^| [ms]"
    PYTHONPATH=$PP python3 results/session13/scripts/fwd_sync.py 2>&1 | tail -1
  done
done
