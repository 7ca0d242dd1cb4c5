"""FP8 (E4M3) and MXFP8 casts, their inverses, and scale-layout helpers (DeepGEMM names).

The casts check their arguments and run the custom op torch.ops.prime_kernels.<name>
(deep_gemm/_quant_ops.py), which runs `kernels.call(<name>, device, ...)`: a native kernel of
that name when the device's backend has one, else deep_gemm.reference.quant.<name>, whose
docstring gives the exact arithmetic (amax / 448 per block, optional power-of-two UE8M0 scales,
saturating E4M3).
"""
from __future__ import annotations

import torch

from . import _quant_ops as _ops
from ._checks import check_tensor
from .reference.quant import (align, ceil_div, ceil_to_ue8m0, float_to_ue8m0, pack_ue8m0_to_int,  # noqa: F401
                              ue8m0_to_float, unpack_ue8m0_from_int)

_FLOATS = (torch.bfloat16, torch.float16, torch.float32, torch.float64)
_SCALES = (torch.float32, torch.uint8)


def _check_x(x, what: str = "x"):
    check_tensor(what, x, dtypes=_FLOATS, contiguous=False)
    if x.dim() not in (2, 3):
        raise ValueError(f"{what} must be 2-D [M, K] or 3-D [G, M, K], got shape {list(x.shape)}")


def _check_gran(gran_k):
    if gran_k not in (32, 128):
        raise ValueError(f"gran_k must be 128 (FP8 blocks) or 32 (MXFP8 blocks); got {gran_k!r}")


def _check_q(x, sf, sf_shape):
    check_tensor("x", x, dtypes=(torch.float8_e4m3fn,), contiguous=False)
    check_tensor("sf", sf, dtypes=_SCALES + (torch.int32,), contiguous=False, device=x.device)
    if tuple(sf.shape) != tuple(sf_shape) and sf.dtype != torch.int32:
        raise ValueError(f"sf must have shape {list(sf_shape)} for x of shape {list(x.shape)}; got {list(sf.shape)}")


def per_token_cast_to_fp8(x: torch.Tensor, use_ue8m0: bool = False, gran_k: int = 128,
                          use_packed_ue8m0: bool = False):
    """Per-token (1 x gran_k) E4M3 cast: x [M, K] -> (E4M3 [M, K], scales [M, ceil(K/gran_k)] fp32;
    int32-packed UE8M0 [M, ceil(K/gran_k/4)] with use_packed_ue8m0)."""
    _check_x(x)
    _check_gran(gran_k)
    return _ops.per_token_cast_to_fp8(x, use_ue8m0, gran_k, use_packed_ue8m0)


def per_block_cast_to_fp8(x: torch.Tensor, use_ue8m0: bool = False, gran_k: int = 128):
    """Per-block (gran_k x gran_k) E4M3 cast of weights: x [N, K] (or [G, N, K]) ->
    (E4M3, fp32 scales [.., ceil(N/gran_k), ceil(K/gran_k)])."""
    _check_x(x)
    _check_gran(gran_k)
    return _ops.per_block_cast_to_fp8(x, use_ue8m0, gran_k)


def per_channel_cast_to_fp8(x: torch.Tensor, use_ue8m0: bool = False, gran_k: int = 128):
    """Per-channel (gran_k x 1) E4M3 cast: x [K, N] -> (E4M3, fp32 scales [ceil(K/gran_k), N]);
    the operands of the k-grouped weight-gradient GEMMs."""
    _check_x(x)
    _check_gran(gran_k)
    return _ops.per_channel_cast_to_fp8(x, use_ue8m0, gran_k)


def per_token_cast_back_from_fp8(x: torch.Tensor, sf: torch.Tensor, gran_k: int = 128,
                                 out_dtype: torch.dtype = torch.bfloat16) -> torch.Tensor:
    """Inverse of per_token_cast_to_fp8 (fp32, UE8M0 uint8 or packed int32 scales)."""
    _check_gran(gran_k)
    _check_q(x, sf, (*x.shape[:-1], ceil_div(x.shape[-1], gran_k)))
    return _ops.per_token_cast_back_from_fp8(x, sf, gran_k, out_dtype)


def per_block_cast_back_from_fp8(x: torch.Tensor, sf: torch.Tensor, gran_k: int = 128,
                                 out_dtype: torch.dtype = torch.bfloat16) -> torch.Tensor:
    """Inverse of per_block_cast_to_fp8."""
    _check_gran(gran_k)
    _check_q(x, sf, (*x.shape[:-2], ceil_div(x.shape[-2], gran_k), ceil_div(x.shape[-1], gran_k)))
    return _ops.per_block_cast_back_from_fp8(x, sf, gran_k, out_dtype)


def per_channel_cast_back_from_fp8(x: torch.Tensor, sf: torch.Tensor, gran_k: int = 128,
                                   out_dtype: torch.dtype = torch.bfloat16) -> torch.Tensor:
    """Inverse of per_channel_cast_to_fp8."""
    _check_gran(gran_k)
    _check_q(x, sf, (*x.shape[:-2], ceil_div(x.shape[-2], gran_k), x.shape[-1]))
    return _ops.per_channel_cast_back_from_fp8(x, sf, gran_k, out_dtype)


def per_token_cast_to_mxfp8(x: torch.Tensor):
    """MXFP8 cast (1x32 blocks, UE8M0 scales): x [M, K] -> (E4M3 [M, K], uint8 exponents [M, ceil(K/32)])."""
    _check_x(x)
    return _ops.per_token_cast_to_mxfp8(x)


def per_channel_cast_to_mxfp8(x: torch.Tensor):
    """MXFP8 cast down dim -2 (32x1 blocks): x [K, N] -> (E4M3, uint8 exponents [ceil(K/32), N])."""
    _check_x(x)
    return _ops.per_channel_cast_to_mxfp8(x)


def per_token_cast_back_from_mxfp8(x: torch.Tensor, sf: torch.Tensor,
                                   out_dtype: torch.dtype = torch.bfloat16) -> torch.Tensor:
    _check_q(x, sf, (*x.shape[:-1], ceil_div(x.shape[-1], 32)))
    return _ops.per_token_cast_back_from_mxfp8(x, sf, out_dtype)


def per_channel_cast_back_from_mxfp8(x: torch.Tensor, sf: torch.Tensor,
                                     out_dtype: torch.dtype = torch.bfloat16) -> torch.Tensor:
    _check_q(x, sf, (*x.shape[:-2], ceil_div(x.shape[-2], 32), x.shape[-1]))
    return _ops.per_channel_cast_back_from_mxfp8(x, sf, out_dtype)


# ---- scale layouts ------------------------------------------------------------------------------

def get_tma_aligned_size(x: int, element_size: int) -> int:
    """x rounded up so that x * element_size is a multiple of 16 bytes (a TMA requirement)."""
    if element_size not in (1, 2, 4, 8):
        raise ValueError(f"element_size must be 1, 2, 4 or 8 bytes; got {element_size!r}")
    return align(x, 16 // element_size)


def get_mn_major_tma_aligned_tensor(sf: torch.Tensor) -> torch.Tensor:
    """The same scale values [.., MN, SF_K] stored MN-major (column-major per group) with the MN stride
    padded to a TMA-aligned size: strides (.., 1, aligned_MN). The layout the Hopper FP8 kernels read."""
    check_tensor("sf", sf, dtypes=(torch.float32,), contiguous=False)
    if sf.dim() not in (2, 3):
        raise ValueError(f"sf must be 2-D [MN, SF_K] or 3-D [G, MN, SF_K]; got shape {list(sf.shape)}")
    squeeze = sf.dim() == 2
    s = sf.unsqueeze(0) if squeeze else sf
    g, mn, k = s.shape
    amn = get_tma_aligned_size(mn, s.element_size())
    if s.stride()[1:] == (1, amn) and (g == 1 or s.stride(0) == amn * k):
        out = s
    else:
        buf = torch.empty(g, k, amn, dtype=s.dtype, device=s.device)
        buf[:, :, :mn] = s.transpose(1, 2)
        buf[:, :, mn:] = 0
        out = buf[:, :, :mn].transpose(1, 2)
    return out.squeeze(0) if squeeze else out


get_col_major_tma_aligned_tensor = get_mn_major_tma_aligned_tensor


def get_mn_major_tma_aligned_packed_ue8m0_tensor(sf: torch.Tensor) -> torch.Tensor:
    """fp32 power-of-two scales [.., MN, SF_K] -> int32 [.., MN, ceil(SF_K/4)] (four UE8M0 bytes per word,
    pack_ue8m0_to_int) stored MN-major with TMA-aligned MN stride: the Blackwell scale layout."""
    check_tensor("sf", sf, dtypes=(torch.float32,), contiguous=False)
    if sf.dim() not in (2, 3):
        raise ValueError(f"sf must be 2-D [MN, SF_K] or 3-D [G, MN, SF_K]; got shape {list(sf.shape)}")
    bits = sf.contiguous().view(torch.int32)
    if bool(((bits & 0x7FFFFF) != 0).any()) or bool((sf <= 0).any()):
        raise ValueError("sf must hold positive powers of two (UE8M0 scales; cast with use_ue8m0=True)")
    packed = pack_ue8m0_to_int(sf)
    squeeze = packed.dim() == 2
    p = packed.unsqueeze(0) if squeeze else packed
    g, mn, k = p.shape
    amn = get_tma_aligned_size(mn, 4)
    buf = torch.zeros(g, k, amn, dtype=torch.int32, device=p.device)
    buf[:, :, :mn] = p.transpose(1, 2)
    out = buf[:, :, :mn].transpose(1, 2)
    return out.squeeze(0) if squeeze else out


def _arch_major(device: torch.device) -> int:
    if device.type == "cuda":
        return torch.cuda.get_device_capability(device)[0]
    return 9


def transform_sf_into_required_layout(sf: torch.Tensor, mn: int, k: int, recipe, num_groups: int | None = None,
                                      is_sfa: bool | None = None, disable_ue8m0_cast: bool = False,
                                      arch_major: int | None = None) -> torch.Tensor:
    """The scale tensor in the layout the kernels of the GPU read (DeepGEMM's helper).

    recipe: (gran_mn, gran_k), or (gran_m_a, gran_n_b, gran_k) together with is_sfa (which of the two).
    sf: fp32 [(G,) ceil(mn/gran_mn), ceil(k/gran_k)], or int32 packed UE8M0 [(G,) mn, ceil(k/gran_k/4)].
    Hopper (arch_major 9, or disable_ue8m0_cast): fp32 1x128 scales -> MN-major TMA-aligned fp32;
    fp32 128x128 scales -> unchanged. Blackwell (10): fp32 power-of-two scales with gran_k 32/128 ->
    per-row (gran_mn blocks broadcast to rows), packed UE8M0 int32, MN-major TMA-aligned; packed int32
    1 x gran_k scales -> MN-major TMA-aligned. arch_major defaults to sf's GPU (9 on CPU).
    """
    check_tensor("sf", sf, dtypes=(torch.float32, torch.int32), contiguous=False)
    if not isinstance(recipe, (tuple, list)) or len(recipe) not in (2, 3):
        raise ValueError(f"recipe must be (gran_mn, gran_k) or (gran_m, gran_n, gran_k); got {recipe!r}")
    if len(recipe) == 3:
        if is_sfa is None:
            raise ValueError("is_sfa must be given with a 3-element recipe (which of gran_m / gran_n applies)")
        gran_mn, gran_k = (recipe[0] if is_sfa else recipe[1]), recipe[2]
    else:
        if is_sfa is not None:
            raise ValueError("is_sfa must be None with a 2-element recipe")
        gran_mn, gran_k = recipe
    want_dim = 2 if num_groups is None else 3
    if sf.dim() != want_dim:
        raise ValueError(f"sf must be {want_dim}-D for num_groups={num_groups}; got shape {list(sf.shape)}")
    if num_groups is not None and sf.shape[0] != num_groups:
        raise ValueError(f"sf must hold num_groups = {num_groups} groups in dim 0; got shape {list(sf.shape)}")
    if sf.dtype == torch.float32:
        want = (ceil_div(mn, gran_mn), ceil_div(k, gran_k))
    else:
        want = (mn, ceil_div(ceil_div(k, gran_k), 4))
    if tuple(sf.shape[-2:]) != want:
        raise ValueError(f"sf must have shape [..., {want[0]}, {want[1]}] for mn={mn}, k={k}, recipe={tuple(recipe)}; "
                         f"got {list(sf.shape)}")
    arch = _arch_major(sf.device) if arch_major is None else arch_major
    if sf.dtype == torch.float32 and (arch == 9 or disable_ue8m0_cast):
        if (gran_mn, gran_k) == (1, 128):
            return get_mn_major_tma_aligned_tensor(sf)
        if (gran_mn, gran_k) == (128, 128):
            return sf.contiguous()
    if arch == 10 and gran_k in (32, 128):
        if sf.dtype == torch.float32:
            rows = sf if gran_mn == 1 else sf.repeat_interleave(gran_mn, dim=-2)[..., :mn, :]
            return get_mn_major_tma_aligned_packed_ue8m0_tensor(rows)
        if gran_mn == 1:
            s = sf.unsqueeze(0) if sf.dim() == 2 else sf
            g, m_, kk = s.shape
            amn = get_tma_aligned_size(m_, 4)
            buf = torch.zeros(g, kk, amn, dtype=torch.int32, device=s.device)
            buf[:, :, :m_] = s.transpose(1, 2)
            out = buf[:, :, :m_].transpose(1, 2)
            return out.squeeze(0) if sf.dim() == 2 else out
    raise ValueError(f"no scale layout for {str(sf.dtype).replace('torch.', '')} scales with recipe "
                     f"(gran_mn={gran_mn}, gran_k={gran_k}) on compute capability {arch}.x")
