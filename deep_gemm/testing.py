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
