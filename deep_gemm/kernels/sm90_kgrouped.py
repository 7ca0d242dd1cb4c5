"""Hopper k-grouped weight-gradient GEMM (the token dimension is the reduction), rows gathered
on the fly. Kernel: csrc/sm90/kgrouped_wgrad.cuh, entry point csrc/api/sm90_kgrouped.cu.

    out[g] = (accumulate ? out[g] : 0) + sum_{r in [offsets[g], offsets[g+1])} a[a_rows[r]]^T (x) b[b_rows[r]]

The MoE backward uses it twice (sorted pair r, token(r) = its token index):
    dW2[e] [H, I]  = sum_r dy[token(r)] (x) hw[r]:  a = dy [T, H], a_rows = token(r); b = hw [T*K, I]
    dW1[e] [2I, H] = sum_r dz[r] (x) x[token(r)]:   a = dz [T*K, 2I];  b = x [T, H], b_rows = token(r)
offsets lives on the device and is never read on the host (no sync: CUDA-graph capturable).
"""
from __future__ import annotations

import ctypes
import os

import torch

from .._backend import backend_for, on_device, ptr, stream_of
from .._checks import check_tensor
from . import NotSupportedHere

_ENTRY = "pk_sm90_k_grouped_wgrad"

# Pipeline variants of the kernel (the entry point's `variant`; 0 there = its default for the out dtype).
VARIANTS = {
    "lean": 8,           # lean producer loop, 64-row chunks, 4 stages, wait_group 1, direct stores: DEFAULT (plain
                         # fp32 out, b not shared)
    "staged": 10,        # + bf16 tile through shared memory, bulk-copy stores (3 stages)
    "staged_f32": 12,    # + fp32 outs staged in two halves, accumulate by bulk fp32 adds
    "staged_wait0": 13,  # staged_f32 with wait_group 0 (two chunks of lookahead)
    "staged_tma": 16,    # staged_wait0 with tiles stored / reduce-added by TMA: DEFAULT (accumulate, A identity,
                         # B not gathered)
    "split_bk128": 19,   # staged_tma through a 16 KiB buffer a warpgroup in column passes, 128-row chunks in
                         # 2 stages: DEFAULT (fp32 accumulate of the swapped dW1)
    "split_bk128_defer_tail": 21,  # split_bk128 with a bf16 tile's last pass written during the next tile's first
                                   # chunk
    "wide_bk64": 28,     # 128 x 384 tiles where the cluster-shared identity side's width allows (else as 21): 64-row
                         # chunks in 3 stages, bf16 passes of 64 columns (fp32: 32, not transposed) alternating
                         # between two staging halves: DEFAULT (bf16 out; fp32 out and accumulate with B
                         # identity shared; fp32 out of the swapped dW1)
}


def _lib(device: torch.device):
    backend = backend_for(device)
    if not backend.has(_ENTRY):
        raise NotSupportedHere(f"backend {backend.name} for {device} has no {_ENTRY}")
    return backend.lib


def k_grouped_wgrad(a: torch.Tensor, a_rows: torch.Tensor | None, b: torch.Tensor,
                    b_rows: torch.Tensor | None, offsets: torch.Tensor, out: torch.Tensor,
                    accumulate: bool = False, *, _max_ctas: int = 0,
                    _block_n: int = 0, _use_tma: bool = True, _debug: int = 0,
                    _variant: int = 0, _group_order: torch.Tensor | None = None) -> torch.Tensor:
    """out[g] (+)= sum over reduction rows r of group g of a[a_rows[r]]^T (x) b[b_rows[r]], accumulated
    in fp32 and written as out's dtype (fp32, or bf16 rounded once: the parameter-dtype gradient
    without an fp32 copy and a cast; accumulate needs fp32).

    a: bf16 [Ra, M]; a_rows: int32 [R] or None (row r of a); b: bf16 [Rb, N]; b_rows: int32 [R] or
    None; offsets: int32 [G+1] on the GPU (group g owns rows offsets[g]..offsets[g+1]-1; rows at
    or past offsets[G] are ignored); out: fp32 or bf16 [G, M, N]. R = len(a_rows) if given, else Ra (and
    likewise for b; both must agree). Index entries of rows that are used must lie in [0, Ra)
    (resp. [0, Rb)); an out-of-range index reads as a zero row. Returns out.

    Tuning only: _variant picks the kernel's pipeline shape (0 = the default: 28 for a bf16 out; for an
    fp32 one 28 with b identity (2-CTA pairs sharing it), else 16 to accumulate and 8 for a plain out; the
    ids are those of notes/sm90_kgrouped.md). See VARIANTS. An out with a identity and b gathered (the
    MoE's dW1) runs in pipeline 28 (bf16, plain fp32) or 19 (fp32 accumulate; an explicit 19, 21 or 28 too)
    with the operands swapped, so that the gathered side is the tile's narrow one, and the tiles stored
    transposed (_debug bit 10 keeps the orientation); its identity side is shared by 4-CTA clusters for an
    accumulate where b's columns / 128 is a multiple of 4, else by 2-CTA pairs (_debug bit 11 forces 4, bit
    12 pairs).

    _group_order (int32 [G] on the GPU, a permutation of 0..G-1 with the groups by descending row count, e.g.
    group_order_by_rows(offsets); not checked on the device): the CTAs walk the tiles in a balanced order
    (those groups' tiles first, each round of the grid dealt forwards then backwards), so that skewed groups
    do not leave the CTAs that drew the busiest groups' tiles finishing last. None: the tiles in group order.
    """
    check_tensor("a", a, dtypes=(torch.bfloat16,), ndim=2)
    dev = a.device
    check_tensor("b", b, dtypes=(torch.bfloat16,), ndim=2, device=dev)
    check_tensor("offsets", offsets, dtypes=(torch.int32,), ndim=1, device=dev)
    check_tensor("out", out, dtypes=(torch.float32, torch.bfloat16), ndim=3, device=dev)
    out_bf16 = out.dtype == torch.bfloat16
    if out_bf16 and accumulate:
        raise ValueError("out: accumulate=True needs a float32 out (a bf16 out is written, not added to)")
    if not out.is_contiguous():
        raise ValueError("out must be contiguous")
    if out.data_ptr() % 16:
        raise ValueError("out must be 16-byte aligned (its storage offset makes it "
                         f"{out.data_ptr() % 16}-byte off); the kernel stores 8- and 16-byte vectors and by TMA")
    for name, rows in (("a_rows", a_rows), ("b_rows", b_rows)):
        if rows is not None:
            check_tensor(name, rows, dtypes=(torch.int32,), ndim=1, device=dev)
    if _group_order is not None:
        check_tensor("_group_order", _group_order, dtypes=(torch.int32,), ndim=1, device=dev)
        if _group_order.numel() != offsets.numel() - 1:
            raise ValueError(f"_group_order must have one entry a group ({offsets.numel() - 1}), "
                             f"got {_group_order.numel()}")
    r_a = a_rows.numel() if a_rows is not None else a.shape[0]
    r_b = b_rows.numel() if b_rows is not None else b.shape[0]
    if r_a != r_b:
        raise ValueError(f"a_rows/b_rows: the reduction length must agree: {r_a} rows on the a side "
                         f"(len(a_rows) or a.shape[0]) vs {r_b} on the b side")
    if _variant != 0 and _variant not in VARIANTS.values():
        raise ValueError(f"_variant must be 0 or one of {sorted(VARIANTS.values())}, got {_variant}")
    num_groups = offsets.numel() - 1
    if num_groups < 0:
        raise ValueError("offsets must have G+1 >= 1 entries")
    M, N = a.shape[1], b.shape[1]
    if tuple(out.shape) != (num_groups, M, N):
        raise ValueError(f"out must have shape [{num_groups}, {M}, {N}] (G from offsets, M from a, "
                         f"N from b), got {list(out.shape)}")
    if dev.type != "cuda":
        raise NotSupportedHere("k_grouped_wgrad: CPU tensors")
    if M % 128 or N % 128:
        raise NotSupportedHere(f"k_grouped_wgrad needs M and N multiples of 128, got M={M} N={N}")
    if max(r_a, a.shape[0], b.shape[0]) >= 2**31:
        raise NotSupportedHere("k_grouped_wgrad: more than 2^31 reduction rows")
    if num_groups == 0:
        return out
    lib = _lib(dev)
    with on_device(dev):
        lib.call(_ENTRY, ptr(a), ptr(a_rows), ctypes.c_int64(a.shape[0]), ptr(b), ptr(b_rows),
                 ctypes.c_int64(b.shape[0]), ctypes.c_int64(r_a), ptr(offsets), ptr(_group_order),
                 ctypes.c_int(num_groups), ctypes.c_int(M), ctypes.c_int(N), ptr(out),
                 ctypes.c_int(int(out_bf16)), ctypes.c_int(1 if accumulate else 0), ctypes.c_int(int(_max_ctas)),
                 ctypes.c_int(int(_block_n)), ctypes.c_int(1 if _use_tma else 0),
                 ctypes.c_int(int(_debug)), ctypes.c_int(int(_variant)), stream_of(dev))
    return out


def balanced_walk() -> bool:
    """Whether the weight-gradient GEMMs walk their tiles in the balanced order (_group_order):
    PK_SM90_WGRAD_WALK=balanced (groups by descending row count, each round of the grid dealt forwards then
    backwards, so that skewed groups do not leave the CTAs holding the busiest groups' tiles finishing last;
    opt-in until it has passed the GPU tests and been measured, notes/sm90_moe_kernels.md "Session 42") or
    plain (the default: group order)."""
    mode = os.environ.get("PK_SM90_WGRAD_WALK", "plain").strip().lower() or "plain"
    if mode not in ("balanced", "plain"):
        raise ValueError(f"PK_SM90_WGRAD_WALK must be 'balanced' or 'plain', got {mode!r}")
    return mode == "balanced"


def group_order_by_rows(offsets: torch.Tensor) -> torch.Tensor:
    """The groups of offsets (int32 [G + 1]) by descending row count, ties in group order: int32 [G] on the
    same device (no host sync), for k_grouped_wgrad's _group_order."""
    return torch.argsort(offsets.diff(), descending=True, stable=True).to(torch.int32)


def k_grouped_bf16_gemm_tn_contiguous(a: torch.Tensor, b: torch.Tensor, d: torch.Tensor, ks_cpu,
                                      grouped_layout: torch.Tensor, c: torch.Tensor | None = None,
                                      compiled_dims: str = "mn", use_psum_layout: bool = False) -> None:
    """Native form of deep_gemm.reference.k_grouped_bf16_gemm_tn_contiguous (same semantics):
    d[g] = c[g] + a[rows of g]^T @ b[rows of g]; a bf16 [sum_k, M], b bf16 [sum_k, N], d fp32 [G, M, N].

    Group row ranges: ks_cpu (host list of sizes) when given, else grouped_layout (int32 [G] sizes
    on the device, prefix-summed there: no host sync); use_psum_layout: grouped_layout holds end
    rows, supported when the mk alignment is 1 (gap-free), else NotSupportedHere.
    """
    if d.dtype != torch.float32:
        raise NotSupportedHere(f"k_grouped_bf16_gemm_tn_contiguous: d must be float32 here, got {d.dtype}")
    if d.dim() != 3:
        raise ValueError(f"d must be 3-D [G, M, N], got shape {list(d.shape)}")
    dev = a.device
    G = d.shape[0]
    if use_psum_layout:
        from ..gemm import get_mk_alignment_for_contiguous_layout
        if get_mk_alignment_for_contiguous_layout() != 1:
            raise NotSupportedHere("use_psum_layout with an mk alignment other than 1 (gaps between groups)")
        check_tensor("grouped_layout", grouped_layout, dtypes=(torch.int32,), shape=(G,), device=dev)
        offsets = torch.zeros(G + 1, dtype=torch.int32, device=dev)
        offsets[1:] = grouped_layout
    elif ks_cpu is not None:
        ks = [int(k) for k in ks_cpu]
        if len(ks) != G or any(k < 0 for k in ks):
            raise ValueError(f"ks_cpu must hold {G} non-negative group sizes, got {ks_cpu!r}")
        ends = [0]
        for k in ks:
            ends.append(ends[-1] + k)
        offsets = torch.tensor(ends, dtype=torch.int32).to(dev, non_blocking=True)
    else:
        check_tensor("grouped_layout", grouped_layout, dtypes=(torch.int32,), shape=(G,), device=dev)
        offsets = torch.zeros(G + 1, dtype=torch.int32, device=dev)
        offsets[1:] = torch.cumsum(grouped_layout, 0, dtype=torch.int32)
    group_order = group_order_by_rows(offsets) if balanced_walk() else None
    accumulate = False
    if c is not None:
        check_tensor("c", c, dtypes=(torch.float32,), shape=tuple(d.shape), device=dev)
        if c.data_ptr() != d.data_ptr():
            d.copy_(c)
        accumulate = True
    if d.data_ptr() % 16:  # a view at an odd offset: the kernel stores 16-byte vectors, so go through a copy
        tmp = d.clone() if accumulate else torch.empty_like(d)
        k_grouped_wgrad(a, None, b, None, offsets, tmp, accumulate=accumulate, _group_order=group_order)
        d.copy_(tmp)
        return
    k_grouped_wgrad(a, None, b, None, offsets, d, accumulate=accumulate, _group_order=group_order)
