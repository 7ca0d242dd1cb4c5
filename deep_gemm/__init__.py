"""prime-kernels: a DeepGEMM-compatible API plus a fused, differentiable MoE layer.

`import deep_gemm` picks the kernel library for the GPU on first use (sm90 on Hopper, sm100 on
Blackwell) and falls back to the pure-PyTorch reference for CPU tensors; see deep_gemm._backend.
Documentation of every entry point: docs/API.md.
"""
__version__ = "0.1.0"

from ._backend import KernelError, backend_for, info, installed_libraries
from .routing import MoERouting, moe_routing
from . import reference
from .config import MOE_DIM_MULTIPLE, MegaMoEConfig, MoEDispatchConfig
from .gemm import (
    bf16_m_grouped_gemm_nt_masked, fp8_m_grouped_gemm_nt_masked,
    get_k_alignment_for_contiguous_layout, get_m_alignment_for_contiguous_layout,
    get_mk_alignment_for_contiguous_layout, get_num_sms,
    k_grouped_bf16_gemm_tn_contiguous, k_grouped_fp8_gemm_tn_contiguous,
    m_grouped_bf16_gemm_nn_contiguous, m_grouped_bf16_gemm_nt_contiguous, m_grouped_bf16_gemm_nt_masked,
    m_grouped_fp8_gemm_nn_contiguous, m_grouped_fp8_gemm_nt_contiguous, m_grouped_fp8_gemm_nt_masked,
    set_mk_alignment_for_contiguous_layout, set_num_sms,
)
from .quant import (
    align, ceil_div, ceil_to_ue8m0, float_to_ue8m0, get_col_major_tma_aligned_tensor,
    get_mn_major_tma_aligned_packed_ue8m0_tensor, get_mn_major_tma_aligned_tensor, get_tma_aligned_size,
    pack_ue8m0_to_int, per_block_cast_back_from_fp8, per_block_cast_to_fp8, per_channel_cast_back_from_fp8,
    per_channel_cast_to_fp8, per_channel_cast_back_from_mxfp8, per_channel_cast_to_mxfp8,
    per_token_cast_back_from_fp8, per_token_cast_back_from_mxfp8, per_token_cast_to_fp8,
    per_token_cast_to_mxfp8, transform_sf_into_required_layout, ue8m0_to_float, unpack_ue8m0_from_int,
)
from .moe import MegaMoE, mega_moe
from .testing import calc_diff

__all__ = [
    "__version__", "KernelError", "backend_for", "info", "installed_libraries",
    "MoERouting", "moe_routing", "reference",
    # Mega MoE
    "mega_moe", "MegaMoE", "MoEDispatchConfig", "MegaMoEConfig", "MOE_DIM_MULTIPLE",
    # grouped GEMMs
    "m_grouped_bf16_gemm_nt_contiguous", "m_grouped_bf16_gemm_nn_contiguous", "m_grouped_bf16_gemm_nt_masked",
    "k_grouped_bf16_gemm_tn_contiguous", "m_grouped_fp8_gemm_nt_contiguous", "m_grouped_fp8_gemm_nn_contiguous",
    "m_grouped_fp8_gemm_nt_masked", "k_grouped_fp8_gemm_tn_contiguous",
    "bf16_m_grouped_gemm_nt_masked", "fp8_m_grouped_gemm_nt_masked",
    # runtime
    "get_num_sms", "set_num_sms", "get_mk_alignment_for_contiguous_layout",
    "set_mk_alignment_for_contiguous_layout", "get_m_alignment_for_contiguous_layout",
    "get_k_alignment_for_contiguous_layout",
    # FP8 / MXFP8
    "per_token_cast_to_fp8", "per_block_cast_to_fp8", "per_channel_cast_to_fp8",
    "per_token_cast_back_from_fp8", "per_block_cast_back_from_fp8", "per_channel_cast_back_from_fp8",
    "per_token_cast_to_mxfp8", "per_channel_cast_to_mxfp8",
    "per_token_cast_back_from_mxfp8", "per_channel_cast_back_from_mxfp8",
    "ceil_to_ue8m0", "float_to_ue8m0", "ue8m0_to_float", "pack_ue8m0_to_int", "unpack_ue8m0_from_int",
    "get_tma_aligned_size", "get_mn_major_tma_aligned_tensor", "get_col_major_tma_aligned_tensor",
    "get_mn_major_tma_aligned_packed_ue8m0_tensor", "transform_sf_into_required_layout", "ceil_div", "align",
    # testing
    "calc_diff",
]
