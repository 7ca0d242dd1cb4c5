#!/usr/bin/env bash
# One device call that validates a finished tree on an H200: every GPU test, memcheck, the MoE
# benchmark at both shapes and the routing kernel's timing. Library prebuilt here into BUILD_DIR.
#   bash ci/final_device_run.sh build/final        (logs under $OUT)
set -u
BUILD_DIR=${1:-build/final}
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export PYTHONPATH=. PK_LIBRARY_PATH=$BUILD_DIR PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader 
git log -1 --format=%h 2>/dev/null
echo "== all GPU tests"
OUT=/tmp/gpu-test-logs timeout ${T_TESTS:-120} bash ci/run_gpu_tests.sh "$BUILD_DIR" > "$OUT/gpu_tests.log" 2>&1
echo "gpu tests rc=$?"; grep -E "passed|failed|error" "$OUT/gpu_tests.log" | tail -3
echo "== benchmark"
timeout ${T_BENCH:-150} python3 benchmarks/bench_moe.py --reps ${REPS:-10} --json "$OUT/bench.json" 2>&1 | tee "$OUT/bench.log" | tail -30
echo "== routing kernel timing"
timeout 30 python3 - <<'PY' 2>&1 | tee "$OUT/routing_timing.txt"
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
echo "== memcheck"
SAN_TOOLS=memcheck T_SAN=${T_SAN:-60} timeout 70 bash ci/gpu_sanitize.sh "$OUT" 2>&1 | head -6 | tee "$OUT/sanitize.txt"
