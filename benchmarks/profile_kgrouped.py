"""One 30B-shape weight-gradient launch (bf16 out) after a warm-up, bracketed by cudaProfilerStart/Stop,
for ncu --profile-from-start off:

    ncu --profile-from-start off --section SourceCounters ... python3 benchmarks/profile_kgrouped.py \
        --which dW1 --debug 65        # 65: MMAs only (no loads, no stores); 0: the real kernel
"""
import argparse

import torch

from deep_gemm.kernels.sm90_kgrouped import k_grouped_wgrad

ap = argparse.ArgumentParser()
ap.add_argument("--which", default="dW1", choices=["dW1", "dW2"])
ap.add_argument("--debug", type=int, default=0)
ap.add_argument("--variant", type=int, default=0)
a = ap.parse_args()
T, K, E, H, I = 16384, 8, 128, 2048, 768
R = T * K
g = torch.Generator(device="cuda").manual_seed(0)
idx = torch.argsort(torch.rand(T, E, generator=g, device="cuda"), dim=1)[:, :K].reshape(-1)
order = torch.argsort(idx, stable=True)
tok = (order // K).to(torch.int32)
off = torch.zeros(E + 1, dtype=torch.int32, device="cuda")
off[1:] = torch.cumsum(torch.bincount(idx, minlength=E), 0)
if a.which == "dW2":
    args = (torch.randn(T, H, generator=g, device="cuda").bfloat16(), tok,
            torch.randn(R, I, generator=g, device="cuda").bfloat16(), None)
    out = torch.empty(E, H, I, device="cuda", dtype=torch.bfloat16)
else:
    args = (torch.randn(R, 2 * I, generator=g, device="cuda").bfloat16(), None,
            torch.randn(T, H, generator=g, device="cuda").bfloat16(), tok)
    out = torch.empty(E, 2 * I, H, device="cuda", dtype=torch.bfloat16)
run = lambda: k_grouped_wgrad(*args, off, out, _debug=a.debug, _variant=a.variant)  # noqa: E731
run()
torch.cuda.synchronize()
torch.cuda.cudart().cudaProfilerStart()
run()
torch.cuda.synchronize()
torch.cuda.cudart().cudaProfilerStop()
