#!/usr/bin/env bash
# One device call that validates a finished tree on an H200, the library prebuilt here and carried:
# every GPU test, the MoE benchmark at both shapes, the per-kernel timeline with SM clocks, host
# overhead, the routing kernel's timing, and memcheck + racecheck of a small layer (grid capped at
# 2 CTAs, so each CTA walks many tiles).
#   bash ci/final_device_run.sh [BUILD_DIR]     (default: ci/device_run_lib.sh's B; logs under $OUT)
B=${1:-${B:-.device/head/build/final}}
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
source ci/device_run_lib.sh  # PYTHONPATH, PK_LIBRARY_PATH, GPU state, step()
git log -1 --format=%h 2>/dev/null
step ${T_TESTS:-150} gpu_tests.log python3 -m pytest -q -m gpu tests/ -p no:cacheprovider; tail -1 $OUT/gpu_tests.log; grep -E "^FAILED|^E  " $OUT/gpu_tests.log | head -10
step ${T_BENCH:-150} bench.log python3 benchmarks/bench_moe.py --reps ${REPS:-10} --json $OUT/bench.json; grep -v "^{" $OUT/bench.log | tail -12
step 60 timeline.log python3 benchmarks/timeline_moe.py --iters 3 --clocks; grep -E "kernels,|back to back|grouped_gemm|kgrouped|combine" $OUT/timeline.log | cut -c1-30,74-100
step 60 host.log python3 benchmarks/host_overhead.py --shape 30b; tail -8 $OUT/host.log
step 30 routing_timing.txt python3 - <<'PY'
import torch, deep_gemm
from deep_gemm import reference
T, K, E = 16384, 8, 128
idx = torch.rand(T, E, device="cuda").topk(K, dim=1).indices
assert deep_gemm.backend_for(idx.device).name == "sm90"
for name, f in [("kernel", lambda: deep_gemm.moe_routing(idx, E, validate=False)),
                ("torch reference", lambda: reference.moe_routing(idx, E))]:
    for _ in range(5): f()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    ts = []
    for _ in range(50):
        s.record(); f(); e.record(); torch.cuda.synchronize(); ts.append(s.elapsed_time(e))
    ts.sort(); print(f"routing T={T} K={K} E={E} {name}: median {ts[len(ts)//2]*1000:.1f} us")
PY
cat $OUT/routing_timing.txt
mkdir -p $OUT/san; PK_SMALL_SHAPE=300,4,2,256,256 PK_SM90_MAX_CTAS=2 T_SAN=${T_SAN:-60} bash ci/gpu_sanitize.sh "$OUT/san" 2>&1 | tee $OUT/sanitize.txt; echo "t=$SECONDS"
