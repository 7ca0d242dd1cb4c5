"""Per-kernel timeline of our MoE forward + backward *in context* (torch.profiler / CUPTI):

    PYTHONPATH=. PK_LIBRARY_PATH=build/sm90 python3 benchmarks/timeline_moe.py [--shapes 30b,235b] [--iters 5]

The kernel-alone breakdown of bench_moe.py --breakdown sums to less than the layer's measured time;
this prints what the GPU really runs in one layer call: each kernel's duration (median over --iters
profiled calls), the idle gaps between kernels, and their sum against the wall time of the call.
With --clocks it also samples the SM clock and power while the layer runs back to back. With --autograd
the call is a training step through `deep_gemm.mega_moe` and `.backward()` instead of the direct calls
(what the autograd path adds on the GPU).
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys

import torch

import deep_gemm
from deep_gemm.kernels import sm90
from deep_gemm.testing import cuda_sustained_ms

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_moe import layer_inputs, mega_moe_step  # noqa: E402


def layer_fn(shape, T, E, K, autograd=False):
    x, w13, w2, idx, w, dy = layer_inputs(shape, T, E, K)
    if autograd:
        return mega_moe_step(x, idx, w, w13, w2, dy)[0]

    def layer():
        r = deep_gemm.moe_routing(idx, E, validate=False)
        y, z = sm90.moe_forward(x, idx, w, w13, w2, r, None, "bf16")
        return sm90.moe_backward(dy, x, idx, w, w13, w2, r, z, None, "bf16", wgrad_dtype=torch.bfloat16)
    return layer


def timeline(layer, iters):
    from torch.profiler import ProfilerActivity, profile
    for _ in range(3):
        layer()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(iters):
            layer()
            torch.cuda.synchronize()
    evs = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    evs.sort(key=lambda e: e.time_range.start)
    # every call launches the same kernels: split the list into `iters` equal runs
    n = len(evs) // iters
    if n == 0 or n * iters != len(evs):  # (not expected: then show the whole list as one run)
        print(f"note: {len(evs)} GPU activities in {iters} calls; showing them as one run")
        n, iters = len(evs), 1
    per_iter = [evs[i * n:(i + 1) * n] for i in range(iters)]
    rows = []
    for i in range(len(per_iter[0])):
        durs = [it[i].time_range.end - it[i].time_range.start for it in per_iter]
        gaps = [it[i].time_range.start - it[i - 1].time_range.end if i else 0 for it in per_iter]
        rows.append((per_iter[0][i].name[:70], statistics.median(durs), statistics.median(gaps)))
    walls = [it[-1].time_range.end - it[0].time_range.start for it in per_iter]
    return rows, statistics.median(walls)


def clocks(layer, seconds=3.0):
    """(ms per call back to back for `seconds`, SM clock min and median MHz, power max W), nvidia-smi sampling
    every 100 ms meanwhile (the first 3 samples dropped)."""
    q = subprocess.Popen(["nvidia-smi", "--query-gpu=clocks.sm,power.draw,temperature.gpu",
                          "--format=csv,noheader,nounits", "-lms", "100"], stdout=subprocess.PIPE, text=True)
    ms = cuda_sustained_ms(layer, seconds)
    q.terminate()
    samples = [ln.split(",") for ln in q.communicate()[0].strip().splitlines() if ln.count(",") == 2]
    sm = [float(a) for a, _, _ in samples[3:]] or [0.0]
    pw = [float(b) for _, b, _ in samples[3:]] or [0.0]
    return ms, min(sm), statistics.median(sm), max(pw)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", default="30b,235b")
    ap.add_argument("--tokens", type=int, default=16384)
    ap.add_argument("--iters", type=int, default=5)
    ap.add_argument("--clocks", action="store_true")
    ap.add_argument("--autograd", action="store_true", help="time a mega_moe(...).backward() step")
    a = ap.parse_args()
    for shape in a.shapes.split(","):
        layer = layer_fn(shape, a.tokens, 128, 8, a.autograd)
        rows, wall = timeline(layer, a.iters)
        print(f"\n{shape}: {len(rows)} kernels, wall {wall / 1e3:.3f} ms, kernels "
              f"{sum(r[1] for r in rows) / 1e3:.3f} ms, gaps {sum(r[2] for r in rows) / 1e3:.3f} ms")
        print(f"  {'kernel':70s} {'us':>8s} {'gap us':>7s}")
        for name, d, g in rows:
            print(f"  {name:70s} {d:8.1f} {g:7.1f}")
        if a.clocks:
            ms, smin, smed, pmax = clocks(layer)
            print(f"  back to back: {ms:.3f} ms per call; SM clock min {smin:.0f} median {smed:.0f} MHz; "
                  f"power max {pmax:.0f} W")
    if a.clocks:  # the ceiling the layer is compared with, under the same sustained load
        n = 8192
        x, y = (torch.randn(n, n, device="cuda", dtype=torch.bfloat16) for _ in range(2))
        ms, smin, smed, pmax = clocks(lambda: x @ y)
        print(f"\ndense bf16 {n}^3 back to back: {2 * n ** 3 / ms / 1e9:.0f} TFLOP/s; SM clock min {smin:.0f} "
              f"median {smed:.0f} MHz; power max {pmax:.0f} W")


if __name__ == "__main__":
    main()
