"""Reference MoE routing metadata (see deep_gemm.routing for the contract)."""
from __future__ import annotations

import torch


def moe_routing(topk_idx: torch.Tensor, num_experts: int):
    """counts [E], offsets [E+1], sorted_pair [T*K], pair_to_sorted [T*K], all int32.

    Pairs are ordered by expert, then by flat pair index t*K+k (a stable sort). Slots whose
    expert is outside [0, E) (e.g. -1) are masked: not counted, pair_to_sorted = -1, and
    sorted_pair is -1 past the number of valid pairs.
    """
    flat = topk_idx.reshape(-1).to(torch.int64)
    n = flat.numel()
    valid = (flat >= 0) & (flat < num_experts)
    key = torch.where(valid, flat, torch.full_like(flat, num_experts))
    order = torch.sort(key, stable=True).indices
    counts = torch.bincount(flat[valid], minlength=num_experts)[:num_experts]
    offsets = torch.zeros(num_experts + 1, dtype=torch.int64, device=flat.device)
    offsets[1:] = torch.cumsum(counts, 0)
    positions = torch.arange(n, device=flat.device)
    sorted_pair = torch.where(positions < offsets[-1], order, torch.full_like(order, -1))
    inverse = torch.empty_like(order)
    inverse[order] = positions
    pair_to_sorted = torch.where(valid, inverse, torch.full_like(inverse, -1))
    i32 = torch.int32
    return counts.to(i32), offsets.to(i32), sorted_pair.to(i32), pair_to_sorted.to(i32)
