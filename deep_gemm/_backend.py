"""GPU detection, kernel-library loading and backend choice.

Backends:
  reference  the pure-PyTorch implementation in deep_gemm.reference (CPU tensors, or any GPU)
  sm90       libprime_kernels_sm90.so  (Hopper, compute capability 9.x)
  sm100      libprime_kernels_sm100.so (Blackwell, compute capability 10.x)

The choice is made per device on first use. DG_BACKEND=reference|sm90|sm100|auto forces it.
Extra library folders can be given in PK_LIBRARY_PATH (os.pathsep-separated), e.g. a build tree.
"""
from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import threading
import warnings
from dataclasses import dataclass
from pathlib import Path

import torch

ABI_VERSION = 1
LIB_DIR = Path(__file__).resolve().parent / "_lib"
# arch tag -> (compute capability major, distribution that ships it alone)
ARCHS = {"sm90": (9, "prime-kernels-sm90"), "sm100": (10, "prime-kernels-sm100")}
BACKEND_NAMES = ("reference", *ARCHS)

STATUS_INVALID_ARGUMENT = 1
STATUS_NOT_SUPPORTED = 3


class KernelError(RuntimeError):
    """A kernel library call failed (CUDA error, or an internal check)."""


def _search_dirs() -> list[Path]:
    dirs = [Path(p) for p in os.environ.get("PK_LIBRARY_PATH", "").split(os.pathsep) if p]
    return dirs + [LIB_DIR]


def installed_libraries() -> dict[str, Path]:
    """Arch tag -> path of each kernel library found (first search dir wins)."""
    found: dict[str, Path] = {}
    for d in _search_dirs():
        for arch in ARCHS:
            p = d / f"libprime_kernels_{arch}.so"
            if arch not in found and p.is_file():
                found[arch] = p
    return found


class NativeLibrary:
    """One arch's kernel library, reached through its plain C ABI."""

    def __init__(self, arch: str, path: Path):
        self.arch, self.path = arch, path
        try:
            self._dll = ctypes.CDLL(str(path), mode=ctypes.RTLD_LOCAL)
        except OSError as e:
            raise KernelError(f"could not load the {arch} kernel library {path}: {e}") from e
        self._dll.pk_last_error.restype = ctypes.c_char_p
        self._entries: dict = {}  # entry-point name -> ctypes function, its restype set (_entry)
        abi = self._dll.pk_abi_version()
        if abi != ABI_VERSION:
            raise KernelError(f"{path} has ABI version {abi}, this deep_gemm expects {ABI_VERSION}: "
                              "reinstall prime-kernels so the Python package and libraries match")
        self.lib_arch = self._dll.pk_library_arch()
        self.cuda_runtime_version = self._dll.pk_cuda_runtime_version()

    def has(self, fn: str) -> bool:
        return hasattr(self._dll, fn)

    def raw(self, fn: str):
        return getattr(self._dll, fn)

    def _entry(self, fn: str, restype):
        """The ctypes function of entry point fn, looked up once (getattr on a CDLL and setting restype
        cost µs per launch)."""
        f = self._entries.get(fn)
        if f is None:
            f = getattr(self._dll, fn)
            f.restype = restype
            self._entries[fn] = f
        return f

    def query(self, fn: str, *args) -> int:
        """Calls an entry point that returns an int64 (a size; no status)."""
        return int(self._entry(fn, ctypes.c_int64)(*args))

    def call(self, fn: str, *args) -> None:
        """Calls an entry point that returns a status code; raises on failure."""
        status = self._entry(fn, ctypes.c_int)(*args)
        if status != 0:
            msg = self._dll.pk_last_error().decode(errors="replace")
            if status == STATUS_INVALID_ARGUMENT:
                raise ValueError(msg)
            if status == STATUS_NOT_SUPPORTED:
                raise NotImplementedError(msg)
            raise KernelError(msg)

    def driver_version(self) -> int:
        v = ctypes.c_int(0)
        self.call("pk_driver_version", ctypes.byref(v))
        return v.value


_lock = threading.Lock()


@functools.lru_cache(maxsize=None)
def load_library(arch: str) -> NativeLibrary:
    libs = installed_libraries()
    if arch not in libs:
        raise KernelError(f"the {arch} kernel library is not installed "
                          f"(installed: {', '.join(libs) or 'none'}); "
                          f"install prime-kernels or {ARCHS[arch][1]}")
    return NativeLibrary(arch, libs[arch])


@dataclass(frozen=True)
class Backend:
    name: str                      # "reference", "sm90" or "sm100"
    lib: NativeLibrary | None      # None for the reference backend

    @property
    def is_native(self) -> bool:
        return self.lib is not None

    def has(self, fn: str) -> bool:
        return self.lib is not None and self.lib.has(fn)


REFERENCE = Backend("reference", None)
_warned: set[int] = set()


def arch_for_capability(major: int) -> str | None:
    return next((a for a, (m, _) in ARCHS.items() if m == major), None)


def _describe_gpu(index: int) -> str:
    name = torch.cuda.get_device_name(index)
    major, minor = torch.cuda.get_device_capability(index)
    return f"{name} (cuda:{index}, compute capability {major}.{minor})"


def _install_hint(arch: str | None) -> str:
    if arch is None:
        return ("prime-kernels ships kernels for Hopper (sm_90: H100, H200) and Blackwell "
                "(sm_100: B200) only")
    return f"install prime-kernels (all archs) or {ARCHS[arch][1]}"


@functools.lru_cache(maxsize=None)
def _backend_for_cuda_index(index: int, forced: str) -> Backend:
    major, _ = torch.cuda.get_device_capability(index)
    arch = arch_for_capability(major)
    libs = installed_libraries()
    if forced == "reference":
        return REFERENCE
    if forced in ARCHS:
        if forced != arch:
            raise KernelError(f"DG_BACKEND={forced} but {_describe_gpu(index)} needs "
                              f"{arch or 'an arch prime-kernels does not ship'}")
        return Backend(forced, load_library(forced))
    if arch is not None and arch in libs:
        return Backend(arch, load_library(arch))
    if index not in _warned:
        _warned.add(index)
        warnings.warn(
            f"prime-kernels: no kernel library for {_describe_gpu(index)}; installed libraries: "
            f"{', '.join(libs) or 'none'}. Falling back to the slow pure-PyTorch reference backend; "
            f"{_install_hint(arch)}.", RuntimeWarning, stacklevel=3)
    return REFERENCE


def forced_backend() -> str:
    forced = os.environ.get("DG_BACKEND", "auto").strip().lower() or "auto"
    if forced not in BACKEND_NAMES and forced != "auto":
        raise ValueError(f"DG_BACKEND must be one of auto, {', '.join(BACKEND_NAMES)}; got {forced!r}")
    return forced


def _index(device: torch.device) -> int:
    """The CUDA index of `device` (the current device for a bare "cuda")."""
    return device.index if device.index is not None else torch.cuda.current_device()


def backend_for(device: torch.device | str) -> Backend:
    """The backend that runs ops on `device` (chosen on first use, then cached)."""
    if not isinstance(device, torch.device):
        device = torch.device(device)
    if device.type != "cuda":
        return REFERENCE
    with _lock:
        return _backend_for_cuda_index(_index(device), forced_backend())


def require_native(device: torch.device | str, fn: str) -> Backend:
    """The native backend for `device` if it has entry point `fn`, else an explanatory error."""
    b = backend_for(device)
    if not b.has(fn):
        raise NotImplementedError(f"{fn} needs a prime-kernels GPU library; backend for {device} is "
                                  f"{b.name}")
    return b


# ---- ctypes argument helpers ---------------------------------------------------------------

def ptr(t: torch.Tensor | None) -> ctypes.c_void_p:
    return ctypes.c_void_p(0 if t is None else t.data_ptr())


# torch's raw accessors (what its generated code uses): the current stream's handle and the current
# device without building a Stream object or a device guard: 13.0 -> 0.8 and 7.2 -> 1.5 µs a launch on
# the H200 host (benchmarks/host_overhead.py --breakdown, results/session16/run4). Absent on CPU builds of torch.
_raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)
_raw_device = getattr(torch._C, "_cuda_getDevice", None)
_SAME_DEVICE = contextlib.nullcontext()


def stream_of(device: torch.device) -> ctypes.c_void_p:
    """The current CUDA stream of `device`, as the C entry points take it."""
    if _raw_stream is not None:
        return ctypes.c_void_p(_raw_stream(_index(device)))
    return ctypes.c_void_p(torch.cuda.current_stream(device).cuda_stream)


def on_device(device: torch.device):
    """Context in which the kernel libraries launch on `device` (their launches and attribute calls use the
    current device): torch.cuda.device(device), or nothing to do when it is current already."""
    if device.index is None or (_raw_device is not None and _raw_device() == device.index):
        return _SAME_DEVICE
    return torch.cuda.device(device)


def info() -> dict:
    """Everything `prime-kernels info` prints, as a dict."""
    from . import __version__
    libs = installed_libraries()
    out = {
        "prime-kernels": __version__,
        "torch": torch.__version__,
        "torch CUDA": torch.version.cuda or "none (CPU build)",
        "libraries": {},
        "gpus": [],
        "DG_BACKEND": os.environ.get("DG_BACKEND", "auto"),
    }
    for arch, path in libs.items():
        entry = {"path": str(path)}
        try:
            lib = load_library(arch)
            entry["built with CUDA runtime"] = _fmt_cuda(lib.cuda_runtime_version)
        except Exception as e:  # shown, not raised: info must always print
            entry["error"] = str(e)
        out["libraries"][arch] = entry
    if torch.cuda.is_available():
        for i in range(torch.cuda.device_count()):
            major, minor = torch.cuda.get_device_capability(i)
            try:
                backend = backend_for(torch.device("cuda", i)).name
            except Exception as e:
                backend = f"error: {e}"
            out["gpus"].append({"index": i, "name": torch.cuda.get_device_name(i),
                                "capability": f"{major}.{minor}", "backend": backend})
        lib = next((load_library(a) for a in libs), None) if libs else None
        if lib is not None:
            try:
                out["CUDA driver"] = _fmt_cuda(lib.driver_version())
            except Exception as e:
                out["CUDA driver"] = f"error: {e}"
    out["CPU tensors backend"] = "reference"
    out["distributions"] = installed_distributions()
    return out


def installed_distributions() -> dict[str, str]:
    """Which prime-kernels wheels are installed (they all ship deep_gemm: exactly one should be)."""
    from importlib import metadata
    found = {}
    for dist in ("prime-kernels", *(d for _, d in ARCHS.values())):
        try:
            found[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            pass
    return found


def _fmt_cuda(v: int) -> str:
    return f"{v // 1000}.{(v % 1000) // 10}"
