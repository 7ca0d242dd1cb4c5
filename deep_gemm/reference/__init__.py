"""Pure-PyTorch semantics of every deep_gemm op: the contract the kernels are tested against,
and the fallback backend (CPU tensors, or GPUs without a prime-kernels library).

A native kernel module (deep_gemm/kernels/<arch>.py) may define any function listed in __all__
under the same name and signature; deep_gemm.kernels.call picks it when present."""
from .routing import moe_routing
from .moe import moe_forward, moe_backward, moe_forward_simple, swiglu, PRECISIONS
from .gemm import (
    m_grouped_bf16_gemm_nt_contiguous, m_grouped_bf16_gemm_nn_contiguous, m_grouped_bf16_gemm_nt_masked,
    k_grouped_bf16_gemm_tn_contiguous, m_grouped_fp8_gemm_nt_contiguous, m_grouped_fp8_gemm_nn_contiguous,
    m_grouped_fp8_gemm_nt_masked, k_grouped_fp8_gemm_tn_contiguous,
)
from .quant import (
    ceil_div, align, ceil_to_ue8m0, float_to_ue8m0, ue8m0_to_float, pack_ue8m0_to_int, unpack_ue8m0_from_int,
    quantize_blocks, dequantize_blocks, qdq,
    per_token_cast_to_fp8, per_block_cast_to_fp8, per_channel_cast_to_fp8,
    per_token_cast_back_from_fp8, per_block_cast_back_from_fp8, per_channel_cast_back_from_fp8,
    per_token_cast_to_mxfp8, per_channel_cast_to_mxfp8,
    per_token_cast_back_from_mxfp8, per_channel_cast_back_from_mxfp8,
)

__all__ = [
    "moe_routing", "moe_forward", "moe_backward", "moe_forward_simple", "swiglu", "PRECISIONS",
    "m_grouped_bf16_gemm_nt_contiguous", "m_grouped_bf16_gemm_nn_contiguous", "m_grouped_bf16_gemm_nt_masked",
    "k_grouped_bf16_gemm_tn_contiguous", "m_grouped_fp8_gemm_nt_contiguous", "m_grouped_fp8_gemm_nn_contiguous",
    "m_grouped_fp8_gemm_nt_masked", "k_grouped_fp8_gemm_tn_contiguous",
    "ceil_div", "align", "ceil_to_ue8m0", "float_to_ue8m0", "ue8m0_to_float", "pack_ue8m0_to_int",
    "unpack_ue8m0_from_int", "quantize_blocks", "dequantize_blocks", "qdq",
    "per_token_cast_to_fp8", "per_block_cast_to_fp8", "per_channel_cast_to_fp8",
    "per_token_cast_back_from_fp8", "per_block_cast_back_from_fp8", "per_channel_cast_back_from_fp8",
    "per_token_cast_to_mxfp8", "per_channel_cast_to_mxfp8",
    "per_token_cast_back_from_mxfp8", "per_channel_cast_back_from_mxfp8",
]
