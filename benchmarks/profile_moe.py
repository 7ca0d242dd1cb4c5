"""One MoE forward + backward at a benchmark shape, bracketed by cudaProfilerStart/Stop, for ncu:

    ncu --profile-from-start off --clock-control none --section SpeedOfLight ... \
        python3 benchmarks/profile_moe.py --shape 30b

Warm-up runs happen outside the profiled range; exactly one fwd + bwd is inside it.
"""
import argparse

import torch

import deep_gemm
from deep_gemm.kernels import sm90

SHAPES = {"30b": (2048, 768), "235b": (4096, 1536)}

ap = argparse.ArgumentParser()
ap.add_argument("--shape", default="30b", choices=sorted(SHAPES))
ap.add_argument("--tokens", type=int, default=16384)
args = ap.parse_args()
H, I = SHAPES[args.shape]
T, E, K, dev = args.tokens, 128, 8, "cuda"
g = torch.Generator(device=dev).manual_seed(0)
x = torch.randn(T, H, device=dev, generator=g).to(torch.bfloat16)
w13 = (torch.randn(E, 2 * I, H, device=dev, generator=g) / H ** 0.5).to(torch.bfloat16)
w2 = (torch.randn(E, H, I, device=dev, generator=g) / I ** 0.5).to(torch.bfloat16)
idx = torch.rand(T, E, device=dev, generator=g).topk(K, dim=-1).indices
w = torch.softmax(torch.randn(T, K, device=dev, generator=g), -1)
dy = torch.randn(T, H, device=dev, generator=g).to(torch.bfloat16)


def layer():
    r = deep_gemm.moe_routing(idx, E, validate=False)
    y, z = sm90.moe_forward(x, idx, w, w13, w2, r, None, "bf16")
    return sm90.moe_backward(dy, x, idx, w, w13, w2, r, z, None, "bf16")


for _ in range(2):
    layer()
torch.cuda.synchronize()
torch.cuda.profiler.start()
layer()
torch.cuda.synchronize()
torch.cuda.profiler.stop()
print("profiled one forward + backward at", args.shape)
