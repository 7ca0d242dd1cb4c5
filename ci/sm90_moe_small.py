"""A small MoE forward + backward through the sm90 kernels (for compute-sanitizer runs).
PK_SMALL_SHAPE=T,E,K,H,I overrides the shape (e.g. I = 256 for the 128 x 256 dH variants)."""
import os

import torch

import deep_gemm
from deep_gemm.kernels import sm90

torch.manual_seed(0)
T, E, K, H, I = (int(v) for v in os.environ.get("PK_SMALL_SHAPE", "67,4,2,256,128").split(","))
dev = "cuda"
x = torch.randn(T, H, device=dev).to(torch.bfloat16)
w13 = (torch.randn(E, 2 * I, H, device=dev) / 16).to(torch.bfloat16)
w2 = (torch.randn(E, H, I, device=dev) / 16).to(torch.bfloat16)
idx = torch.randint(-1, E, (T, K), device=dev)
w = torch.rand(T, K, device=dev)
dy = torch.randn(T, H, device=dev).to(torch.bfloat16)
r = deep_gemm.moe_routing(idx, E)
y, z = sm90.moe_forward(x, idx, w, w13, w2, r, None, "bf16")
dx, dw13, dw2, dtw = sm90.moe_backward(dy, x, idx, w, w13, w2, r, z, 1.0, "bf16")
# bf16 weight gradients take other pipelines (dW1's operands swapped, its tiles stored transposed, where the shape
# allows: 2I % 256 == 0 and H / 128 even, as with the default sanitizer shape).
_, dw13_16, dw2_16, _ = sm90.moe_backward(dy, x, idx, w, w13, w2, r, z, 1.0, "bf16", wgrad_dtype=torch.bfloat16)
torch.cuda.synchronize()
print("small case ok", float(y.float().norm()), float(dx.float().norm()), float(dtw.norm()),
      float((dw13_16.float() - dw13).norm() / dw13.norm()), float((dw2_16.float() - dw2).norm() / dw2.norm()))
# dW1's swapped form with dz shared by 4-CTA clusters (k-grouped debug bit 11; it needs x's 128-column tiles in fours,
# so x here has 512 columns), one group empty and one partial chunk.
from deep_gemm.kernels.sm90_kgrouped import k_grouped_wgrad  # noqa: E402

off = torch.tensor([0, 70, 70, 200, 203], dtype=torch.int32, device=dev)  # groups of 70, 0, 130 and 3 rows
x4 = torch.randn(T, 512, device=dev).to(torch.bfloat16)
dz4 = torch.randn(203, 2 * I, device=dev).to(torch.bfloat16)
tok4 = torch.randint(0, T, (203,), device=dev, dtype=torch.int32)
outs4 = []
for debug in (0, 2048):
    o = torch.full((4, 2 * I, 512), float("nan"), device=dev, dtype=torch.bfloat16)
    outs4.append(k_grouped_wgrad(dz4, None, x4, tok4, off, o, _debug=debug).float())
torch.cuda.synchronize()
print("4-CTA dW1 ok", float((outs4[1] - outs4[0]).norm() / outs4[0].norm()))
