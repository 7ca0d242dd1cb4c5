"""torch.compile(fullgraph=True) of a module that uses MegaMoE: no graph breaks, same results as eager."""
import pytest
import torch
from torch import nn

import deep_gemm


class TinyMoELayer(nn.Module):
    """Router (softmax top-k) + MegaMoE experts + a residual, as a model would use it."""

    def __init__(self, E=8, H=128, I=128, K=2, precision="bf16"):
        super().__init__()
        self.k = K
        self.router = nn.Linear(H, E, bias=False, dtype=torch.bfloat16)
        self.experts = deep_gemm.MegaMoE(E, H, I, precision=precision, activation_clamp=8.0)

    def forward(self, x):
        probs = torch.softmax(self.router(x).float(), dim=-1)
        w, idx = torch.topk(probs, self.k, dim=-1)
        w = w / w.sum(-1, keepdim=True)
        return x + self.experts(x, idx, w)


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_compile_fullgraph_fwd_bwd(backend, rng):
    torch._dynamo.reset()
    torch.manual_seed(int(torch.randint(0, 2**31 - 1, (), generator=rng)))
    m = TinyMoELayer()
    x = torch.randn(2, 9, 128, generator=rng).bfloat16()
    xe, xc = x.clone().requires_grad_(), x.clone().requires_grad_()
    ye = m(xe)
    ye.float().square().sum().backward()
    ge = [p.grad.clone() for p in m.parameters()]
    m.zero_grad()
    mc = torch.compile(m, fullgraph=True, backend=backend)
    yc = mc(xc)
    yc.float().square().sum().backward()
    torch.testing.assert_close(yc, ye, rtol=2e-2, atol=2e-2)
    assert deep_gemm.calc_diff(xc.grad, xe.grad) < 1e-4
    for a, b in zip([p.grad for p in m.parameters()], ge):
        assert deep_gemm.calc_diff(a, b) < 1e-4


def test_compile_dynamic_token_count(rng):
    torch._dynamo.reset()
    m = TinyMoELayer(precision="fp8_bwd")
    mc = torch.compile(m, fullgraph=True, backend="aot_eager", dynamic=True)
    for T in (5, 17, 0):
        x = torch.randn(T, 128, generator=rng).bfloat16().requires_grad_()
        y = mc(x)
        y.float().sum().backward()
        assert y.shape == (T, 128) and x.grad.shape == (T, 128)


@pytest.mark.gpu
def test_compile_gpu(rng):
    torch._dynamo.reset()
    m = TinyMoELayer(E=16, H=256, I=128, K=4).cuda()
    x = torch.randn(3, 100, 256, generator=rng).bfloat16().cuda().requires_grad_()
    ye = m(x)
    yc = torch.compile(m, fullgraph=True)(x)
    assert deep_gemm.calc_diff(yc, ye) < 1e-5
    yc.float().sum().backward()
    assert x.grad is not None and torch.isfinite(x.grad).all()
