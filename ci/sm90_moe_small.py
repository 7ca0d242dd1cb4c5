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
