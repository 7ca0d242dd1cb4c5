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
