"""Reference FP8 / MXFP8 quantization: the exact arithmetic every kernel must reproduce.

One rule for every block shape (1x128 per token, 128x128 per block, 128x1 per channel,
1x32 / 32x1 MXFP8). For each block of the input (taken in fp32):

    amax  = max(|x|) over the block, clamped to at least 1e-4      (so all-zero blocks are finite)
    sf    = amax / 448                                             (fp32 IEEE division: not amax * (1/448),
                                                                    which differs in ~half the cases)
    sf    = ceil_to_ue8m0(sf)   when UE8M0 scales are asked for     (next power of two >= sf)
    q     = e4m3_saturate(x * (1 / sf))                            (fp32 IEEE reciprocal, then multiply,
                                                                    clamp to [-448, 448], round to nearest even)
    x    ~= float(q) * sf                                          (the inverse)

In CUDA: `amax / 448.0f` and `1.0f / sf` without fast-math (or __fdiv_rn / __frcp_rn), and
cvt.rn.satfinite.e4m3x2.f32 (or __nv_cvt_float2_to_fp8x2 with __NV_SATFINITE, __NV_E4M3).

Blocks are aligned to the start of the tensor (or of each group, for the k-grouped operands of the
MoE weight gradients) and the last block of a dimension may be partial: it is padded with zeros,
which never change amax. Scale tensors are fp32 with one entry per block, in the block grid's
natural row-major order; UE8M0 scales can also be carried as uint8 biased exponents (value
2**(e - 127)), the MXFP8 convention, or packed four to an int32 (`pack_ue8m0_to_int`).
"""
from __future__ import annotations

import torch

E4M3_MAX = 448.0
AMAX_FLOOR = 1e-4
FP8 = torch.float8_e4m3fn


def ceil_div(a: int, b: int) -> int:
    return (a + b - 1) // b


def align(a: int, b: int) -> int:
    return ceil_div(a, b) * b


def ceil_to_ue8m0(sf: torch.Tensor) -> torch.Tensor:
    """The smallest power of two >= |sf| (fp32 in, fp32 out), exponent kept in [2**-126, 2**127]."""
    bits = sf.abs().float().view(torch.int32)
    exp = ((bits >> 23) & 0xFF) + ((bits & 0x7FFFFF) != 0).to(torch.int32)
    return (exp.clamp(1, 254) << 23).view(torch.float32)


def float_to_ue8m0(sf: torch.Tensor) -> torch.Tensor:
    """fp32 powers of two -> uint8 biased exponents (the UE8M0 byte)."""
    bits = sf.float().view(torch.int32)
    return ((bits >> 23) & 0xFF).to(torch.uint8)


def ue8m0_to_float(e: torch.Tensor) -> torch.Tensor:
    """uint8 biased exponents -> fp32 powers of two."""
    return (e.to(torch.int32) << 23).view(torch.float32)


def pack_ue8m0_to_int(sf: torch.Tensor) -> torch.Tensor:
    """fp32 powers of two [..., N] -> int32 [..., ceil(N/4)]: four UE8M0 bytes per int32,
    little-endian (entry 4j in the lowest byte); a partial last word is padded with 2**0."""
    n = sf.shape[-1]
    pad = align(n, 4) - n
    if pad:
        sf = torch.nn.functional.pad(sf.float(), (0, pad), value=1.0)
    e = float_to_ue8m0(sf).contiguous()
    return e.reshape(-1).view(torch.int32).reshape(*e.shape[:-1], e.shape[-1] // 4)


def unpack_ue8m0_from_int(packed: torch.Tensor, n: int | None = None) -> torch.Tensor:
    """Inverse of pack_ue8m0_to_int; n trims the padding."""
    p = packed.contiguous()
    out = ue8m0_to_float(p.reshape(-1).view(torch.uint8).reshape(*p.shape[:-1], p.shape[-1] * 4))
    return out if n is None else out[..., :n]


def as_float_scales(sf: torch.Tensor) -> torch.Tensor:
    """fp32 scales from fp32 / uint8 (UE8M0 bytes) / float8_e8m0fnu scale tensors."""
    if sf.dtype == torch.uint8:
        return ue8m0_to_float(sf)
    if sf.dtype == getattr(torch, "float8_e8m0fnu", None):
        return ue8m0_to_float(sf.view(torch.uint8))
    return sf.float()


def _blocked(x: torch.Tensor, bm: int, bk: int) -> tuple[torch.Tensor, int, int]:
    """x [..., M, K] fp32 -> zero-padded view [..., Mb, bm, Kb, bk]."""
    m, k = x.shape[-2], x.shape[-1]
    pm, pk = align(m, bm) - m, align(k, bk) - k
    if pm or pk:
        x = torch.nn.functional.pad(x, (0, pk, 0, pm))
    lead = x.shape[:-2]
    return x.reshape(*lead, (m + pm) // bm, bm, (k + pk) // bk, bk), m, k


def quantize_blocks(x: torch.Tensor, bm: int, bk: int, use_ue8m0: bool) -> tuple[torch.Tensor, torch.Tensor]:
    """x [..., M, K] -> (E4M3 [..., M, K], fp32 scales [..., ceil(M/bm), ceil(K/bk)])."""
    xb, m, k = _blocked(x.float(), bm, bk)
    amax = xb.abs().amax(dim=(-3, -1)).clamp_min(AMAX_FLOOR)
    # a tensor divisor: CUDA turns division by a Python scalar into a multiply by its reciprocal,
    # which is not the IEEE quotient the contract (and the kernels) use
    sf = amax / torch.full_like(amax, E4M3_MAX)
    if use_ue8m0:
        sf = ceil_to_ue8m0(sf)
    q = (xb * (1.0 / sf)[..., :, None, :, None]).clamp(-E4M3_MAX, E4M3_MAX).to(FP8)
    q = q.reshape(*q.shape[:-4], q.shape[-4] * bm, q.shape[-2] * bk)[..., :m, :k].contiguous()
    return q, sf


def dequantize_blocks(q: torch.Tensor, sf: torch.Tensor, bm: int, bk: int) -> torch.Tensor:
    """Inverse of quantize_blocks, in fp32."""
    m, k = q.shape[-2], q.shape[-1]
    s = as_float_scales(sf)
    s = s.repeat_interleave(bm, dim=-2)[..., :m, :].repeat_interleave(bk, dim=-1)[..., :k]
    return q.float() * s


def qdq(x: torch.Tensor, bm: int, bk: int, use_ue8m0: bool) -> torch.Tensor:
    """Quantize then dequantize (fp32): the value an FP8 kernel actually multiplies."""
    return dequantize_blocks(*quantize_blocks(x, bm, bk, use_ue8m0), bm, bk)


# ---- the DeepGEMM-named casts -----------------------------------------------------------------

def per_token_cast_to_fp8(x: torch.Tensor, use_ue8m0: bool = False, gran_k: int = 128,
                          use_packed_ue8m0: bool = False):
    """x [M, K] (or [G, M, K]) -> (E4M3 same shape, scales [.., M, ceil(K/gran_k)]): 1 x gran_k blocks.
    Scales are fp32 (power-of-two values if use_ue8m0), or int32-packed UE8M0 if use_packed_ue8m0."""
    q, sf = quantize_blocks(x, 1, gran_k, use_ue8m0 or use_packed_ue8m0)
    return q, (pack_ue8m0_to_int(sf) if use_packed_ue8m0 else sf)


def per_block_cast_to_fp8(x: torch.Tensor, use_ue8m0: bool = False, gran_k: int = 128):
    """x [M, N] (or [G, M, N]) -> (E4M3, fp32 scales [.., ceil(M/gran_k), ceil(N/gran_k)])."""
    return quantize_blocks(x, gran_k, gran_k, use_ue8m0)


def per_channel_cast_to_fp8(x: torch.Tensor, use_ue8m0: bool = False, gran_k: int = 128):
    """x [K, N] (or [G, K, N]) -> (E4M3, fp32 scales [.., ceil(K/gran_k), N]): gran_k x 1 blocks
    running down the K (reduction) dimension, the layout of k-grouped weight-gradient operands."""
    return quantize_blocks(x, gran_k, 1, use_ue8m0)


def per_token_cast_back_from_fp8(x: torch.Tensor, sf: torch.Tensor, gran_k: int = 128,
                                 out_dtype: torch.dtype = torch.bfloat16) -> torch.Tensor:
    if sf.dtype == torch.int32:
        sf = unpack_ue8m0_from_int(sf, ceil_div(x.shape[-1], gran_k))
    return dequantize_blocks(x, sf, 1, gran_k).to(out_dtype)


def per_block_cast_back_from_fp8(x: torch.Tensor, sf: torch.Tensor, gran_k: int = 128,
                                 out_dtype: torch.dtype = torch.bfloat16) -> torch.Tensor:
    return dequantize_blocks(x, sf, gran_k, gran_k).to(out_dtype)


def per_channel_cast_back_from_fp8(x: torch.Tensor, sf: torch.Tensor, gran_k: int = 128,
                                   out_dtype: torch.dtype = torch.bfloat16) -> torch.Tensor:
    return dequantize_blocks(x, sf, gran_k, 1).to(out_dtype)


MX_BLOCK = 32


def per_token_cast_to_mxfp8(x: torch.Tensor):
    """MXFP8: x [M, K] (or [G, M, K]) -> (E4M3, uint8 UE8M0 scales [.., M, ceil(K/32)]): 1x32 blocks."""
    q, sf = quantize_blocks(x, 1, MX_BLOCK, True)
    return q, float_to_ue8m0(sf)


def per_channel_cast_to_mxfp8(x: torch.Tensor):
    """MXFP8 along dim -2: x [K, N] -> (E4M3, uint8 UE8M0 scales [ceil(K/32), N]): 32x1 blocks."""
    q, sf = quantize_blocks(x, MX_BLOCK, 1, True)
    return q, float_to_ue8m0(sf)


def per_token_cast_back_from_mxfp8(x: torch.Tensor, sf: torch.Tensor,
                                   out_dtype: torch.dtype = torch.bfloat16) -> torch.Tensor:
    return dequantize_blocks(x, sf, 1, MX_BLOCK).to(out_dtype)


def per_channel_cast_back_from_mxfp8(x: torch.Tensor, sf: torch.Tensor,
                                     out_dtype: torch.dtype = torch.bfloat16) -> torch.Tensor:
    return dequantize_blocks(x, sf, MX_BLOCK, 1).to(out_dtype)
