import pytest
import torch


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
