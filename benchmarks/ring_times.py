"""Where a stage's round trip goes in GEMM 1 and dH (the gathering kernels): clock64 stamps from a library built
with -DPK_SM90_DIAG_RING_TIMES (`ci/build_diag_libraries.sh ring`; timing diagnostics only, never in a wheel).

    PYTHONPATH=. PK_LIBRARY_PATH=.device/diag_ring/build/final python3 benchmarks/ring_times.py [--shapes 30b,235b]

For each kernel: the producer's cycles a stage waiting for a free slot and issuing its copies (thread 0), the
consumer's cycles a k-block waiting for data (the first consumer warpgroup's thread 0), the share of k-blocks it had
to wait for, and for those the cycles from the producer's "issued" stamp to the data's arrival (the flight).
"""
from __future__ import annotations

import argparse
import ctypes
import os
import sys

import torch

from deep_gemm.kernels import sm90

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from interleaved import variants  # noqa: E402

KERNELS = ("GEMM 1 default", "dH default")


def read_counters(lib, reset: bool) -> list[int]:
    out = (ctypes.c_ulonglong * 8)()
    lib.call("pk_sm90_diag_ring_stats", out, ctypes.c_int(int(reset)))
    return list(out)


def report(name: str, c: list[int]) -> str:
    wait_free, issue, stages, wait_full, kblocks, late, flight = c[:7]
    if not stages or not kblocks:
        return f"| {name} | no stamps | | | | | |"
    return (f"| {name} | {wait_free / stages:.0f} | {issue / stages:.0f} | {wait_full / kblocks:.0f} | "
            f"{100 * late / kblocks:.1f} % | {flight / max(late, 1):.0f} | {kblocks} |")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", default="30b,235b")
    ap.add_argument("--tokens", type=int, default=16384)
    ap.add_argument("--iters", type=int, default=5)
    a = ap.parse_args()
    print(f"GPU: {torch.cuda.get_device_name()}")
    print("| kernel | producer cycles a stage waiting for a free slot | issuing its copies | consumer cycles a k-block "
          "waiting for data | k-blocks waited for | flight cycles (issued -> arrived) | k-blocks stamped |")
    print("|---|---|---|---|---|---|---|")
    for shape in a.shapes.split(","):
        vs = variants(shape, a.tokens, 128, 8)
        lib = sm90._lib(torch.device("cuda"), "pk_sm90_diag_ring_stats")
        for k in KERNELS:
            fn = vs[k][0]
            fn()
            torch.cuda.synchronize()
            read_counters(lib, reset=True)
            for _ in range(a.iters):
                fn()
            torch.cuda.synchronize()
            print(report(f"{shape} {k}", read_counters(lib, reset=True)))


if __name__ == "__main__":
    main()
