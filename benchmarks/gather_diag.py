"""GEMM 1's product through the ping-pong 128 x 192 m-grouped kernel on the pre-gathered copy of x, without a row
list (contiguous A by cp.async) and with the identity list (the gathering producer, topk 1), interleaved: what the
gathering producer's own code costs when the rows are the same. Runs nothing else (safe with diagnostic builds that
break the real gather).

    PYTHONPATH=. PK_LIBRARY_PATH=build/sm90 python3 benchmarks/gather_diag.py [--shapes 30b,235b]
"""
import argparse
import ctypes
import os
import statistics

import torch

import deep_gemm
from deep_gemm.kernels import sm90
from deep_gemm.testing import cuda_time_ms
from bench_moe import SHAPES  # benchmarks/ is on sys.path when run as a script


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", default="30b,235b")
    ap.add_argument("--rounds", type=int, default=7)
    a = ap.parse_args()
    os.environ["PK_SM90_A_LOAD"] = "cp_async"
    dev, T, E, K = torch.device("cuda"), 16384, 128, 8
    for shape in a.shapes.split(","):
        H, I = SHAPES[shape]
        n = T * K
        idx = torch.randint(0, E, (T, K), device=dev, dtype=torch.int32)
        _, off, _, _ = deep_gemm.moe_routing(idx, E, validate=False)
        xg = torch.randn(n, H, device=dev).to(torch.bfloat16)
        w13 = (torch.randn(E, 2 * I, H, device=dev) * 0.02).to(torch.bfloat16)
        z = torch.empty(n, 2 * I, device=dev, dtype=torch.bfloat16)
        ident = torch.arange(n, device=dev, dtype=torch.int32)
        lib = sm90._lib(dev, "pk_sm90_m_grouped_gemm_bf16")

        def run(a_index):
            return lambda: sm90._m_grouped(lib, xg, H, a_index, 1, w13, 0, E, 2 * I, H, 0, off, 0, n, z, 2 * I, dev,
                                           ctypes.c_int(4))
        fns = {"no row list (contiguous, cp.async)": run(None), "identity row list (gathering producer)": run(ident)}
        times = {k: [] for k in fns}
        for r in range(a.rounds):
            for k in (list(fns) if r % 2 == 0 else list(fns)[::-1]):
                times[k].append(cuda_time_ms(fns[k], reps=5, warmup=1))
        f = 2 * n * H * 2 * I
        print(f"{shape}: median of {a.rounds} rounds")
        for k, v in times.items():
            m = statistics.median(v)
            print(f"| {k} | {m:.3f} ms | {f / m / 1e9:.0f} TFLOP/s |")


if __name__ == "__main__":
    main()
