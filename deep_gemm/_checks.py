"""Argument checks shared by every public entry point: each raises TypeError/ValueError naming
the argument and what was expected, before anything is launched."""
from __future__ import annotations

from typing import Iterable

import torch


def check_tensor(name: str, t, *, dtypes: Iterable[torch.dtype] | None = None, ndim: int | None = None,
                 shape: tuple | None = None, contiguous: bool = True,
                 device: torch.device | None = None) -> None:
    """shape entries may be None (any size)."""
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
    if dtypes is not None:
        dtypes = tuple(dtypes)
        if t.dtype not in dtypes:
            want = " or ".join(str(d).replace("torch.", "") for d in dtypes)
            raise TypeError(f"{name} must have dtype {want}, got {str(t.dtype).replace('torch.', '')}")
    if ndim is not None and t.dim() != ndim:
        raise ValueError(f"{name} must be {ndim}-D, got shape {tuple(t.shape)}")
    if shape is not None:
        if t.dim() != len(shape) or any(s is not None and s != d for s, d in zip(shape, t.shape)):
            want = "[" + ", ".join("*" if s is None else str(s) for s in shape) + "]"
            raise ValueError(f"{name} must have shape {want}, got {list(t.shape)}")
    if contiguous and not t.is_contiguous():
        raise ValueError(f"{name} must be contiguous (call .contiguous() first)")
    if device is not None and t.device != device:
        raise ValueError(f"{name} is on {t.device} but the other inputs are on {device}")


def is_tracing(t: torch.Tensor | None = None) -> bool:
    """True under torch.compile/export tracing or CUDA-graph capture: no host reads allowed."""
    if torch.compiler.is_compiling():
        return True
    if t is not None and t.device.type == "cuda" and torch.cuda.is_current_stream_capturing():
        return True
    if t is not None and isinstance(t, torch._subclasses.FakeTensor):
        return True
    return False
