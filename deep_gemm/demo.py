"""`python -m deep_gemm demo`: run mega_moe forward + backward, check it, time it.

CPU default shape: T=256, H=256, I=128, E=8, K=2. CUDA default: the Qwen3-30B-A3B layer,
T=16384, H=2048, I=768, E=128, K=8 (uniform random routing). FLOPs: forward 6*T*K*H*I, backward twice that.
"""
from __future__ import annotations

import time

import torch

CPU_SHAPE = dict(tokens=256, hidden=256, intermediate=128, experts=8, topk=2)
CUDA_SHAPE = dict(tokens=16384, hidden=2048, intermediate=768, experts=128, topk=8)


def make_inputs(T, H, I, E, K, device, gen_seed=0, dtype=torch.bfloat16):
    g = torch.Generator(device="cpu").manual_seed(gen_seed)
    x = torch.randn(T, H, generator=g).to(device=device, dtype=dtype)
    scores = torch.rand(T, E, generator=g)
    top, idx = scores.topk(K, dim=-1)                       # K distinct experts per token, uniform
    tw = torch.softmax(top, dim=-1).float()
    w13 = (torch.randn(E, 2 * I, H, generator=g) * H ** -0.5).to(device=device, dtype=dtype)
    w2 = (torch.randn(E, H, I, generator=g) * I ** -0.5).to(device=device, dtype=dtype)
    return x, idx.to(device), tw.to(device), w13, w2


class _Timer:
    def __init__(self, device: torch.device):
        self.cuda = device.type == "cuda"

    def start(self):
        if self.cuda:
            self.e0, self.e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            self.e0.record()
        else:
            self.t0 = time.perf_counter()

    def stop(self) -> float:
        """Milliseconds since start()."""
        if self.cuda:
            self.e1.record()
            self.e1.synchronize()
            return self.e0.elapsed_time(self.e1)
        return (time.perf_counter() - self.t0) * 1e3


def check(device, precision="bf16") -> float:
    """calc_diff of mega_moe's y against the float64 definition at a small shape."""
    import deep_gemm
    from deep_gemm.reference import moe_forward_simple
    x, idx, tw, w13, w2 = make_inputs(200, 256, 128, 8, 2, device, gen_seed=1)
    y = deep_gemm.mega_moe(x, idx, tw, w13, w2, precision=precision)
    want = moe_forward_simple(x.cpu(), idx.cpu(), tw.cpu(), w13.cpu(), w2.cpu(), z_dtype=torch.bfloat16)
    return deep_gemm.calc_diff(y.cpu(), want)


def run_demo(args) -> int:
    import deep_gemm
    dev_name = getattr(args, "device", None) or ("cuda" if torch.cuda.is_available() else "cpu")
    device = torch.device(dev_name)
    if device.type == "cuda" and not torch.cuda.is_available():
        print("demo: --device cuda but no CUDA GPU is visible")
        return 2
    defaults = CUDA_SHAPE if device.type == "cuda" else CPU_SHAPE
    shape = {k: (getattr(args, k, None) or v) for k, v in defaults.items()}
    T, H, I, E, K = (shape[k] for k in ("tokens", "hidden", "intermediate", "experts", "topk"))
    precision = getattr(args, "precision", None) or "bf16"
    backend = deep_gemm.backend_for(device).name
    gpu = f" ({torch.cuda.get_device_name(device)})" if device.type == "cuda" else ""
    print(f"prime-kernels demo: device {device}{gpu}, backend {backend}, precision {precision}")
    print(f"shape: T={T} H={H} I={I} E={E} K={K}")

    diff = check(device, precision)
    ok = diff < (1e-4 if precision in ("bf16", "fp8_bwd") else 1e-2)
    print(f"check vs float64 reference (T=200, H=256, I=128, E=8, K=2): calc_diff = {diff:.2e} "
          f"[{'ok' if ok else 'FAILED'}]")

    x, idx, tw, w13, w2 = make_inputs(T, H, I, E, K, device)
    for t in (x, tw, w13, w2):
        t.requires_grad_()
    dy = torch.randn(T, H, device=device, dtype=x.dtype)
    timer = _Timer(device)
    warmup, iters = (3, 20) if device.type == "cuda" else (1, 3)
    fwd_ms, bwd_ms = [], []
    for i in range(warmup + iters):
        for t in (x, tw, w13, w2):
            t.grad = None
        timer.start()
        y = deep_gemm.mega_moe(x, idx, tw, w13, w2, precision=precision, validate=False)
        f = timer.stop()
        timer.start()
        y.backward(dy)
        b = timer.stop()
        if i >= warmup:
            fwd_ms.append(f)
            bwd_ms.append(b)
    fwd, bwd = sorted(fwd_ms)[len(fwd_ms) // 2], sorted(bwd_ms)[len(bwd_ms) // 2]
    flops = 6 * T * K * H * I
    tf = lambda n, ms: n / (ms * 1e-3) / 1e12  # noqa: E731
    print()
    print(f"{'backend':10s} {'pass':9s} {'ms (median)':>12s} {'TFLOP/s':>9s}")
    print(f"{backend:10s} {'forward':9s} {fwd:12.3f} {tf(flops, fwd):9.2f}")
    print(f"{backend:10s} {'backward':9s} {bwd:12.3f} {tf(2 * flops, bwd):9.2f}")
    print(f"{backend:10s} {'fwd+bwd':9s} {fwd + bwd:12.3f} {tf(3 * flops, fwd + bwd):9.2f}")
    print(f"({warmup} warm-up + {iters} timed iterations; "
          f"{'CUDA events' if device.type == 'cuda' else 'perf_counter'}; forward includes the routing metadata)")
    return 0 if ok else 1
