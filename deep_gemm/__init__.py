"""prime-kernels: a DeepGEMM-compatible API plus a fused, differentiable MoE layer.

`import deep_gemm` picks the kernel library for the GPU on first use (sm90 on Hopper, sm100 on
Blackwell) and falls back to the pure-PyTorch reference for CPU tensors; see deep_gemm._backend.
"""
__version__ = "0.1.0"

from ._backend import KernelError, backend_for, info, installed_libraries
from .routing import MoERouting, moe_routing
from . import reference

__all__ = [
    "__version__", "KernelError", "backend_for", "info", "installed_libraries",
    "MoERouting", "moe_routing", "reference",
]
