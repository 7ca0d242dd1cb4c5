"""Synchronised-call time of routing + forward and of routing + forward + backward at the 30B dims, at the benchmark's
T = 16384 and at T = 1024 (where the host path, not the GPU, sets the time), for an A/B of host-side changes (run with
PYTHONPATH selecting the deep_gemm package)."""
import os
import sys

import torch

import deep_gemm
from deep_gemm.kernels import sm90
from deep_gemm.testing import cuda_time_ms

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "benchmarks"))
from bench_moe import layer_inputs  # noqa: E402

out = []
for T in (16384, 1024):
    x, w13, w2, idx, w, dy = layer_inputs("30b", T, 128, 8)

    def fwd():
        r = deep_gemm.moe_routing(idx, 128, validate=False)
        return r, sm90.moe_forward(x, idx, w, w13, w2, r, None, "bf16")

    def fb():
        r, (y, z) = fwd()
        return sm90.moe_backward(dy, x, idx, w, w13, w2, r, z, None, "bf16", wgrad_dtype=torch.bfloat16)

    out.append(f"T={T} fwd {cuda_time_ms(fwd, reps=40):.3f} ms, fwd+bwd {cuda_time_ms(fb, reps=20):.3f} ms")
print(f"{deep_gemm.__file__}: " + "; ".join(out))
