import gc
import sys

import pytest
import torch

pytest_plugins = ("pytester",)  # test_conftest.py runs this file's hooks in a scratch session


def _gpu_skip_reason() -> str | None:
    if not torch.cuda.is_available():
        return "needs a CUDA GPU (none visible; CPU tests cover the reference backend)"
    from deep_gemm._backend import backend_for
    b = backend_for(torch.device("cuda"))
    if not b.is_native:
        return f"no prime-kernels library for this GPU (backend {b.name})"
    return None


def pytest_collection_modifyitems(config, items):
    reason = _gpu_skip_reason() if any("gpu" in i.keywords for i in items) else None
    if reason:
        skip = pytest.mark.skip(reason=reason)
        for item in items:
            if "gpu" in item.keywords:
                item.add_marker(skip)


@pytest.fixture
def rng():
    """A fresh generator per test: inputs are random every run (seed printed on failure)."""
    seed = torch.randint(0, 2**31 - 1, ()).item()
    print(f"seed={seed}")
    return torch.Generator().manual_seed(seed)


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item, nextitem):
    """A failed test's frames, kept by sys.last_traceback for post-mortem debugging, hold its tensors: at the real
    shapes tens of GB of GPU memory that the next tests then miss (session 33: three small tests failed on the memory
    of one that ran out). Drop them once the failure is reported."""
    if getattr(sys, "last_traceback", None) is None:
        return
    for name in ("last_type", "last_value", "last_traceback", "last_exc"):
        if hasattr(sys, name):
            delattr(sys, name)
    gc.collect()
    if torch.cuda.is_initialized():
        torch.cuda.empty_cache()
