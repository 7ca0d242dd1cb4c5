"""One MoE forward + backward at a benchmark shape, bracketed by cudaProfilerStart/Stop, for ncu:

    ncu --profile-from-start off --clock-control none --section SpeedOfLight ... \
        python3 benchmarks/profile_moe.py --shape 30b

Warm-up runs happen outside the profiled range; exactly one fwd + bwd is inside it.
--entries REGEX: instead, one call of each benchmarks/interleaved.py entry whose name the regular expression
matches (ours and the `ceiling ...` cuBLAS products side by side, e.g. '^(GEMM 1 default|ceiling GEMM 1: torch.bmm,
balanced groups)$'), in name order, each warmed up outside the range.
"""
import argparse
import os
import re
import sys

import torch

import deep_gemm
from deep_gemm.kernels import sm90

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_moe import SHAPES, layer_inputs  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--shape", default="30b", choices=sorted(SHAPES))
ap.add_argument("--tokens", type=int, default=16384)
ap.add_argument("--entries", default="", help="regular expression over benchmarks/interleaved.py's entry names")
args = ap.parse_args()
T, E, K = args.tokens, 128, 8

if args.entries:
    from interleaved import variants  # noqa: E402
    pattern = re.compile(args.entries)
    chosen = sorted((k, fn) for k, (fn, _) in variants(args.shape, T, E, K).items() if pattern.search(k))
    if not chosen:
        sys.exit(f"no interleaved.py entry matches {args.entries!r}")
    for _, fn in chosen:
        fn()
    torch.cuda.synchronize()
    torch.cuda.profiler.start()
    for name, fn in chosen:
        fn()
        torch.cuda.synchronize()
    torch.cuda.profiler.stop()
    print("profiled, in this order:", "; ".join(k for k, _ in chosen))
    sys.exit(0)

x, w13, w2, idx, w, dy = layer_inputs(args.shape, T, E, K)


def layer():
    r = deep_gemm.moe_routing(idx, E, validate=False)
    y, z = sm90.moe_forward(x, idx, w, w13, w2, r, None, "bf16")
    return sm90.moe_backward(dy, x, idx, w, w13, w2, r, z, None, "bf16", wgrad_dtype=torch.bfloat16)


for _ in range(2):
    layer()
torch.cuda.synchronize()
torch.cuda.profiler.start()
layer()
torch.cuda.synchronize()
torch.cuda.profiler.stop()
print("profiled one forward + backward at", args.shape)
