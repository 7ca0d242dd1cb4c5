"""Packaging: the installed arch libraries, the variant wheels, and an install from the local index
into a fresh virtual environment. Runs on CPU (CI); building wheels takes minutes, so the wheel
tests reuse the index in $PK_WHEEL_INDEX when ci/test.sh has built it."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import deep_gemm
from deep_gemm._backend import installed_libraries

REPO = Path(__file__).resolve().parent.parent
EXPECT = [a for a in os.environ.get("PK_EXPECT_ARCHS", "").split(",") if a]
VARIANT_LIBS = {  # distribution -> arch libraries it must carry (and no other)
    "prime_kernels": {"sm90", "sm100"},
    "prime_kernels_sm90": {"sm90"},
    "prime_kernels_sm100": {"sm100"},
}


@pytest.mark.skipif(not EXPECT, reason="PK_EXPECT_ARCHS unset: not testing an installed build (ci/test.sh sets it)")
def test_installed_package_is_the_built_one():
    assert not Path(deep_gemm.__file__).resolve().is_relative_to(REPO / "deep_gemm"), \
        "tests must import the installed package, not the checkout"
    assert sorted(installed_libraries()) == sorted(EXPECT)


@pytest.mark.skipif(not EXPECT, reason="PK_EXPECT_ARCHS unset: not testing an installed build")
@pytest.mark.parametrize("arch", ["sm90", "sm100"])
def test_library_links_no_torch_cuda_driver_or_shared_runtime(arch):
    path = installed_libraries()[arch]
    ldd = subprocess.run(["ldd", str(path)], capture_output=True, text=True, check=True).stdout
    for forbidden in ("libtorch", "libc10", "libcuda.so", "libcudart", "libpython"):
        assert forbidden not in ldd, f"{path.name} links {forbidden}:\n{ldd}"
    # Only our C ABI is exported (static runtime and CUTLASS symbols stay hidden).
    nm = subprocess.run(["nm", "-D", "--defined-only", str(path)], capture_output=True, text=True,
                        check=True).stdout
    exported = {line.split()[-1] for line in nm.splitlines() if line.split()[-2:-1] == ["T"]}
    assert exported and all(s.startswith("pk_") for s in exported), sorted(exported)[:20]


@pytest.fixture(scope="module")
def wheel_index(tmp_path_factory) -> Path:
    index = os.environ.get("PK_WHEEL_INDEX")
    if index and (Path(index) / "simple" / "index.html").exists():
        return Path(index).resolve()
    index = tmp_path_factory.mktemp("index")
    subprocess.run([sys.executable, str(REPO / "wheels" / "build_wheels.py"), "--index", str(index)],
                   check=True)
    return index


def _wheels(index: Path) -> dict[str, Path]:
    return {w.name.split("-")[0]: w for w in (index / "files").glob("*.whl")}


def test_each_variant_wheel_carries_only_its_arch_libraries(wheel_index):
    wheels = _wheels(wheel_index)
    assert set(wheels) == set(VARIANT_LIBS), sorted(wheels)
    for dist, want in VARIANT_LIBS.items():
        names = zipfile.ZipFile(wheels[dist]).namelist()
        libs = {re.search(r"libprime_kernels_(sm\d+)\.so$", n).group(1) for n in names
                if re.search(r"libprime_kernels_sm\d+\.so$", n)}
        assert libs == want, f"{wheels[dist].name} carries {libs}, expected {want}"
        assert not any("/csrc/" in n for n in names), "CUDA sources must not ship in wheels"
        assert re.search(r"-py3-none-manylinux_2_\d+_(x86_64|aarch64)\.whl$", wheels[dist].name), \
            f"{wheels[dist].name}: expected a py3-none-manylinux wheel (auditwheel-repaired)"


def test_index_is_pep503(wheel_index):
    root = (wheel_index / "simple" / "index.html").read_text()
    for project in ("prime-kernels", "prime-kernels-sm90", "prime-kernels-sm100"):
        assert f'href="{project}/"' in root
        page = (wheel_index / "simple" / project / "index.html").read_text()
        assert re.search(r'href="\.\./\.\./files/[^"]+\.whl#sha256=[0-9a-f]{64}"', page)


def test_fresh_venv_install_from_index_info_and_demo(wheel_index, tmp_path):
    """A fresh venv with only torch; each variant installs from the index and runs."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = venv / "bin" / "python"
    torch_spec = os.environ.get("TORCH_SPEC", "torch==2.13.0")
    subprocess.run([str(py), "-m", "pip", "install", "-q", torch_spec], check=True)
    env = {k: v for k, v in os.environ.items() if k not in ("PK_LIBRARY_PATH", "PYTHONPATH", "DG_BACKEND")}
    url = (wheel_index / "simple").as_uri()
    for dist, want in [("prime-kernels", {"sm90", "sm100"}), ("prime-kernels-sm90", {"sm90"}),
                       ("prime-kernels-sm100", {"sm100"})]:
        subprocess.run([str(py), "-m", "pip", "uninstall", "-q", "-y", "prime-kernels",
                        "prime-kernels-sm90", "prime-kernels-sm100"], check=True, env=env)
        subprocess.run([str(py), "-m", "pip", "install", "-q", "--index-url", url, dist], check=True,
                       env=env, cwd=tmp_path)
        info = subprocess.run([str(venv / "bin" / "prime-kernels"), "info"], capture_output=True,
                              text=True, env=env, cwd=tmp_path)
        assert info.returncode == 0, info.stderr
        listed = set(re.findall(r"^  (sm\d+) ", info.stdout, re.M))
        assert listed == want, f"{dist}: info lists {listed}\n{info.stdout}"
    demo = subprocess.run([str(venv / "bin" / "prime-kernels"), "demo", "--device", "cpu"],
                          capture_output=True, text=True, env=env, cwd=tmp_path)
    assert demo.returncode == 0, demo.stdout + demo.stderr
    assert "reference" in demo.stdout and "ms" in demo.stdout, demo.stdout


def test_build_with_the_pypi_cuda_toolchain(tmp_path):
    """A machine with no CUDA: the build backend pulls the pinned nvcc/runtime wheels from PyPI.
    Simulated by PK_CUDA_FROM_PYPI=1 and a PATH without nvcc; the smallest library (sm100) is built."""
    env = {k: v for k, v in os.environ.items() if k not in ("CUDACXX", "CUDA_HOME", "CUDA_PATH")}
    env.update(PK_CUDA_FROM_PYPI="1", PK_ARCHS="100a", PATH=f"{Path(sys.executable).parent}:/usr/bin:/bin")
    out = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-v", "-w", str(tmp_path),
                          str(REPO)], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-4000:]
    assert re.search(r"prime-kernels: nvcc \S*/nvidia/cu13/bin/nvcc \(CUDA 13\.0\)", out.stdout + out.stderr), \
        "the build did not use the PyPI nvcc:\n" + "\n".join(l for l in (out.stdout + out.stderr).splitlines() if "prime-kernels:" in l)
    (wheel,) = tmp_path.glob("*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert any(n.endswith("deep_gemm/_lib/libprime_kernels_sm100.so") for n in names), names
