"""Pure-PyTorch semantics of every deep_gemm op: the contract the kernels are tested against,
and the fallback backend (CPU tensors, or GPUs without a prime-kernels library)."""
from .routing import moe_routing

__all__ = ["moe_routing"]
