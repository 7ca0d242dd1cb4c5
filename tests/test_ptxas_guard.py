"""cmake/ptxas_guard.py: the build fails where ptxas serializes a kernel's wgmma (C7520, C7515)."""
import pathlib
import subprocess
import sys

GUARD = pathlib.Path(__file__).resolve().parents[1] / "cmake" / "ptxas_guard.py"
_C7520 = ("ptxas info    : (C7520) Potential Performance Loss: wgmma.mma_async instructions are serialized due to "
          "program dependence on compiler-inserted WG.AR in divergent path in the function '_Z6kernelv'")
_C7515 = ("ptxas info    : (C7515) Potential Performance Loss: wgmma.mma_async instructions are serialized due to "
          "non wgmma instructions defining accumulator registers of a wgmma between start and end of the pipeline "
          "stage in the function '_Z7kernel2v'")
_C7519 = ("ptxas info    : (C7519) warpgroup.arrive is injected in around line 10 by compiler to allow use of "
          "registers in GMMA in function '_Z6kernelv'")


def run_guard(output: str, rc: int = 0, allow: bool = False):
    fake_nvcc = [sys.executable, "-c", f"import sys; print({output!r}); sys.exit({rc})"]
    env = {"PATH": "/usr/bin:/bin", **({"PK_ALLOW_SERIALIZED_WGMMA": "1"} if allow else {})}
    return subprocess.run([sys.executable, str(GUARD), *fake_nvcc], capture_output=True, text=True, env=env)


def test_serialized_wgmma_fails_the_compile_and_names_the_kernel():
    r = run_guard(_C7520)
    assert r.returncode == 1
    assert "_Z6kernelv" in r.stderr and "C7520" in r.stderr
    assert _C7520 in r.stdout  # nvcc's own output still shows
    r = run_guard(_C7515 + "\n" + _C7520)
    assert r.returncode == 1
    assert "_Z7kernel2v" in r.stderr and "_Z6kernelv" in r.stderr and "C7515, C7520" in r.stderr


def test_clean_and_injected_arrive_only_pass():
    assert run_guard("ptxas info    : Used 168 registers").returncode == 0
    assert run_guard(_C7519).returncode == 0  # an injected arrive alone is not a serialization


def test_override_and_compile_errors():
    assert run_guard(_C7520, allow=True).returncode == 0
    assert run_guard("error: something", rc=3).returncode == 3  # the compiler's own failure passes through
    assert subprocess.run([sys.executable, str(GUARD)], capture_output=True).returncode == 2
