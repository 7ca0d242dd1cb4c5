"""Native (GPU library) implementations, one module per arch: kernels/sm90.py, kernels/sm100.py.

Rule: a native module may define any function of deep_gemm.reference under the same name and
signature. Public entry points call `dispatch(name, device)` and get the native function when
the device's backend has one, else the reference. A native function that cannot take a given
case (shape, dtype) raises NotSupportedHere, and the entry falls back to the reference with a
one-time warning; it never returns a wrong answer.
"""
from __future__ import annotations

import importlib
import warnings
from typing import Callable

import torch

from .. import reference
from .._backend import backend_for


class NotSupportedHere(Exception):
    """Raised by a native function for a case it has no kernel for."""


_warned: set[tuple[str, str]] = set()


def _native_module(arch: str):
    try:
        return importlib.import_module(f"{__name__}.{arch}")
    except ModuleNotFoundError:
        return None


def native_impl(name: str, device: torch.device) -> Callable | None:
    backend = backend_for(device)
    if not backend.is_native:
        return None
    mod = _native_module(backend.name)
    return getattr(mod, name, None) if mod is not None else None


def call(name: str, device: torch.device, *args, **kwargs):
    """Runs op `name` on the native backend of `device` when it has it, else the reference."""
    fn = native_impl(name, device)
    if fn is not None:
        try:
            return fn(*args, **kwargs)
        except NotSupportedHere as why:
            key = (name, str(why))
            if key not in _warned:
                _warned.add(key)
                warnings.warn(f"deep_gemm.{name}: no native kernel for this case ({why}); "
                              "using the slower reference implementation", RuntimeWarning, stacklevel=3)
    return getattr(reference, name)(*args, **kwargs)
