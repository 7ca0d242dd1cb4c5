"""torch.library custom ops behind the public grouped GEMMs (deep_gemm/gemm.py checks the arguments).

Each op mutates `d` and returns nothing; FP8 operand pairs are passed as two tensors, tuples as lists,
and `c is d` (accumulate into d) as the flag `accumulate`. The implementation rebuilds the public
arguments and runs kernels.call(<name>, device, ...), so a native function of the public name and
signature plugs in unchanged.
"""
from __future__ import annotations

from typing import List, Optional

import torch
from torch import Tensor

from . import kernels

_LIB = "prime_kernels::"


def _t(v):
    return None if v is None else tuple(v)


def _define(name: str, fn):
    op = torch.library.custom_op(_LIB + name, mutates_args=("d",))(fn)
    op.register_fake(lambda *args, **kwargs: None)
    return op


def _m_bf16_nt(a: Tensor, b: Tensor, d: Tensor, grouped_layout: Tensor, compiled_dims: str, use_psum_layout: bool,
               ensure_zero_padding: bool, expected_m_for_psum_layout: Optional[int]) -> None:
    kernels.call("m_grouped_bf16_gemm_nt_contiguous", a.device, a, b, d, grouped_layout, compiled_dims,
                 use_psum_layout, ensure_zero_padding, expected_m_for_psum_layout)


def _m_bf16_nn(a: Tensor, b: Tensor, d: Tensor, grouped_layout: Tensor, compiled_dims: str, use_psum_layout: bool,
               ensure_zero_padding: bool) -> None:
    kernels.call("m_grouped_bf16_gemm_nn_contiguous", a.device, a, b, d, grouped_layout, compiled_dims,
                 use_psum_layout, ensure_zero_padding)


def _m_bf16_masked(a: Tensor, b: Tensor, d: Tensor, masked_m: Tensor, expected_m: int, compiled_dims: str) -> None:
    kernels.call("m_grouped_bf16_gemm_nt_masked", a.device, a, b, d, masked_m, expected_m, compiled_dims)


def _k_bf16(a: Tensor, b: Tensor, d: Tensor, ks_cpu: Optional[List[int]], grouped_layout: Tensor,
            c: Optional[Tensor], accumulate: bool, compiled_dims: str, use_psum_layout: bool) -> None:
    kernels.call("k_grouped_bf16_gemm_tn_contiguous", a.device, a, b, d, ks_cpu, grouped_layout,
                 d if accumulate else c, compiled_dims, use_psum_layout)


def _m_fp8_nt(a: Tensor, sfa: Tensor, b: Tensor, sfb: Tensor, d: Tensor, grouped_layout: Tensor,
              recipe: Optional[List[int]], recipe_a: Optional[List[int]], recipe_b: Optional[List[int]],
              compiled_dims: str, disable_ue8m0_cast: bool, use_psum_layout: bool, ensure_zero_padding: bool,
              expected_m_for_psum_layout: Optional[int]) -> None:
    kernels.call("m_grouped_fp8_gemm_nt_contiguous", a.device, (a, sfa), (b, sfb), d, grouped_layout, _t(recipe),
                 _t(recipe_a), _t(recipe_b), compiled_dims, disable_ue8m0_cast, use_psum_layout,
                 ensure_zero_padding, expected_m_for_psum_layout)


def _m_fp8_nn(a: Tensor, sfa: Tensor, b: Tensor, sfb: Tensor, d: Tensor, grouped_layout: Tensor,
              recipe: Optional[List[int]], recipe_a: Optional[List[int]], recipe_b: Optional[List[int]],
              compiled_dims: str, disable_ue8m0_cast: bool, use_psum_layout: bool, ensure_zero_padding: bool) -> None:
    kernels.call("m_grouped_fp8_gemm_nn_contiguous", a.device, (a, sfa), (b, sfb), d, grouped_layout, _t(recipe),
                 _t(recipe_a), _t(recipe_b), compiled_dims, disable_ue8m0_cast, use_psum_layout,
                 ensure_zero_padding)


def _m_fp8_masked(a: Tensor, sfa: Tensor, b: Tensor, sfb: Tensor, d: Tensor, masked_m: Tensor, expected_m: int,
                  recipe: Optional[List[int]], recipe_a: Optional[List[int]], recipe_b: Optional[List[int]],
                  compiled_dims: str, disable_ue8m0_cast: bool) -> None:
    kernels.call("m_grouped_fp8_gemm_nt_masked", a.device, (a, sfa), (b, sfb), d, masked_m, expected_m, _t(recipe),
                 _t(recipe_a), _t(recipe_b), compiled_dims, disable_ue8m0_cast)


def _k_fp8(a: Tensor, sfa: Tensor, b: Tensor, sfb: Tensor, d: Tensor, ks_cpu: Optional[List[int]],
           grouped_layout: Tensor, c: Optional[Tensor], accumulate: bool, recipe: List[int], compiled_dims: str,
           use_psum_layout: bool) -> None:
    kernels.call("k_grouped_fp8_gemm_tn_contiguous", a.device, (a, sfa), (b, sfb), d, ks_cpu, grouped_layout,
                 d if accumulate else c, tuple(recipe), compiled_dims, use_psum_layout)


m_grouped_bf16_gemm_nt_contiguous = _define("m_grouped_bf16_gemm_nt_contiguous", _m_bf16_nt)
m_grouped_bf16_gemm_nn_contiguous = _define("m_grouped_bf16_gemm_nn_contiguous", _m_bf16_nn)
m_grouped_bf16_gemm_nt_masked = _define("m_grouped_bf16_gemm_nt_masked", _m_bf16_masked)
k_grouped_bf16_gemm_tn_contiguous = _define("k_grouped_bf16_gemm_tn_contiguous", _k_bf16)
m_grouped_fp8_gemm_nt_contiguous = _define("m_grouped_fp8_gemm_nt_contiguous", _m_fp8_nt)
m_grouped_fp8_gemm_nn_contiguous = _define("m_grouped_fp8_gemm_nn_contiguous", _m_fp8_nn)
m_grouped_fp8_gemm_nt_masked = _define("m_grouped_fp8_gemm_nt_masked", _m_fp8_masked)
k_grouped_fp8_gemm_tn_contiguous = _define("k_grouped_fp8_gemm_tn_contiguous", _k_fp8)

OPS = ["m_grouped_bf16_gemm_nt_contiguous", "m_grouped_bf16_gemm_nn_contiguous", "m_grouped_bf16_gemm_nt_masked",
       "k_grouped_bf16_gemm_tn_contiguous", "m_grouped_fp8_gemm_nt_contiguous", "m_grouped_fp8_gemm_nn_contiguous",
       "m_grouped_fp8_gemm_nt_masked", "k_grouped_fp8_gemm_tn_contiguous"]
