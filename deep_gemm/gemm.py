"""DeepGEMM-compatible grouped GEMMs for MoE training, and the runtime knobs (SM count, alignment).

Every entry point checks its arguments (TypeError/ValueError naming the argument) and then runs
the custom op `torch.ops.prime_kernels.<its own name>` (deep_gemm/_gemm_ops.py: mutates `d`, so
torch.compile traces it without a graph break), which runs `kernels.call(<name>, device, <the
public arguments>)`: the arch's native function of that name when the device's backend has one,
else deep_gemm.reference.gemm.<name>. Outputs are written into the caller's `d`, as in DeepGEMM. Layouts and exact semantics: deep_gemm/reference/gemm.py.
"""
from __future__ import annotations

import torch

from . import _gemm_ops as _ops
from ._checks import check_tensor
from .config import FP8_BLOCK, MXFP8_BLOCK

FP8 = torch.float8_e4m3fn
_SCALE_DTYPES = (torch.float32, torch.uint8)

# ---- runtime knobs ----------------------------------------------------------------------------

_num_sms: int | None = None
_mk_alignment: int = 128


def set_num_sms(num_sms: int) -> None:
    """Limit the SMs the persistent kernels use (e.g. to leave room for communication kernels)."""
    if isinstance(num_sms, bool) or not isinstance(num_sms, int) or num_sms <= 0:
        raise ValueError(f"num_sms must be a positive int; got {num_sms!r}")
    if torch.cuda.is_available():
        total = torch.cuda.get_device_properties(torch.cuda.current_device()).multi_processor_count
        if num_sms > total:
            raise ValueError(f"num_sms = {num_sms} exceeds the {total} SMs of the current GPU")
    global _num_sms
    _num_sms = num_sms


def get_num_sms() -> int:
    """The SM count kernels use: the value set, else all SMs of the current GPU (0 with no GPU)."""
    if _num_sms is not None:
        return _num_sms
    if torch.cuda.is_available():
        return torch.cuda.get_device_properties(torch.cuda.current_device()).multi_processor_count
    return 0


def set_mk_alignment_for_contiguous_layout(alignment: int) -> None:
    """Row alignment of each group's start in the psum (offsets) contiguous layouts."""
    if isinstance(alignment, bool) or not isinstance(alignment, int) or alignment <= 0:
        raise ValueError(f"alignment must be a positive int; got {alignment!r}")
    global _mk_alignment
    _mk_alignment = alignment


def get_mk_alignment_for_contiguous_layout() -> int:
    return _mk_alignment


get_m_alignment_for_contiguous_layout = get_mk_alignment_for_contiguous_layout
get_k_alignment_for_contiguous_layout = get_mk_alignment_for_contiguous_layout


# ---- argument checks ---------------------------------------------------------------------------

def _dev(name: str, t: torch.Tensor, device: torch.device):
    if t.device != device:
        raise ValueError(f"{name} is on {t.device} but the other inputs are on {device}")


def _fp8_pair(name: str, t, ndim: int, device=None):
    if not isinstance(t, (tuple, list)) or len(t) != 2:
        raise TypeError(f"{name} must be a pair (E4M3 tensor, scales), as returned by the deep_gemm FP8 casts; "
                        f"got {type(t).__name__}")
    check_tensor(f"{name}[0]", t[0], dtypes=(FP8,), ndim=ndim, device=device)
    check_tensor(f"{name}[1]", t[1], dtypes=_SCALE_DTYPES, ndim=ndim, contiguous=False, device=t[0].device)
    return t[0]


def _fp8_k(name: str, k: int, sf: torch.Tensor):
    """K must be a whole number of scale blocks."""
    gran = FP8_BLOCK if sf.shape[-1] == -(-k // FP8_BLOCK) else MXFP8_BLOCK
    if k % gran:
        raise ValueError(f"{name}: K = {k} must be a multiple of {gran} (the FP8 scale block)")


def _fp8_ab(a, b, a_ndim: int, b_ndim: int):
    """The E4M3 tensors of the (tensor, scales) pairs a and b of an m-grouped FP8 GEMM, checked; a's K
    (its last dim) must be a whole number of scale blocks."""
    qa = _fp8_pair("a", a, a_ndim)
    qb = _fp8_pair("b", b, b_ndim, qa.device)
    _fp8_k("a", qa.shape[-1], a[1])
    return qa, qb


def _layout(grouped_layout, m: int, g: int, use_psum_layout: bool, device):
    if use_psum_layout:
        check_tensor("grouped_layout", grouped_layout, dtypes=(torch.int32,), shape=(g,), device=device)
    else:
        check_tensor("grouped_layout", grouped_layout, dtypes=(torch.int32,), shape=(m,), device=device)


def _check_m_contiguous(a, b, d, grouped_layout, use_psum_layout, nn: bool):
    m, k = a.shape
    dev = a.device
    _dev("b", b, dev)
    if b.dim() != 3:
        raise ValueError(f"b must be 3-D [G, {'K, N' if nn else 'N, K'}], got shape {list(b.shape)}")
    g = b.shape[0]
    n, kb = (b.shape[2], b.shape[1]) if nn else (b.shape[1], b.shape[2])
    if kb != k:
        raise ValueError(f"b must have K = {k} (a.shape[1]) in dim {1 if nn else 2}; got shape {list(b.shape)}")
    if g == 0:
        raise ValueError("b must hold at least one group")
    check_tensor("d", d, dtypes=(torch.bfloat16, torch.float32), shape=(m, n), device=dev)
    _layout(grouped_layout, m, g, use_psum_layout, dev)


def _check_masked(a, b, d, masked_m, expected_m):
    if a.dim() != 3:
        raise ValueError(f"a must be 3-D [G, M, K], got shape {list(a.shape)}")
    g, m, k = a.shape
    dev = a.device
    _dev("b", b, dev)
    if b.dim() != 3 or b.shape[0] != g or b.shape[2] != k:
        raise ValueError(f"b must have shape [G={g}, N, K={k}]; got {list(b.shape)}")
    check_tensor("d", d, dtypes=(torch.bfloat16, torch.float32), shape=(g, m, b.shape[1]), device=dev)
    check_tensor("masked_m", masked_m, dtypes=(torch.int32,), shape=(g,), device=dev)
    if isinstance(expected_m, bool) or not isinstance(expected_m, int) or expected_m <= 0:
        raise ValueError(f"expected_m must be a positive int (a hint of the typical masked_m); got {expected_m!r}")


def _check_k_grouped(a, b, d, ks_cpu, grouped_layout, c, use_psum_layout, gran: int | None):
    sum_k, m = a.shape
    dev = a.device
    _dev("b", b, dev)
    if b.dim() != 2 or b.shape[0] != sum_k:
        raise ValueError(f"b must have shape [sum_k={sum_k}, N]; got {list(b.shape)}")
    n = b.shape[1]
    check_tensor("d", d, dtypes=(torch.float32,), ndim=3, device=dev)
    g = d.shape[0]
    check_tensor("d", d, shape=(g, m, n))
    if c is not None:
        check_tensor("c", c, dtypes=(torch.float32,), shape=(g, m, n), device=dev)
    check_tensor("grouped_layout", grouped_layout, dtypes=(torch.int32,), shape=(g,), device=dev)
    if use_psum_layout:
        return
    if ks_cpu is not None:
        ks = list(ks_cpu)
        if len(ks) != g or any(isinstance(k, bool) or not isinstance(k, int) or k < 0 for k in ks):
            raise ValueError(f"ks_cpu must be a list of {g} non-negative ints (rows per group); got {ks_cpu!r}")
        if sum(ks) != sum_k:
            raise ValueError(f"ks_cpu must sum to a.shape[0] = {sum_k}; sums to {sum(ks)}")
        if gran is not None and any(k % gran for k in ks):
            raise ValueError(f"every ks_cpu entry must be a multiple of {gran} (the FP8 block along K); got {ks}")


def _l(t):
    return None if t is None else [int(v) for v in t]


def _k_args(ks_cpu, c, d):
    """(ks as a list or None, c unless it is d, accumulate-into-d flag)."""
    ks = None if ks_cpu is None else [int(k) for k in ks_cpu]
    if c is not None and c.data_ptr() == d.data_ptr() and c.shape == d.shape:
        return ks, None, True
    return ks, c, False


# ---- bf16 ---------------------------------------------------------------------------------------

def m_grouped_bf16_gemm_nt_contiguous(a: torch.Tensor, b: torch.Tensor, d: torch.Tensor,
                                      grouped_layout: torch.Tensor, compiled_dims: str = "nk",
                                      use_psum_layout: bool = False, ensure_zero_padding: bool = True,
                                      expected_m_for_psum_layout: int | None = None) -> None:
    """d[rows of g] = a[rows of g] @ b[g]^T. a bf16 [M, K], b bf16 [G, N, K], d bf16/fp32 [M, N]."""
    check_tensor("a", a, dtypes=(torch.bfloat16,), ndim=2)
    check_tensor("b", b, dtypes=(torch.bfloat16,))
    _check_m_contiguous(a, b, d, grouped_layout, use_psum_layout, nn=False)
    _ops.m_grouped_bf16_gemm_nt_contiguous(a, b, d, grouped_layout, compiled_dims, use_psum_layout,
                                           ensure_zero_padding, expected_m_for_psum_layout)


def m_grouped_bf16_gemm_nn_contiguous(a: torch.Tensor, b: torch.Tensor, d: torch.Tensor,
                                      grouped_layout: torch.Tensor, compiled_dims: str = "nk",
                                      use_psum_layout: bool = False, ensure_zero_padding: bool = True) -> None:
    """d[rows of g] = a[rows of g] @ b[g]. a bf16 [M, K], b bf16 [G, K, N], d [M, N] (data gradients)."""
    check_tensor("a", a, dtypes=(torch.bfloat16,), ndim=2)
    check_tensor("b", b, dtypes=(torch.bfloat16,))
    _check_m_contiguous(a, b, d, grouped_layout, use_psum_layout, nn=True)
    _ops.m_grouped_bf16_gemm_nn_contiguous(a, b, d, grouped_layout, compiled_dims, use_psum_layout,
                                           ensure_zero_padding)


def m_grouped_bf16_gemm_nt_masked(a: torch.Tensor, b: torch.Tensor, d: torch.Tensor, masked_m: torch.Tensor,
                                  expected_m: int, compiled_dims: str = "nk") -> None:
    """d[g, :masked_m[g]] = a[g, :masked_m[g]] @ b[g]^T. a [G, M, K], b [G, N, K] bf16, d [G, M, N]."""
    check_tensor("a", a, dtypes=(torch.bfloat16,))
    check_tensor("b", b, dtypes=(torch.bfloat16,))
    _check_masked(a, b, d, masked_m, expected_m)
    _ops.m_grouped_bf16_gemm_nt_masked(a, b, d, masked_m, expected_m, compiled_dims)


def k_grouped_bf16_gemm_tn_contiguous(a: torch.Tensor, b: torch.Tensor, d: torch.Tensor, ks_cpu,
                                      grouped_layout: torch.Tensor, c: torch.Tensor | None = None,
                                      compiled_dims: str = "mn", use_psum_layout: bool = False) -> None:
    """d[g] = c[g] + a[rows of g]^T @ b[rows of g]. a bf16 [sum_k, M], b bf16 [sum_k, N], d fp32 [G, M, N]."""
    check_tensor("a", a, dtypes=(torch.bfloat16,), ndim=2)
    check_tensor("b", b, dtypes=(torch.bfloat16,))
    _check_k_grouped(a, b, d, ks_cpu, grouped_layout, c, use_psum_layout, None)
    ks, c, acc = _k_args(ks_cpu, c, d)
    _ops.k_grouped_bf16_gemm_tn_contiguous(a, b, d, ks, grouped_layout, c, acc, compiled_dims, use_psum_layout)


# ---- fp8 ----------------------------------------------------------------------------------------

def m_grouped_fp8_gemm_nt_contiguous(a, b, d: torch.Tensor, grouped_layout: torch.Tensor, recipe=None,
                                     recipe_a=None, recipe_b=None, compiled_dims: str = "nk",
                                     disable_ue8m0_cast: bool = False, use_psum_layout: bool = False,
                                     ensure_zero_padding: bool = True,
                                     expected_m_for_psum_layout: int | None = None) -> None:
    """FP8 form of m_grouped_bf16_gemm_nt_contiguous: a = (E4M3 [M, K], per-token scales [M, K/128]),
    b = (E4M3 [G, N, K], per-block scales [G, N/128, K/128]); MXFP8 uses 1x32 UE8M0 scales."""
    qa, qb = _fp8_ab(a, b, 2, 3)
    _check_m_contiguous(qa, qb, d, grouped_layout, use_psum_layout, nn=False)
    _ops.m_grouped_fp8_gemm_nt_contiguous(a[0], a[1], b[0], b[1], d, grouped_layout, _l(recipe), _l(recipe_a),
                                          _l(recipe_b), compiled_dims, disable_ue8m0_cast, use_psum_layout,
                                          ensure_zero_padding, expected_m_for_psum_layout)


def m_grouped_fp8_gemm_nn_contiguous(a, b, d: torch.Tensor, grouped_layout: torch.Tensor, recipe=None,
                                     recipe_a=None, recipe_b=None, compiled_dims: str = "nk",
                                     disable_ue8m0_cast: bool = False, use_psum_layout: bool = False,
                                     ensure_zero_padding: bool = True) -> None:
    """FP8 nn form (data gradients): b = (E4M3 [G, K, N], block scales [G, K/128, N/128])."""
    qa, qb = _fp8_ab(a, b, 2, 3)
    _check_m_contiguous(qa, qb, d, grouped_layout, use_psum_layout, nn=True)
    _ops.m_grouped_fp8_gemm_nn_contiguous(a[0], a[1], b[0], b[1], d, grouped_layout, _l(recipe), _l(recipe_a),
                                          _l(recipe_b), compiled_dims, disable_ue8m0_cast, use_psum_layout,
                                          ensure_zero_padding)


def m_grouped_fp8_gemm_nt_masked(a, b, d: torch.Tensor, masked_m: torch.Tensor, expected_m: int, recipe=None,
                                 recipe_a=None, recipe_b=None, compiled_dims: str = "nk",
                                 disable_ue8m0_cast: bool = False) -> None:
    """FP8 form of m_grouped_bf16_gemm_nt_masked: a = (E4M3 [G, M, K], scales [G, M, K/128])."""
    qa, qb = _fp8_ab(a, b, 3, 3)
    _check_masked(qa, qb, d, masked_m, expected_m)
    _ops.m_grouped_fp8_gemm_nt_masked(a[0], a[1], b[0], b[1], d, masked_m, expected_m, _l(recipe), _l(recipe_a),
                                      _l(recipe_b), compiled_dims, disable_ue8m0_cast)


def k_grouped_fp8_gemm_tn_contiguous(a, b, d: torch.Tensor, ks_cpu, grouped_layout: torch.Tensor,
                                     c: torch.Tensor | None = None, recipe=(1, 1, 128), compiled_dims: str = "mn",
                                     use_psum_layout: bool = False) -> None:
    """FP8 weight-gradient GEMM: a = (E4M3 [sum_k, M], per-channel scales [sum_k/g, M]), b likewise with N;
    g = recipe[2] (128, or 32 for MXFP8); every group's row count a multiple of g."""
    if not (isinstance(recipe, (tuple, list)) and len(recipe) == 3 and tuple(recipe[:2]) == (1, 1)
            and recipe[2] in (FP8_BLOCK, MXFP8_BLOCK)):
        raise ValueError(f"recipe must be (1, 1, 128) or (1, 1, 32); got {recipe!r}")
    qa = _fp8_pair("a", a, 2)
    qb = _fp8_pair("b", b, 2, qa.device)
    _check_k_grouped(qa, qb, d, ks_cpu, grouped_layout, c, use_psum_layout, recipe[2])
    ks, c, acc = _k_args(ks_cpu, c, d)
    _ops.k_grouped_fp8_gemm_tn_contiguous(a[0], a[1], b[0], b[1], d, ks, grouped_layout, c, acc, list(recipe),
                                          compiled_dims, use_psum_layout)


# DeepGEMM's legacy aliases
bf16_m_grouped_gemm_nt_masked = m_grouped_bf16_gemm_nt_masked
fp8_m_grouped_gemm_nt_masked = m_grouped_fp8_gemm_nt_masked
