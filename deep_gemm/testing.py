"""Accuracy helpers (DeepGEMM's conventions)."""
from __future__ import annotations

import torch


def calc_diff(x: torch.Tensor, y: torch.Tensor) -> float:
    """1 - 2*sum(x*y) / sum(x*x + y*y), in float64: 0 for identical tensors, ~1e-5 for good bf16 GEMMs."""
    x, y = x.detach().double(), y.detach().double()
    denom = (x * x + y * y).sum()
    if float(denom) == 0.0:
        return 0.0
    return float(1 - 2 * (x * y).sum() / denom)


_REL_L2_CHUNK = 1 << 24  # elements a float64 slice: the real-shape weight gradients (1.6e9 elements) fit an 80 GB GPU


def rel_l2(x: torch.Tensor, ref: torch.Tensor) -> float:
    """||x - ref|| / ||ref|| in float64 (||x - ref|| when ref is all zeros); NaN never passes. Computed over
    slices, so that no float64 copy of a whole operand is made."""
    x, ref = x.detach(), ref.detach().to(x.device)
    if x.shape != ref.shape:
        raise ValueError(f"rel_l2: x has shape {tuple(x.shape)}, ref {tuple(ref.shape)}; expected the same")
    xf, rf = x.reshape(-1), ref.reshape(-1)
    err_sq = torch.zeros((), dtype=torch.float64, device=x.device)
    ref_sq = torch.zeros((), dtype=torch.float64, device=x.device)
    for i in range(0, xf.numel(), _REL_L2_CHUNK):
        xs, rs = xf[i:i + _REL_L2_CHUNK].double(), rf[i:i + _REL_L2_CHUNK].double()
        err_sq += (xs - rs).square().sum()
        ref_sq += rs.square().sum()
    err, den = err_sq.sqrt().item(), ref_sq.sqrt().item()
    return err / den if den > 0 else err


def cuda_time_ms(fn, reps: int = 20, warmup: int = 3, spread: bool = False):
    """Median milliseconds of fn() over reps runs, timed with CUDA events after warm-up
    ((median, min, max) with spread=True)."""
    import statistics
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    median = statistics.median(times)
    return (median, min(times), max(times)) if spread else median


def cuda_sustained_ms(fn, seconds: float = 2.0, warmup: int = 3) -> float:
    """Milliseconds per call of fn() run back to back for about `seconds` (one pair of CUDA events around
    the whole run): the steady state of a training loop, where an H200 sits at its power cap and the CPU
    runs ahead of the GPU, unlike cuda_time_ms's synchronised calls (the GPU idles between them and
    starts each call cooler)."""
    import time
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    n, t0 = 0, time.perf_counter()
    start.record()
    while time.perf_counter() - t0 < seconds:
        fn()
        n += 1
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / n
