"""CPU time per call of the MoE layer's host code (Python, argument checks, allocations, ctypes
launches), measured while the GPU is busy so that no call waits for it.

    PYTHONPATH=. PK_LIBRARY_PATH=build/sm90 python3 benchmarks/host_overhead.py [--shape 30b]

Each row: median over --rounds of (CPU wall time of --calls back-to-back calls) / --calls. The GPU is
first given a long kernel (a large matmul loop) so the launch queue never drains; --calls is kept
small enough that the queue (1024 entries) never fills. An eager training step pays this on the CPU;
it is hidden when the CPU runs ahead of the GPU and shows up as a gap before the first long kernel
when it does not (benchmarks/timeline_moe.py lists the gaps).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import torch

import deep_gemm
from deep_gemm.kernels import sm90

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_moe import layer_inputs, mega_moe_step  # noqa: E402


def cpu_us(fn, calls, rounds, busy):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    out = []
    for _ in range(rounds):
        busy()
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        out.append((time.perf_counter() - t0) / calls * 1e6)
        torch.cuda.synchronize()
    return statistics.median(out)


def breakdown(x, idx, w, w13, w2, r, E, a, busy):
    """CPU µs of each piece of host work between the routing call and GEMM 1's launch."""
    import ctypes

    from deep_gemm._backend import backend_for, on_device, ptr, stream_of
    from deep_gemm.routing import _routing
    dev = x.device
    T, H = x.shape
    K = idx.shape[1]
    I = w2.shape[2]
    lib = backend_for(dev).lib
    _, off, sp, _ = r
    z = torch.empty(T * K, 2 * I, dtype=torch.bfloat16, device=dev)
    h = torch.empty(T * K, I, dtype=torch.bfloat16, device=dev)
    n = idx.numel()
    i32 = dict(dtype=torch.int32, device=dev)
    outs = [torch.empty(E, **i32), torch.empty(E + 1, **i32), torch.empty(n, **i32), torch.empty(n, **i32)]
    ws = torch.empty(lib.query("pk_moe_routing_workspace_bytes", ctypes.c_int64(n), ctypes.c_int(E)),
                     dtype=torch.uint8, device=dev)

    def routing_launch():
        lib.call("pk_moe_routing", ptr(idx), ctypes.c_int(8), ctypes.c_int64(n), ctypes.c_int(E), ptr(ws),
                 *(ptr(t) for t in outs), stream_of(dev))

    def gemm1_launch():
        lib.call("pk_sm90_moe_gemm1_swiglu", ptr(x), ctypes.c_int64(T), ctypes.c_int(H), ctypes.c_int(K), ptr(sp),
                 ptr(off), ctypes.c_int(E), ptr(w13), ctypes.c_int(I), ptr(z), ptr(h), ctypes.c_float(0.0),
                 ctypes.c_int(0), stream_of(dev))

    def device_ctx():
        with torch.cuda.device(dev):
            pass

    def on_device_ctx():  # what the entry points use since session 16 (nothing to do on the current device)
        with on_device(dev):
            pass

    pieces = [
        ("torch.empty (one [T*K, 2I] bf16)", lambda: torch.empty(T * K, 2 * I, dtype=torch.bfloat16, device=dev)),
        ("torch.cuda.device(dev) enter + exit", device_ctx),
        ("on_device(dev) enter + exit", on_device_ctx),
        ("stream_of(dev) (torch's raw stream accessor since session 16)", lambda: stream_of(dev)),
        ("torch.cuda.current_stream(dev).cuda_stream (stream_of before)", lambda: torch.cuda.current_stream(dev).cuda_stream),
        ("backend_for(dev)", lambda: backend_for(dev)),
        ("routing: pk_moe_routing call alone (one launch)", routing_launch),
        ("routing: _routing (allocations + call)", lambda: _routing(idx, E)),
        ("GEMM 1: pk_sm90_moe_gemm1_swiglu call alone", gemm1_launch),
    ]
    print("\n| piece (30B shape) | CPU us per call |\n|---|---|")
    for name, fn in pieces:
        print(f"| {name} | {cpu_us(fn, a.calls, a.rounds, busy):.1f} |")


def split_step(autograd_step, calls, rounds, busy):
    """Where the autograd step's CPU time goes: wall time of its pieces, timed inside the step (the backward's on
    the autograd engine's thread, where torch runs it), and the rest (Function.apply, saving, the engine)."""
    import deep_gemm.moe as moe
    from deep_gemm.kernels import sm90 as native
    acc = {}

    def timed(mod, name, label):
        orig = getattr(mod, name)

        def wrapper(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return orig(*args, **kwargs)
            finally:
                acc[label] = acc.get(label, 0.0) + time.perf_counter() - t0
        setattr(mod, name, wrapper)
        return mod, name, orig
    pieces = [(deep_gemm, "mega_moe", "mega_moe call (forward)"), (moe, "check_moe_args", "  check_moe_args"),
              (moe, "moe_routing", "  moe_routing"), (moe, "_forward_call", "  Function forward body"),
              (native, "moe_forward", "    sm90.moe_forward"), (moe, "_backward", "backward body (engine thread)"),
              (native, "moe_backward", "  sm90.moe_backward")]
    patches = [timed(*p) for p in pieces]
    try:
        for _ in range(3):
            autograd_step()
        torch.cuda.synchronize()
        acc.clear()
        total = 0.0
        for _ in range(rounds):
            busy()
            t0 = time.perf_counter()
            for _ in range(calls):
                autograd_step()
            total += time.perf_counter() - t0
            torch.cuda.synchronize()
    finally:
        for mod, name, orig in patches:
            setattr(mod, name, orig)
    n = calls * rounds
    print("\n| piece of the mega_moe autograd step | CPU us per step |\n|---|---|")
    print(f"| whole step | {total / n * 1e6:.0f} |")
    for _, _, label in pieces:
        print(f"| {label} | {acc.get(label, 0.0) / n * 1e6:.0f} |")
    rest = total - acc.get("mega_moe call (forward)", 0.0) - acc.get("backward body (engine thread)", 0.0)
    print(f"| the rest: .backward() up to and after the backward body (engine, thread hand-offs, gradients) | "
          f"{rest / n * 1e6:.0f} |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shape", default="30b")
    ap.add_argument("--tokens", type=int, default=16384)
    ap.add_argument("--calls", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--profile", action="store_true", help="also cProfile the autograd step and the forward "
                                                           "(top functions by own time)")
    ap.add_argument("--split", action="store_true", help="also time the pieces of the autograd step inside it")
    ap.add_argument("--breakdown", action="store_true", help="also time the pieces of the path from the routing "
                                                             "call to GEMM 1's launch one by one")
    a = ap.parse_args()
    T, E, K = a.tokens, 128, 8
    x, w13, w2, idx, w, dy = layer_inputs(a.shape, T, E, K)
    big = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)

    def busy():  # ~0.1 s of GPU work queued ahead of the measured calls
        for _ in range(60):
            big @ big

    r = deep_gemm.moe_routing(idx, E, validate=False)
    y, z = sm90.moe_forward(x, idx, w, w13, w2, r, None, "bf16")
    autograd_step, leaves = mega_moe_step(x, idx, w, w13, w2, dy)

    class NoKernels(torch.autograd.Function):
        """mega_moe's autograd shape without its work: 13 inputs (4 differentiable), 2 outputs, 10 saved
        tensors, 4 gradients; outputs and gradients allocated, nothing launched. What torch's autograd
        machinery alone costs a step."""

        @staticmethod
        def forward(ctx, x_, idx_, w_, w13_, w2_, c, o, sp, ps, clamp, prec, a13, a2):
            ctx.set_materialize_grads(False)
            zz = torch.empty(T * K, 2 * w2.shape[2], dtype=torch.bfloat16, device=x_.device)
            ctx.save_for_backward(x_, idx_, w_, w13_, w2_, c, o, sp, ps, zz)
            ctx.mark_non_differentiable(zz)
            return torch.empty_like(x_), zz

        @staticmethod
        def backward(ctx, dy_, dz_):
            xs, _, ws, w13s, w2s, *_ = ctx.saved_tensors
            return (torch.empty_like(xs), None, torch.empty_like(ws), torch.empty_like(w13s), torch.empty_like(w2s),
                    None, None, None, None, None, None, None, None)

    def engine_step():
        for t in leaves:
            t.grad = None
        NoKernels.apply(leaves[0], idx, leaves[1], leaves[2], leaves[3], *r, None, "bf16", None, None)[0].backward(dy)

    rows = [
        ("torch autograd alone (mega_moe's Function shape, no kernels)", engine_step),
        ("moe_routing (custom op)", lambda: deep_gemm.moe_routing(idx, E, validate=False)),
        ("sm90.moe_forward", lambda: sm90.moe_forward(x, idx, w, w13, w2, r, None, "bf16")),
        ("sm90.moe_backward (bf16 wgrad)", lambda: sm90.moe_backward(dy, x, idx, w, w13, w2, r, z, None, "bf16",
                                                                     wgrad_dtype=torch.bfloat16)),
        ("mega_moe forward (no grad)", lambda: deep_gemm.mega_moe(x, idx, w, w13, w2, validate=False)),
        ("mega_moe forward + backward (autograd)", autograd_step),
    ]
    print(f"GPU: {torch.cuda.get_device_name()}  torch {torch.__version__}  shape {a.shape} T={T}")
    print("| call | CPU us per call |\n|---|---|")
    for name, fn in rows:
        with torch.no_grad() if "no grad" in name else torch.enable_grad():
            print(f"| {name} | {cpu_us(fn, a.calls, a.rounds, busy):.0f} |")
    if a.split:
        split_step(autograd_step, a.calls, a.rounds, busy)
    if a.breakdown:
        breakdown(x, idx, w, w13, w2, r, E, a, busy)
    if a.profile:
        import cProfile
        import pstats
        for name, fn in (rows[5], rows[2], rows[1]):
            busy()
            prof = cProfile.Profile()
            prof.enable()
            for _ in range(a.calls):
                fn()
            prof.disable()
            torch.cuda.synchronize()
            print(f"\n== cProfile of {a.calls} calls of {name} (own time)")
            pstats.Stats(prof).sort_stats("tottime").print_stats(22)
            print(f"\n== cProfile of {a.calls} calls of {name} (cumulative time)")
            pstats.Stats(prof).sort_stats("cumulative").print_stats(40)


if __name__ == "__main__":
    main()
