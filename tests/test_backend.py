"""Backend choice and its messages, on CPU: the GPU queries are replaced with fakes."""
import pytest
import torch

import deep_gemm
from deep_gemm import _backend
from deep_gemm.__main__ import main as cli


@pytest.fixture
def fake_gpu(monkeypatch):
    """A fake cuda:0 of the given name and capability; clears the per-device cache."""
    def install(name, cap):
        monkeypatch.setattr(torch.cuda, "get_device_capability", lambda i=None: cap)
        monkeypatch.setattr(torch.cuda, "get_device_name", lambda i=None: name)
        monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
        _backend._backend_for_cuda_index.cache_clear()
        _backend._warned.clear()
    yield install
    _backend._backend_for_cuda_index.cache_clear()
    _backend._warned.clear()


def test_cpu_tensors_use_reference():
    assert deep_gemm.backend_for("cpu").name == "reference"


def test_gpu_without_library_warns_once_and_falls_back(fake_gpu, monkeypatch):
    fake_gpu("NVIDIA A100-SXM4-80GB", (8, 0))
    monkeypatch.delenv("DG_BACKEND", raising=False)
    with pytest.warns(RuntimeWarning) as rec:
        b = _backend.backend_for("cuda:0")
        _backend.backend_for("cuda:0")
    assert b.name == "reference"
    assert len(rec) == 1
    msg = str(rec[0].message)
    for part in ("NVIDIA A100", "compute capability 8.0", "installed libraries", "Hopper", "Blackwell"):
        assert part in msg, msg


def test_hopper_without_its_library_names_the_package(fake_gpu, monkeypatch):
    fake_gpu("NVIDIA H200", (9, 0))
    monkeypatch.setenv("PK_LIBRARY_PATH", "/nonexistent")
    monkeypatch.setattr(_backend, "LIB_DIR", _backend.Path("/nonexistent"))
    with pytest.warns(RuntimeWarning, match="prime-kernels-sm90"):
        assert _backend.backend_for("cuda:0").name == "reference"


def test_forced_backend_for_the_wrong_arch_is_an_error(fake_gpu, monkeypatch):
    fake_gpu("NVIDIA H200", (9, 0))
    monkeypatch.setenv("DG_BACKEND", "sm100")
    with pytest.raises(deep_gemm.KernelError, match=r"DG_BACKEND=sm100 but NVIDIA H200 .*capability 9\.0"):
        _backend.backend_for("cuda:0")


def test_forced_reference(fake_gpu, monkeypatch):
    fake_gpu("NVIDIA H200", (9, 0))
    monkeypatch.setenv("DG_BACKEND", "reference")
    assert _backend.backend_for("cuda:0").name == "reference"


def test_bad_dg_backend_value(monkeypatch):
    monkeypatch.setenv("DG_BACKEND", "triton")
    with pytest.raises(ValueError, match="DG_BACKEND must be one of auto, reference, sm90, sm100"):
        _backend.forced_backend()


def test_missing_library_error_names_package(monkeypatch):
    monkeypatch.setenv("PK_LIBRARY_PATH", "/nonexistent")
    monkeypatch.setattr(_backend, "LIB_DIR", _backend.Path("/nonexistent"))
    _backend.load_library.cache_clear()
    try:
        with pytest.raises(deep_gemm.KernelError, match="install prime-kernels or prime-kernels-sm100"):
            _backend.load_library("sm100")
    finally:
        _backend.load_library.cache_clear()


def test_installed_libraries_load_on_a_cpu_machine():
    """Each installed library loads without a GPU and reports its arch and CUDA runtime."""
    for arch, path in _backend.installed_libraries().items():
        lib = _backend.load_library(arch)
        assert lib.lib_arch == {"sm90": 90, "sm100": 100}[arch]
        assert lib.cuda_runtime_version >= 13000


def test_info_cli(capsys):
    assert cli(["info"]) == 0
    out = capsys.readouterr().out
    assert f"prime-kernels {deep_gemm.__version__}" in out
    assert "torch" in out and "libraries:" in out and "GPUs:" in out
    assert "CPU tensors -> backend reference" in out
    assert cli(["info", "--json"]) == 0


@pytest.mark.gpu
def test_stream_and_device_accessors():
    """stream_of / on_device (torch's raw accessors) name the stream and device torch's own API names: on the
    default stream, inside a side stream's context and, with two GPUs, for a device that is not current."""
    def handle(device):  # (the default stream is handle 0, which ctypes reads back as None)
        return _backend.stream_of(device).value or 0

    dev = torch.device("cuda", torch.cuda.current_device())
    assert handle(dev) == torch.cuda.current_stream(dev).cuda_stream
    assert handle(torch.device("cuda")) == torch.cuda.current_stream().cuda_stream
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        assert handle(dev) == side.cuda_stream != 0
    with _backend.on_device(dev):
        assert torch.cuda.current_device() == dev.index
    if torch.cuda.device_count() > 1:
        other = torch.device("cuda", (dev.index + 1) % torch.cuda.device_count())
        with _backend.on_device(other):
            assert torch.cuda.current_device() == other.index
            assert handle(other) == torch.cuda.current_stream(other).cuda_stream
        assert torch.cuda.current_device() == dev.index
        # a launch on the other device from here: the routing kernel runs there and is right
        idx = torch.randint(-1, 16, (300, 4), device=other)
        got = deep_gemm.moe_routing(idx, 16)
        want = deep_gemm.reference.moe_routing(idx.cpu(), 16)
        assert all(torch.equal(g.cpu(), w) for g, w in zip(got, want))
        # and the whole layer, forward and backward, on the other device (poisoned grads are not needed: the
        # outputs are fresh tensors the kernels write)
        g = torch.Generator().manual_seed(1)
        T, E, K, H, I = 300, 8, 2, 256, 256
        x = torch.randn(T, H, generator=g).to(torch.bfloat16)
        w13 = (torch.randn(E, 2 * I, H, generator=g) / H ** 0.5).to(torch.bfloat16)
        w2 = (torch.randn(E, H, I, generator=g) / I ** 0.5).to(torch.bfloat16)
        idx = torch.stack([torch.randperm(E, generator=g)[:K] for _ in range(T)])
        tw = torch.rand(T, K, generator=g)
        leaves = [t.to(other).requires_grad_() for t in (x, tw, w13, w2)]
        y = deep_gemm.mega_moe(leaves[0], idx.to(other), *leaves[1:])
        y.float().square().sum().backward()
        ref = [t.detach().double().requires_grad_() for t in (x, tw, w13, w2)]
        y_ref = deep_gemm.reference.moe_forward_simple(ref[0], idx, ref[1], ref[2], ref[3], z_dtype=torch.bfloat16)
        y_ref.square().sum().backward()
        assert y.device == other and torch.cuda.current_device() == dev.index
        pairs = [(y, y_ref)] + [(a.grad, b.grad) for a, b in zip(leaves, ref)]
        for a, b in pairs:
            err = ((a.double().cpu() - b.detach()).norm() / b.detach().norm()).item()
            assert err <= 1e-2, err
