#!/usr/bin/env bash
# Session 17, run 3 (same library): the autograd step without the zero-filled z_sorted gradient. GPU tests of
# mega_moe and torch.compile; the kernel timeline of one mega_moe(...).backward() step with the session's start
# package (.device/old = 48d9279's deep_gemm) and with HEAD's; then the benchmark table (20 reps), which now also
# reports the autograd step's peak memory.
source ci/device_run_lib.sh
step 150 gpu_tests.log python3 -m pytest -q -m gpu tests/test_moe.py tests/test_compile.py -p no:cacheprovider; tail -1 $OUT/gpu_tests.log; grep -E "^FAILED" $OUT/gpu_tests.log | head
step 90 timeline_old.log env PYTHONPATH=.device/old python3 benchmarks/timeline_moe.py --autograd --iters 3
step 90 timeline_new.log python3 benchmarks/timeline_moe.py --autograd --iters 3
for f in old new; do echo "== $f"; grep -E "kernels,|elementwise|fill|zero|^  void at" $OUT/timeline_$f.log | cut -c1-100; done
step 300 bench.log python3 benchmarks/bench_moe.py --reps 20 --json $OUT/bench.json; grep -v "^{" $OUT/bench.log | tail -16
echo "t=$SECONDS"
