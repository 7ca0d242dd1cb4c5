"""PEP 517 backend: scikit-build-core, plus the PyPI CUDA toolchain when the machine has none.

`pip install .` on a machine with only Python, pip and a host compiler still builds: if no nvcc
is found ($CUDACXX, PATH, $CUDA_HOME, /usr/local/cuda), the build requirements gain the pinned
CUDA 13.0 wheels below and CMake finds nvcc in site-packages/nvidia/cu13/bin.
"""
from __future__ import annotations

import os
import shutil

from scikit_build_core import build as _skbuild
from scikit_build_core.build import *  # noqa: F401,F403  (re-export the whole PEP 517 interface)

# One pinned CUDA 13 toolchain (nvcc pulls nvvm, crt and runtime; cccl has the libcu++/CUB headers).
PYPI_CUDA_TOOLCHAIN = [
    "nvidia-cuda-nvcc==13.0.88",
    "nvidia-cuda-crt==13.0.88",
    "nvidia-nvvm==13.0.88",
    "nvidia-cuda-runtime==13.0.96",
    "nvidia-cuda-cccl==13.0.85",
]


def system_nvcc() -> str | None:
    if os.environ.get("PK_CUDA_FROM_PYPI") == "1":  # force the PyPI toolchain (tests, CI images)
        return None
    env = os.environ.get("CUDACXX")
    if env and os.path.exists(env):
        return env
    found = shutil.which("nvcc")
    if found:
        return found
    for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if root and os.path.exists(os.path.join(root, "bin", "nvcc")):
            return os.path.join(root, "bin", "nvcc")
    return None


def _toolchain() -> list[str]:
    if os.environ.get("PK_ARCHS", "x").strip() == "":
        return []  # no kernels requested: nothing to compile
    return [] if system_nvcc() else list(PYPI_CUDA_TOOLCHAIN)


def get_requires_for_build_wheel(config_settings=None):
    return _skbuild.get_requires_for_build_wheel(config_settings) + _toolchain()


def get_requires_for_build_editable(config_settings=None):
    return _skbuild.get_requires_for_build_editable(config_settings) + _toolchain()
