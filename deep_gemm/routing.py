"""MoE routing metadata: which (token, slot) pairs go to which expert, computed on the GPU
with no host synchronisation, so a layer using it can be captured in a CUDA graph.

Kernel: csrc/impls/moe_routing.cuh (entry point csrc/api/routing.cu).
Reference: deep_gemm/reference/routing.py.
"""
from __future__ import annotations

import ctypes
from typing import NamedTuple

import torch

from . import reference
from ._backend import backend_for, on_device, ptr, stream_of
from ._checks import check_tensor, is_tracing

_ENTRY = "pk_moe_routing"


class MoERouting(NamedTuple):
    counts: torch.Tensor          # int32 [E]: pairs routed to each expert
    offsets: torch.Tensor         # int32 [E+1]: exclusive prefix sum; offsets[E] = valid pairs
    sorted_pair: torch.Tensor     # int32 [T*K]: flat pair t*K+k at each sorted position, -1 past the end
    pair_to_sorted: torch.Tensor  # int32 [T*K]: sorted position of each pair, -1 if masked


def _routing(topk_idx: torch.Tensor, num_experts: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    backend = backend_for(topk_idx.device)
    if not backend.has(_ENTRY):
        return reference.moe_routing(topk_idx, num_experts)
    n = topk_idx.numel()
    dev = topk_idx.device
    i32 = dict(dtype=torch.int32, device=dev)
    counts = torch.empty(num_experts, **i32)
    offsets = torch.empty(num_experts + 1, **i32)
    sorted_pair = torch.empty(n, **i32)
    pair_to_sorted = torch.empty(n, **i32)
    lib = backend.lib
    ws_bytes = lib.query("pk_moe_routing_workspace_bytes", ctypes.c_int64(n), ctypes.c_int(num_experts))
    workspace = torch.empty(max(ws_bytes, 1), dtype=torch.uint8, device=dev)
    with on_device(dev):
        lib.call(_ENTRY, ptr(topk_idx), ctypes.c_int(topk_idx.element_size()), ctypes.c_int64(n),
                 ctypes.c_int(num_experts), ptr(workspace), ptr(counts), ptr(offsets),
                 ptr(sorted_pair), ptr(pair_to_sorted), stream_of(dev))
    return counts, offsets, sorted_pair, pair_to_sorted


@torch.library.custom_op("prime_kernels::moe_routing", mutates_args=())
def _moe_routing_op(topk_idx: torch.Tensor, num_experts: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    return _routing(topk_idx, num_experts)


@_moe_routing_op.register_fake
def _(topk_idx, num_experts):
    n = topk_idx.numel()
    new = lambda *s: topk_idx.new_empty(s, dtype=torch.int32)  # noqa: E731
    return new(num_experts), new(num_experts + 1), new(n), new(n)


def moe_routing(topk_idx: torch.Tensor, num_experts: int, *, validate: bool = True) -> MoERouting:
    """Routing metadata for topk_idx [T, K] (int64 or int32; -1 = masked slot).

    validate: check that every index is in [-1, E). That reads a flag back to the host, so it is
    skipped automatically under CUDA-graph capture and torch.compile; the kernel treats any
    out-of-range index as masked, so skipping it never corrupts memory.
    """
    check_tensor("topk_idx", topk_idx, dtypes=(torch.int64, torch.int32), ndim=2)
    if not isinstance(num_experts, int) or isinstance(num_experts, bool) or num_experts <= 0:
        raise ValueError(f"num_experts must be a positive int, got {num_experts!r}")
    if validate and not is_tracing(topk_idx) and topk_idx.numel() > 0:
        bad = (topk_idx < -1) | (topk_idx >= num_experts)
        if bool(bad.any()):
            v = topk_idx[bad][0].item()
            raise ValueError(f"topk_idx must hold expert indices in [-1, {num_experts}) "
                             f"(-1 = masked slot); found {v}")
    # Eager calls skip the custom op's dispatch (tens of µs of CPU, which the GPU waits out when the
    # routing kernels are the first work of a step); torch.compile / export trace the custom op.
    if is_tracing(topk_idx):
        return MoERouting(*_moe_routing_op(topk_idx, num_experts))
    return MoERouting(*_routing(topk_idx, num_experts))
