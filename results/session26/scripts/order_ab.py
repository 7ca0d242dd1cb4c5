"""Session 26 run 2: moe_backward with session 25's order (everything allocated up front; dW2, then dW1) against
HEAD's (temporaries dropped after their last reader; dW1, then dW2; each gradient allocated before its kernel).
The kernels and their arguments are the same; only the order of the two weight-gradient launches and the
allocations differ. Back to back 1.5 s each, A B A B, both shapes; bf16 weight gradients (bench_moe's setting).

    PYTHONPATH=. PK_LIBRARY_PATH=... python3 results/session26/scripts/order_ab.py
"""
import ctypes
import os
import sys

import torch

import deep_gemm
from deep_gemm.kernels import sm90
from deep_gemm.kernels.sm90 import _BF16, _c, _clamp_arg, _lib, _m_grouped, _variant, _wgrad, on_device, ptr, stream_of
from deep_gemm.testing import cuda_sustained_ms

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "benchmarks"))
from bench_moe import layer_inputs, peak_mib  # noqa: E402


def session25_backward(dy, x, w, w13, w2, routing, z, T, K, E, H, I):
    """Session 25's moe_backward body (bf16 weight gradients, no accumulators)."""
    dev = x.device
    _, offsets, sorted_pair, pair_to_sorted = routing
    n = T * K
    dx = torch.empty(T, H, dtype=_BF16, device=dev)
    dw13 = torch.empty(E, 2 * I, H, dtype=_BF16, device=dev)
    dw2 = torch.empty(E, H, I, dtype=_BF16, device=dev)
    dtw = torch.empty(T, K, dtype=torch.float32, device=dev)
    lib = _lib(dev, "pk_sm90_moe_dh_swiglu_bwd")
    tw = _c(w.to(torch.float32))
    dz = torch.empty(n, 2 * I, dtype=_BF16, device=dev)
    hw = torch.empty(n, I, dtype=_BF16, device=dev)
    parts = I // 128
    part = torch.empty(n, parts, dtype=torch.float32, device=dev)
    dxs = torch.empty(n, H, dtype=_BF16, device=dev)
    with on_device(dev):
        s = stream_of(dev)
        lib.call("pk_sm90_moe_dh_swiglu_bwd", ptr(dy), ctypes.c_int64(T), ctypes.c_int(H), ctypes.c_int(K),
                 ptr(sorted_pair), ptr(offsets), ctypes.c_int(E), ptr(w2), ctypes.c_int(I), ptr(z),
                 ptr(tw), ptr(dz), ptr(hw), ptr(part), _clamp_arg(None), _variant("DH"), s)
        _m_grouped(lib, dz, 2 * I, None, 1, w13, 1, E, H, 2 * I, 0, offsets, 0, n, dxs, H, dev, _variant("DX"))
        lib.call("pk_sm90_token_combine", ptr(dxs), ctypes.c_int(H), ctypes.c_int64(T), ctypes.c_int(K),
                 ptr(pair_to_sorted), ptr(None), ptr(dx), ptr(part), ctypes.c_int(parts), ptr(dtw), s)
    tok = torch.div(sorted_pair, K, rounding_mode="floor").to(torch.int32)
    _wgrad(dy, tok, hw, None, offsets, dw2)
    _wgrad(dz, None, x, tok, offsets, dw13)
    return dx, dw13, dw2, dtw


print("| shape | form | back to back ms (A B A B) | peak MiB of the backward |")
print("|---|---|---|---|")
for shape, (H, I) in (("30b", (2048, 768)), ("235b", (4096, 1536))):
    T, E, K = 16384, 128, 8
    x, w13, w2, idx, w, dy = layer_inputs(shape, T, E, K)
    r = deep_gemm.moe_routing(idx, E, validate=False)
    y, z = sm90.moe_forward(x, idx, w, w13, w2, r, None, "bf16")
    old = lambda: session25_backward(dy, x, w, w13, w2, r, z, T, K, E, H, I)  # noqa: E731
    new = lambda: sm90.moe_backward(dy, x, idx, w, w13, w2, r, z, None, "bf16", wgrad_dtype=torch.bfloat16)  # noqa: E731
    a, b = old(), new()
    torch.cuda.synchronize()
    same = all(torch.equal(u, v) for u, v in zip(a, b))
    del a, b
    times = {"session 25 order": [], "HEAD order": []}
    for _ in range(2):
        for name, fn in (("session 25 order", old), ("HEAD order", new)):
            times[name].append(cuda_sustained_ms(fn, 1.5))
    for name, fn in (("session 25 order", old), ("HEAD order", new)):
        print(f"| {shape} | {name} | {' / '.join(f'{t:.3f}' for t in times[name])} | {peak_mib(fn):.0f} |")
    print(f"| {shape} | outputs bitwise equal | {same} | |")
