"""torch.library custom ops behind the public FP8 / MXFP8 casts (deep_gemm/quant.py checks the
arguments). Each runs kernels.call(<public name>, device, <public arguments>), so a native cast of the
same name and signature plugs in unchanged, and torch.compile sees one opaque op with a fake impl."""
from __future__ import annotations

import torch
from torch import Tensor

from . import kernels

FP8 = torch.float8_e4m3fn


def _cdiv(a, b):
    return -(-a // b)


def _op(name, fn, fake):
    op = torch.library.custom_op("prime_kernels::" + name, mutates_args=())(fn)
    op.register_fake(fake)
    return op


# ---- casts --------------------------------------------------------------------------------------

def _per_token(x: Tensor, use_ue8m0: bool, gran_k: int, use_packed_ue8m0: bool) -> tuple[Tensor, Tensor]:
    return kernels.call("per_token_cast_to_fp8", x.device, x, use_ue8m0, gran_k, use_packed_ue8m0)


def _per_token_fake(x, use_ue8m0, gran_k, use_packed_ue8m0):
    n = _cdiv(x.shape[-1], gran_k)
    if use_packed_ue8m0:
        return x.new_empty(x.shape, dtype=FP8), x.new_empty((*x.shape[:-1], _cdiv(n, 4)), dtype=torch.int32)
    return x.new_empty(x.shape, dtype=FP8), x.new_empty((*x.shape[:-1], n), dtype=torch.float32)


def _per_block(x: Tensor, use_ue8m0: bool, gran_k: int) -> tuple[Tensor, Tensor]:
    return kernels.call("per_block_cast_to_fp8", x.device, x, use_ue8m0, gran_k)


def _per_block_fake(x, use_ue8m0, gran_k):
    s = (*x.shape[:-2], _cdiv(x.shape[-2], gran_k), _cdiv(x.shape[-1], gran_k))
    return x.new_empty(x.shape, dtype=FP8), x.new_empty(s, dtype=torch.float32)


def _per_channel(x: Tensor, use_ue8m0: bool, gran_k: int) -> tuple[Tensor, Tensor]:
    return kernels.call("per_channel_cast_to_fp8", x.device, x, use_ue8m0, gran_k)


def _per_channel_fake(x, use_ue8m0, gran_k):
    s = (*x.shape[:-2], _cdiv(x.shape[-2], gran_k), x.shape[-1])
    return x.new_empty(x.shape, dtype=FP8), x.new_empty(s, dtype=torch.float32)


def _mx_token(x: Tensor) -> tuple[Tensor, Tensor]:
    return kernels.call("per_token_cast_to_mxfp8", x.device, x)


def _mx_token_fake(x):
    return x.new_empty(x.shape, dtype=FP8), x.new_empty((*x.shape[:-1], _cdiv(x.shape[-1], 32)), dtype=torch.uint8)


def _mx_channel(x: Tensor) -> tuple[Tensor, Tensor]:
    return kernels.call("per_channel_cast_to_mxfp8", x.device, x)


def _mx_channel_fake(x):
    s = (*x.shape[:-2], _cdiv(x.shape[-2], 32), x.shape[-1])
    return x.new_empty(x.shape, dtype=FP8), x.new_empty(s, dtype=torch.uint8)


per_token_cast_to_fp8 = _op("per_token_cast_to_fp8", _per_token, _per_token_fake)
per_block_cast_to_fp8 = _op("per_block_cast_to_fp8", _per_block, _per_block_fake)
per_channel_cast_to_fp8 = _op("per_channel_cast_to_fp8", _per_channel, _per_channel_fake)
per_token_cast_to_mxfp8 = _op("per_token_cast_to_mxfp8", _mx_token, _mx_token_fake)
per_channel_cast_to_mxfp8 = _op("per_channel_cast_to_mxfp8", _mx_channel, _mx_channel_fake)


# ---- inverses -----------------------------------------------------------------------------------

def _back_fake(x, sf, *rest):
    return x.new_empty(x.shape, dtype=rest[-1])


def _tok_back(x: Tensor, sf: Tensor, gran_k: int, out_dtype: torch.dtype) -> Tensor:
    return kernels.call("per_token_cast_back_from_fp8", x.device, x, sf, gran_k, out_dtype)


def _blk_back(x: Tensor, sf: Tensor, gran_k: int, out_dtype: torch.dtype) -> Tensor:
    return kernels.call("per_block_cast_back_from_fp8", x.device, x, sf, gran_k, out_dtype)


def _ch_back(x: Tensor, sf: Tensor, gran_k: int, out_dtype: torch.dtype) -> Tensor:
    return kernels.call("per_channel_cast_back_from_fp8", x.device, x, sf, gran_k, out_dtype)


def _mx_tok_back(x: Tensor, sf: Tensor, out_dtype: torch.dtype) -> Tensor:
    return kernels.call("per_token_cast_back_from_mxfp8", x.device, x, sf, out_dtype)


def _mx_ch_back(x: Tensor, sf: Tensor, out_dtype: torch.dtype) -> Tensor:
    return kernels.call("per_channel_cast_back_from_mxfp8", x.device, x, sf, out_dtype)


per_token_cast_back_from_fp8 = _op("per_token_cast_back_from_fp8", _tok_back, _back_fake)
per_block_cast_back_from_fp8 = _op("per_block_cast_back_from_fp8", _blk_back, _back_fake)
per_channel_cast_back_from_fp8 = _op("per_channel_cast_back_from_fp8", _ch_back, _back_fake)
per_token_cast_back_from_mxfp8 = _op("per_token_cast_back_from_mxfp8", _mx_tok_back, _back_fake)
per_channel_cast_back_from_mxfp8 = _op("per_channel_cast_back_from_mxfp8", _mx_ch_back, _back_fake)

OPS = ["per_token_cast_to_fp8", "per_block_cast_to_fp8", "per_channel_cast_to_fp8", "per_token_cast_to_mxfp8",
       "per_channel_cast_to_mxfp8", "per_token_cast_back_from_fp8", "per_block_cast_back_from_fp8",
       "per_channel_cast_back_from_fp8", "per_token_cast_back_from_mxfp8", "per_channel_cast_back_from_mxfp8"]
