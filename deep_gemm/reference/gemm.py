"""Reference grouped GEMMs (DeepGEMM names and argument conventions; results written into `d`).

Naming: `nt` = D = A @ B^T with B stored [N, K] per group (K-major, a PyTorch Linear weight);
`nn` = D = A @ B with B stored [K, N] per group; `tn` = D = A^T @ B with A [sum_k, M], B [sum_k, N].
Accumulation is fp32 (float64 for float64 inputs), then rounded once to d's dtype.

Layouts
-------
m-grouped contiguous: A [M, K] holds the rows of all groups one after another; B [G, N, K]
(`nn`: [G, K, N]); D [M, N]. `grouped_layout` (int32, on A's device) says which rows belong to
which group, in one of DeepGEMM's two forms:
  use_psum_layout=False: m_indices [M]: the group of each row; -1 marks a padding row.
  use_psum_layout=True:  [G] exclusive end row of each group (prefix sums of the group sizes).
      Group g starts at align(grouped_layout[g-1], get_mk_alignment_for_contiguous_layout())
      (0 for g = 0), so each group starts on an alignment boundary; the default alignment is 128
      and set_mk_alignment_for_contiguous_layout(1) gives a gap-free offsets layout.
  Rows of D that belong to no group (padding, gaps) are not written.
m-grouped masked: A [G, M_max, K], B [G, N, K], D [G, M_max, N]; masked_m int32 [G]: only rows
  m < masked_m[g] of group g are computed, the rest of D is not written. expected_m is a
  scheduling hint only.
k-grouped contiguous (`tn`, weight gradients): A [sum_k, M], B [sum_k, N], D [G, M, N] fp32:
  D[g] = C[g] + A[rows of g]^T @ B[rows of g] (C = None means 0; C may be D itself).
  Row ranges: use_psum_layout=False: consecutive groups of ks_cpu[g] rows (ks_cpu a list of ints;
  when None, grouped_layout int32 [G] holds the same sizes); use_psum_layout=True: grouped_layout
  [G] = exclusive end rows, group g starting at align(end[g-1], mk alignment).

FP8 operands are (tensor, scales) pairs in the layouts of deep_gemm.reference.quant:
  A of m-grouped: E4M3 [.., M, K] with per-token scales [.., M, K/128] (fp32) or, MXFP8,
      [.., M, K/32] (fp32 powers of two or uint8 UE8M0).
  B of nt: E4M3 [G, N, K] with per-block scales [G, N/128, K/128], or per-row [G, N, K/g] (MXFP8 g = 32).
  B of nn: E4M3 [G, K, N] with per-block scales [G, K/128, N/128], or per-column [G, K/32, N] (MXFP8).
  k-grouped A, B: E4M3 [sum_k, M] / [sum_k, N] with per-channel scales [sum_k/g, M] / [sum_k/g, N]
      (g = recipe[2], 128 or 32); every group's row range must start on a multiple of g.
The GEMM multiplies the dequantized values (float(q) * scale) with fp32 accumulation.
"""
from __future__ import annotations

import torch

from .quant import align, ceil_div, dequantize_blocks


def _mk_alignment() -> int:
    from ..gemm import get_mk_alignment_for_contiguous_layout
    return get_mk_alignment_for_contiguous_layout()


def _acc(t: torch.Tensor) -> torch.dtype:
    return torch.float64 if t.dtype == torch.float64 else torch.float32


def psum_ranges(ends: list[int], alignment: int) -> list[tuple[int, int]]:
    out, prev = [], 0
    for e in ends:
        start = align(prev, alignment) if out else 0
        out.append((start, e))
        prev = e
    return out


def _row_masks_or_ranges(grouped_layout: torch.Tensor, num_groups: int, use_psum_layout: bool):
    """[(g, rows)] where rows is a slice or a bool mask."""
    if use_psum_layout:
        return [(g, slice(s, e)) for g, (s, e) in enumerate(psum_ranges(grouped_layout.tolist(), _mk_alignment()))]
    gl = grouped_layout.long()
    return [(g, gl == g) for g in range(num_groups)]


# ---- operand dequantization -----------------------------------------------------------------

def _gran_for(k: int, n_scales: int, what: str) -> int:
    for g in (128, 32):
        if ceil_div(k, g) == n_scales:
            return g
    raise ValueError(f"{what} has {n_scales} scales along a dimension of {k}: expected {ceil_div(k, 128)} "
                     f"(128-element blocks) or {ceil_div(k, 32)} (32-element MXFP8 blocks)")


def dequant_a(a) -> torch.Tensor:
    """(E4M3 [.., M, K], per-token scales [.., M, K/g]) -> fp32 [.., M, K]."""
    q, sf = a
    return dequantize_blocks(q, sf, 1, _gran_for(q.shape[-1], sf.shape[-1], "the scales of a"))


def dequant_b(b, major: str) -> torch.Tensor:
    """B of an nt GEMM ([G, N, K], major='k') or an nn GEMM ([G, K, N], major='mn')."""
    q, sf = b
    rows, cols = q.shape[-2], q.shape[-1]
    block = (sf.shape[-2], sf.shape[-1]) == (ceil_div(rows, 128), ceil_div(cols, 128))
    if major == "k" and sf.shape[-2] == rows:      # per-row blocks along K
        return dequantize_blocks(q, sf, 1, _gran_for(cols, sf.shape[-1], "the scales of b"))
    if major == "mn" and sf.shape[-1] == cols:     # per-column blocks along K
        return dequantize_blocks(q, sf, _gran_for(rows, sf.shape[-2], "the scales of b"), 1)
    if block:
        return dequantize_blocks(q, sf, 128, 128)
    raise ValueError(f"the scales of b have shape {list(sf.shape)}; for b of shape {list(q.shape)} expected "
                     f"128x128 block scales [.., {ceil_div(rows, 128)}, {ceil_div(cols, 128)}] or per-"
                     f"{'row' if major == 'k' else 'column'} scales")


def dequant_k_grouped(t, gran: int) -> torch.Tensor:
    q, sf = t
    return dequantize_blocks(q, sf, gran, 1)


# ---- m-grouped contiguous -----------------------------------------------------------------------

def _m_grouped_contiguous(a: torch.Tensor, b_nk: torch.Tensor, d: torch.Tensor, grouped_layout, use_psum_layout):
    acc = _acc(d) if d.dtype == torch.float64 else torch.float32
    for g, rows in _row_masks_or_ranges(grouped_layout, b_nk.shape[0], use_psum_layout):
        ar = a[rows]
        if ar.shape[0]:
            d[rows] = (ar.to(acc) @ b_nk[g].to(acc).T).to(d.dtype)


def m_grouped_bf16_gemm_nt_contiguous(a, b, d, grouped_layout, compiled_dims="nk", use_psum_layout=False,
                                      ensure_zero_padding=True, expected_m_for_psum_layout=None):
    """d[rows of g] = a[rows of g] @ b[g]^T; a bf16 [M, K], b bf16 [G, N, K], d bf16/fp32 [M, N]."""
    _m_grouped_contiguous(a, b, d, grouped_layout, use_psum_layout)


def m_grouped_bf16_gemm_nn_contiguous(a, b, d, grouped_layout, compiled_dims="nk", use_psum_layout=False,
                                      ensure_zero_padding=True):
    """d[rows of g] = a[rows of g] @ b[g]; a bf16 [M, K], b bf16 [G, K, N], d [M, N]."""
    _m_grouped_contiguous(a, b.transpose(1, 2), d, grouped_layout, use_psum_layout)


def m_grouped_fp8_gemm_nt_contiguous(a, b, d, grouped_layout, recipe=None, recipe_a=None, recipe_b=None,
                                     compiled_dims="nk", disable_ue8m0_cast=False, use_psum_layout=False,
                                     ensure_zero_padding=True, expected_m_for_psum_layout=None):
    """As the bf16 form with a = (E4M3 [M, K], scales), b = (E4M3 [G, N, K], scales)."""
    _m_grouped_contiguous(dequant_a(a), dequant_b(b, "k"), d, grouped_layout, use_psum_layout)


def m_grouped_fp8_gemm_nn_contiguous(a, b, d, grouped_layout, recipe=None, recipe_a=None, recipe_b=None,
                                     compiled_dims="nk", disable_ue8m0_cast=False, use_psum_layout=False,
                                     ensure_zero_padding=True):
    """As the bf16 nn form with a = (E4M3 [M, K], scales), b = (E4M3 [G, K, N], scales)."""
    _m_grouped_contiguous(dequant_a(a), dequant_b(b, "mn").transpose(1, 2), d, grouped_layout, use_psum_layout)


# ---- m-grouped masked -----------------------------------------------------------------------------

def _masked(a: torch.Tensor, b_nk: torch.Tensor, d: torch.Tensor, masked_m: torch.Tensor):
    acc = torch.float64 if d.dtype == torch.float64 else torch.float32
    full = torch.bmm(a.to(acc), b_nk.to(acc).transpose(1, 2)).to(d.dtype)
    keep = torch.arange(a.shape[1], device=a.device)[None, :] < masked_m.to(a.device).long()[:, None]
    d.copy_(torch.where(keep[:, :, None], full, d))


def m_grouped_bf16_gemm_nt_masked(a, b, d, masked_m, expected_m, compiled_dims="nk"):
    """d[g, :masked_m[g]] = a[g, :masked_m[g]] @ b[g]^T; a [G, M, K], b [G, N, K], d [G, M, N]."""
    _masked(a, b, d, masked_m)


def m_grouped_fp8_gemm_nt_masked(a, b, d, masked_m, expected_m, recipe=None, recipe_a=None, recipe_b=None,
                                 compiled_dims="nk", disable_ue8m0_cast=False):
    """As the bf16 form with a = (E4M3 [G, M, K], scales [G, M, K/g]), b = (E4M3 [G, N, K], scales)."""
    _masked(dequant_a(a), dequant_b(b, "k"), d, masked_m)


# ---- k-grouped (weight gradients) ---------------------------------------------------------------

def k_group_ranges(ks_cpu, grouped_layout: torch.Tensor, num_groups: int, use_psum_layout: bool):
    if use_psum_layout:
        return psum_ranges(grouped_layout.tolist(), _mk_alignment())
    ks = list(ks_cpu) if ks_cpu is not None else grouped_layout.tolist()
    out, s = [], 0
    for k in ks:
        out.append((s, s + int(k)))
        s += int(k)
    return out


def _k_grouped(a: torch.Tensor, b: torch.Tensor, d: torch.Tensor, ks_cpu, grouped_layout, c, use_psum_layout):
    acc = torch.float64 if d.dtype == torch.float64 else torch.float32
    base = c.clone() if c is not None else None
    for g, (s, e) in enumerate(k_group_ranges(ks_cpu, grouped_layout, d.shape[0], use_psum_layout)):
        r = a[s:e].to(acc).T @ b[s:e].to(acc)
        d[g] = (r + base[g].to(acc) if base is not None else r).to(d.dtype)


def k_grouped_bf16_gemm_tn_contiguous(a, b, d, ks_cpu, grouped_layout, c=None, compiled_dims="mn",
                                      use_psum_layout=False):
    """d[g] = c[g] + a[rows of g]^T @ b[rows of g]; a bf16 [sum_k, M], b bf16 [sum_k, N], d fp32 [G, M, N]."""
    _k_grouped(a, b, d, ks_cpu, grouped_layout, c, use_psum_layout)


def k_grouped_fp8_gemm_tn_contiguous(a, b, d, ks_cpu, grouped_layout, c=None, recipe=(1, 1, 128),
                                     compiled_dims="mn", use_psum_layout=False):
    """As the bf16 form with per-channel (recipe[2] x 1) quantized a = (E4M3 [sum_k, M], [sum_k/g, M]),
    b = (E4M3 [sum_k, N], [sum_k/g, N])."""
    gran = recipe[2]
    _k_grouped(dequant_k_grouped(a, gran), dequant_k_grouped(b, gran), d, ks_cpu, grouped_layout, c,
               use_psum_layout)
