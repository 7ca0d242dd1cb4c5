"""mega_moe / MegaMoE: reference semantics against float64, gradients, custom-op registration, errors."""
import pytest
import torch

import deep_gemm
from deep_gemm import reference
from deep_gemm.moe import check_precision
from deep_gemm.reference.quant import qdq


def make_topk_idx(T, K, E, mode, gen):
    if mode == "uniform":
        idx = torch.stack([torch.randperm(E, generator=gen)[:K] for _ in range(T)]) if T else torch.empty(0, K)
    elif mode == "skewed":        # most pairs to expert 0
        idx = torch.randint(0, E, (T, K), generator=gen)
        idx[torch.rand(T, K, generator=gen) < 0.8] = 0
    elif mode == "empty_experts":  # only the first quarter of experts used
        idx = torch.randint(0, max(E // 4, 1), (T, K), generator=gen)
    elif mode == "masked":         # ~30% of slots are -1
        idx = torch.randint(0, E, (T, K), generator=gen)
        idx[torch.rand(T, K, generator=gen) < 0.3] = -1
    else:
        raise ValueError(mode)
    return idx.long().reshape(T, K)


def make_inputs(T, K, E, H, I, mode, gen, dtype=torch.bfloat16, idx_dtype=torch.int64):
    x = torch.randn(T, H, generator=gen).to(dtype)
    idx = make_topk_idx(T, K, E, mode, gen).to(idx_dtype)
    tw = torch.rand(T, K, generator=gen)
    tw = (tw / tw.sum(-1, keepdim=True).clamp_min(1e-6)).to(torch.float64 if dtype == torch.float64 else torch.float32)
    w13 = (torch.randn(E, 2 * I, H, generator=gen) * H ** -0.5).to(dtype)
    w2 = (torch.randn(E, H, I, generator=gen) * I ** -0.5).to(dtype)
    return x, idx, tw, w13, w2


def grads_float64(x, idx, tw, w13, w2, dy, clamp=None):
    """Ground truth: the textbook per-slot loop in float64, differentiated by autograd. The GEMM-1
    output is rounded to x.dtype (z_sorted is stored that way; the clamp masks are taken on it)."""
    leaves = [t.detach().double().requires_grad_() for t in (x, tw, w13, w2)]
    y = reference.moe_forward_simple(leaves[0], idx, leaves[1], leaves[2], leaves[3], clamp, z_dtype=x.dtype)
    y = y + 0 * sum(t.sum() for t in leaves)   # keeps the graph connected when T = 0
    y.backward(dy.double())
    return y.detach(), [t.grad for t in leaves]


SHAPES = [  # T, K, E, mode
    (37, 4, 8, "uniform"), (129, 2, 16, "skewed"), (64, 3, 8, "empty_experts"), (51, 4, 8, "masked"),
    (1, 1, 4, "uniform"), (0, 4, 8, "masked"),
]


@pytest.mark.parametrize("T,K,E,mode", SHAPES)
@pytest.mark.parametrize("clamp", [None, 0.75])
def test_bf16_forward_backward_vs_float64(T, K, E, mode, clamp, rng):
    H, I = 128, 128
    x, idx, tw, w13, w2 = make_inputs(T, K, E, H, I, mode, rng)
    dy = torch.randn(T, H, generator=rng).bfloat16()
    y_ref, (dx_ref, dtw_ref, dw13_ref, dw2_ref) = grads_float64(x, idx, tw, w13, w2, dy, clamp)
    leaves = [t.clone().requires_grad_() for t in (x, tw, w13, w2)]
    y = deep_gemm.mega_moe(leaves[0], idx, leaves[1], leaves[2], leaves[3], activation_clamp=clamp)
    assert y.dtype == torch.bfloat16 and y.shape == (T, H)
    y.backward(dy)
    for got, want, name in zip([y] + [t.grad for t in leaves], [y_ref, dx_ref, dtw_ref, dw13_ref, dw2_ref],
                               ["y", "dx", "dtopk_weights", "dw13", "dw2"]):
        assert got.shape == want.shape, name
        # A handful of values (the one d(topk_weights) of T = K = 1) is a single dot product of bf16
        # roundings with cancellation: measured errors reach 7% of it, so those get a looser bound.
        if want.numel() >= 16:
            assert deep_gemm.calc_diff(got, want) < 2e-4, name
            assert (got.double() - want).abs().max() <= 0.02 * want.abs().max() + 1e-3, name
        elif want.numel():
            assert (got.double() - want).abs().max() <= 0.15 * want.abs().max() + 1e-2, name
    if T:
        masked = idx < 0
        assert torch.all(leaves[1].grad[masked] == 0)


@pytest.mark.parametrize("idx_dtype", [torch.int64, torch.int32])
def test_float32_any_shape_tight(idx_dtype, rng):
    T, K, E, H, I = 45, 3, 6, 24, 10   # float32/float64 are reference-only: no multiple-of-128 rule
    x, idx, tw, w13, w2 = make_inputs(T, K, E, H, I, "masked", rng, dtype=torch.float32, idx_dtype=idx_dtype)
    dy = torch.randn(T, H, generator=rng)
    y_ref, grads_ref = grads_float64(x, idx, tw, w13, w2, dy, 1.5)
    leaves = [t.clone().requires_grad_() for t in (x, tw, w13, w2)]
    y = deep_gemm.mega_moe(leaves[0], idx, leaves[1], leaves[2], leaves[3], activation_clamp=1.5)
    y.backward(dy)
    torch.testing.assert_close(y.double(), y_ref, rtol=1e-4, atol=1e-5)
    for leaf, want in zip(leaves, grads_ref):
        torch.testing.assert_close(leaf.grad.double(), want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("clamp", [None, 0.4])
@pytest.mark.parametrize("mode", ["masked", "empty_experts", "skewed"])
def test_gradcheck_float64(clamp, mode, rng):
    T, K, E, H, I = 7, 2, 4, 4, 3
    x, idx, tw, w13, w2 = make_inputs(T, K, E, H, I, mode, rng, dtype=torch.float64)
    inputs = [t.requires_grad_() for t in (x, tw, w13, w2)]
    fn = lambda x, tw, w13, w2: deep_gemm.mega_moe(x, idx, tw, w13, w2, activation_clamp=clamp)  # noqa: E731
    assert torch.autograd.gradcheck(fn, inputs, fast_mode=True)


def _quant_forward_float64(x, idx, tw, w13, w2, precision):
    """An independent float64 emulation of the quantized forward, built on the public casts."""
    T, H = x.shape
    mx = precision == "mxfp8"
    if mx:
        act = lambda t: deep_gemm.per_token_cast_back_from_mxfp8(*deep_gemm.per_token_cast_to_mxfp8(t), out_dtype=torch.float64)  # noqa: E731
        wq = act
    else:
        act = lambda t: deep_gemm.per_token_cast_back_from_fp8(*deep_gemm.per_token_cast_to_fp8(t), out_dtype=torch.float64)  # noqa: E731
        wq = lambda t: deep_gemm.per_block_cast_back_from_fp8(*deep_gemm.per_block_cast_to_fp8(t), out_dtype=torch.float64)  # noqa: E731
    xq, w13q, w2q = act(x), wq(w13), wq(w2)
    y = torch.zeros(T, H, dtype=torch.float64)
    I = w2.shape[2]
    for t in range(T):
        for k in range(idx.shape[1]):
            e = int(idx[t, k])
            if e < 0:
                continue
            z = (xq[t] @ w13q[e].T).bfloat16().double()
            h = torch.nn.functional.silu(z[:I]) * z[I:]
            y[t] += float(tw[t, k]) * (act(h.float()[None])[0] @ w2q[e].T)
    return y


@pytest.mark.parametrize("precision", ["fp8", "mxfp8"])
def test_quantized_forward_matches_emulation(precision, rng):
    T, K, E, H, I = 19, 2, 4, 256, 128
    x, idx, tw, w13, w2 = make_inputs(T, K, E, H, I, "masked", rng)
    routing = deep_gemm.moe_routing(idx, E)
    y, _ = reference.moe_forward(x, idx, tw, w13, w2, routing, None, precision)
    want = _quant_forward_float64(x, idx, tw, w13, w2, precision)
    assert deep_gemm.calc_diff(y, want) < 1e-5
    y_bf16, _ = reference.moe_forward(x, idx, tw, w13, w2, routing, None, "bf16")
    assert deep_gemm.calc_diff(y, y_bf16) < 3e-3   # quantization error, but the same function


@pytest.mark.parametrize("precision", ["fp8", "mxfp8", "fp8_bwd"])
def test_quantized_precisions_close_to_bf16(precision, rng):
    T, K, E, H, I = 33, 2, 4, 128, 128
    x, idx, tw, w13, w2 = make_inputs(T, K, E, H, I, "masked", rng)
    dy = torch.randn(T, H, generator=rng).bfloat16()
    out = {}
    for p in ("bf16", precision):
        leaves = [t.clone().requires_grad_() for t in (x, tw, w13, w2)]
        y = deep_gemm.mega_moe(leaves[0], idx, leaves[1], leaves[2], leaves[3], precision=p)
        y.backward(dy)
        out[p] = [y] + [t.grad for t in leaves]
    if precision == "fp8_bwd":
        assert torch.equal(out["bf16"][0], out[precision][0])   # bf16 forward
    for a, b in zip(out["bf16"], out[precision]):
        assert deep_gemm.calc_diff(a, b) < 1.5e-2   # typical 2e-3: E4M3 has 3 mantissa bits


def test_z_sorted_layout(rng):
    """z_sorted row p = GEMM-1 pre-activation of pair sorted_pair[p] (gate columns, then up)."""
    T, K, E, H, I = 20, 3, 5, 128, 128
    x, idx, tw, w13, w2 = make_inputs(T, K, E, H, I, "masked", rng)
    r = deep_gemm.moe_routing(idx, E)
    _, z = reference.moe_forward(x, idx, tw, w13, w2, r, None, "bf16")
    assert z.shape == (T * K, 2 * I) and z.dtype == torch.bfloat16
    n = int(r.offsets[E])
    for p in range(n):
        pair = int(r.sorted_pair[p])
        t, k = divmod(pair, K)
        want = (x[t].double() @ w13[int(idx[t, k])].double().T)
        torch.testing.assert_close(z[p].double(), want, rtol=1e-2, atol=1e-2)


def test_saves_only_x_z_and_routing(rng):
    T, K, E, H, I = 64, 4, 8, 128, 128
    x, idx, tw, w13, w2 = make_inputs(T, K, E, H, I, "uniform", rng)
    w13.requires_grad_(); w2.requires_grad_(); x.requires_grad_()
    saved = []
    with torch.autograd.graph.saved_tensors_hooks(lambda t: saved.append(t) or t, lambda t: t):
        deep_gemm.mega_moe(x, idx, tw, w13, w2)
    shapes = sorted(tuple(t.shape) for t in saved)
    params = {tuple(w13.shape), tuple(w2.shape)}
    activation_bytes = sum(t.numel() * t.element_size() for t in saved if tuple(t.shape) not in params)
    want = (x.numel() * 2 + T * K * 2 * I * 2 + idx.numel() * 8 + tw.numel() * 4
            + (E + E + 1 + 2 * T * K) * 4)
    assert activation_bytes == want, shapes


class _ZeroFills(torch.utils._python_dispatch.TorchDispatchMode):
    """Records the shapes of the tensors that zero-filling ops produce."""
    FILLS = ("zeros", "zeros_like", "new_zeros", "zero_", "fill_", "full", "full_like", "new_full")

    def __init__(self):
        super().__init__()
        self.shapes = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if func.__name__.split(".")[0] in self.FILLS and isinstance(out, torch.Tensor):
            self.shapes.append(tuple(out.shape))
        return out


@pytest.mark.parametrize("dev", ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)])
@pytest.mark.parametrize("path", ["eager", "custom_op"])
def test_backward_gets_no_zero_filled_z_gradient(path, dev, rng):
    """z_sorted ([T*K, 2I], an output only for the backward's sake) must not get a zero-filled gradient
    materialised in every backward (an allocation and a memset of 400 MB at the 30B benchmark shape)."""
    T, K, E, H, I = 40, 4, 8, 128, 128
    x, idx, tw, w13, w2 = (t.to(dev) for t in make_inputs(T, K, E, H, I, "uniform", rng))
    leaves = [t.requires_grad_() for t in (x, tw, w13, w2)]
    if path == "eager":
        y = deep_gemm.mega_moe(*leaves[:1], idx, *leaves[1:])
    else:
        r = deep_gemm.moe_routing(idx, E)
        y, _ = torch.ops.prime_kernels.mega_moe_forward(leaves[0], idx, *leaves[1:], *r, None, "bf16")
    fills = _ZeroFills()
    with fills:
        y.backward(torch.randn_like(y))
    assert (T * K, 2 * I) not in fills.shapes, fills.shapes
    assert all(t.grad is not None for t in leaves)


def test_grad_accumulators(rng):
    T, K, E, H, I = 16, 2, 4, 128, 128
    x, idx, tw, w13, w2 = make_inputs(T, K, E, H, I, "uniform", rng)
    w13.requires_grad_(); w2.requires_grad_()
    acc13 = torch.zeros(w13.shape); acc2 = torch.zeros(w2.shape)
    for _ in range(2):
        deep_gemm.mega_moe(x, idx, tw, w13, w2, grad_accumulators=(acc13, acc2)).float().sum().backward()
    assert w13.grad is None and w2.grad is None
    routing = deep_gemm.moe_routing(idx, E)
    _, z = reference.moe_forward(x, idx, tw, w13, w2, routing, None, "bf16")
    _, dw13, dw2, _ = reference.moe_backward(torch.ones(T, H, dtype=torch.bfloat16), x, idx, tw, w13, w2,
                                             routing, z, None, "bf16")
    torch.testing.assert_close(acc13, 2 * dw13)
    torch.testing.assert_close(acc2, 2 * dw2)


def test_fp32_master_weights_get_fp32_grads(rng):
    """bf16 x with fp32 parameters: the op runs on bf16 copies, gradients arrive in fp32 unrounded."""
    T, K, E, H, I = 21, 2, 4, 128, 128
    x, idx, tw, w13, w2 = make_inputs(T, K, E, H, I, "masked", rng)
    w13_32 = (w13.float() + 1e-3 * torch.randn(w13.shape, generator=rng)).requires_grad_()
    w2_32 = w2.float().requires_grad_()
    y = deep_gemm.mega_moe(x, idx, tw, w13_32, w2_32)
    dy = torch.randn(T, H, generator=rng).bfloat16()
    y.backward(dy)
    assert w13_32.grad.dtype == torch.float32 and w2_32.grad.dtype == torch.float32
    r = deep_gemm.moe_routing(idx, E)
    y_ref, z = reference.moe_forward(x, idx, tw, w13_32.detach().bfloat16(), w2, r, None, "bf16")
    _, dw13, dw2, _ = reference.moe_backward(dy, x, idx, tw, w13_32.detach().bfloat16(), w2, r, z, None, "bf16")
    assert torch.equal(y, y_ref) and torch.equal(w13_32.grad, dw13) and torch.equal(w2_32.grad, dw2)
    m = deep_gemm.MegaMoE(E, H, I, dtype=torch.float32)
    m(x, idx, tw).float().sum().backward()
    assert m.down_proj.grad.dtype == torch.float32


def test_module(rng):
    m = deep_gemm.MegaMoE(8, 128, 128, activation_clamp=5.0)
    assert m.gate_up_proj.shape == (8, 256, 128) and m.down_proj.shape == (8, 128, 128)
    x = torch.randn(2, 5, 128, generator=rng).bfloat16().requires_grad_()
    idx = make_topk_idx(10, 2, 8, "uniform", rng)
    tw = torch.rand(10, 2, generator=rng)
    y = m(x, idx, tw)
    assert y.shape == x.shape
    y.float().sum().backward()
    assert m.gate_up_proj.grad.dtype == torch.bfloat16 and x.grad.shape == x.shape
    want = reference.moe_forward_simple(x.detach().reshape(10, 128), idx, tw, m.gate_up_proj.detach(),
                                        m.down_proj.detach(), 5.0)
    assert deep_gemm.calc_diff(y.reshape(10, 128), want) < 1e-4


def test_module_fp32_main_grad(rng):
    cfg = deep_gemm.MoEDispatchConfig(precision="bf16", fp32_grad_accumulation=True)
    m = deep_gemm.MegaMoE.from_config(cfg, 4, 128, 128)
    x = torch.randn(6, 128, generator=rng).bfloat16()
    idx = make_topk_idx(6, 2, 4, "uniform", rng)
    m(x, idx, torch.rand(6, 2, generator=rng)).float().sum().backward()
    assert m.gate_up_proj.grad is None
    assert m.gate_up_proj.main_grad.dtype == torch.float32 and m.gate_up_proj.main_grad.abs().sum() > 0


def test_opcheck(rng):
    T, K, E, H, I = 9, 2, 4, 128, 128
    for dtype in (torch.bfloat16, torch.float64):
        x, idx, tw, w13, w2 = make_inputs(T, K, E, H, I, "masked", rng, dtype=dtype)
        r = deep_gemm.moe_routing(idx, E)
        args = (x.requires_grad_(), idx, tw.requires_grad_(), w13.requires_grad_(), w2.requires_grad_(), *r, 0.5, "bf16")
        torch.library.opcheck(torch.ops.prime_kernels.mega_moe_forward.default, args)
        y, z = torch.ops.prime_kernels.mega_moe_forward(*[a.detach() if isinstance(a, torch.Tensor) else a for a in args])
        dy = torch.randn_like(y)
        bwd = (dy, x.detach(), idx, tw.detach(), w13.detach(), w2.detach(), *r, z, 0.5, "fp8_bwd")
        wd = str(dtype).removeprefix("torch.")
        acc = torch.float64 if dtype == torch.float64 else torch.float32
        torch.library.opcheck(torch.ops.prime_kernels.mega_moe_backward.default, bwd)
        torch.library.opcheck(torch.ops.prime_kernels.mega_moe_backward.default, (*bwd, wd))
        torch.library.opcheck(torch.ops.prime_kernels.mega_moe_backward_accumulate.default,
                              (*bwd, torch.randn(w13.shape, dtype=acc), torch.randn(w2.shape, dtype=acc)))


def test_t0(rng):
    x, idx, tw, w13, w2 = make_inputs(0, 8, 16, 128, 128, "uniform", rng)
    for t in (x, tw, w13, w2):
        t.requires_grad_()
    y = deep_gemm.mega_moe(x, idx, tw, w13, w2, precision="fp8")
    assert y.shape == (0, 128)
    y.sum().backward()
    assert torch.all(w13.grad == 0) and x.grad.shape == (0, 128)


# ---- errors --------------------------------------------------------------------------------------

def _ok(gen=None):
    g = gen or torch.Generator().manual_seed(0)
    return list(make_inputs(4, 2, 4, 128, 128, "uniform", g))


def _call(**over):
    x, idx, tw, w13, w2 = _ok()
    args = dict(x=x, topk_idx=idx, topk_weights=tw, w13=w13, w2=w2)
    kw = {k: over.pop(k) for k in ("precision", "activation_clamp") if k in over}
    args.update(over)
    return deep_gemm.mega_moe(*args.values(), **kw)


BAD = [
    (dict(x=torch.randn(4, 128, dtype=torch.float16)), TypeError, "x must have dtype bfloat16"),
    (dict(x=torch.randn(4, 2, 128).bfloat16()), ValueError, "x must be 2-D"),
    (dict(topk_idx=torch.zeros(4, 2)), TypeError, "topk_idx must have dtype int64 or int32"),
    (dict(topk_idx=torch.zeros(5, 2, dtype=torch.int64)), ValueError, r"topk_idx must have shape \[T, K\] with T = x.shape\[0\] = 4"),
    (dict(topk_weights=torch.rand(4, 2).bfloat16()), TypeError, "topk_weights must have dtype float32"),
    (dict(topk_weights=torch.rand(4, 3)), ValueError, r"topk_weights must have shape \[4, 2\]"),
    (dict(w13=torch.randn(4, 256, 128).half()), TypeError, "w13 must have dtype bfloat16 or float32"),
    (dict(w13=torch.randn(4, 256, 128)), TypeError, "w2 must have dtype float32"),
    (dict(w13=torch.randn(4, 256, 256).bfloat16()), ValueError, r"w13 \(gate_up_proj\) must have shape \[E, 2I, H\]"),
    (dict(w2=torch.randn(4, 128, 64).bfloat16()), ValueError, r"w2 must have shape \[4, 128, 128\]"),
    (dict(w2=torch.randn(3, 128, 128).bfloat16()), ValueError, r"w2 must have shape \[4, 128, 128\]"),
    (dict(x=torch.randn(4, 96).bfloat16(), w13=torch.randn(4, 256, 96).bfloat16(), w2=torch.randn(4, 96, 128).bfloat16()),
     ValueError, "hidden size H = 96 .* must be a multiple of 128"),
    (dict(w13=torch.randn(4, 192, 128).bfloat16(), w2=torch.randn(4, 128, 96).bfloat16()),
     ValueError, "intermediate size I = 96 .* must be a multiple of 128"),
    (dict(topk_idx=torch.tensor([[0, 1], [2, 4], [0, 0], [1, 1]])), ValueError, r"topk_idx must hold expert indices in \[-1, 4\)"),
    (dict(topk_idx=torch.tensor([[0, -2], [2, 3], [0, 0], [1, 1]])), ValueError, "found -2"),
    (dict(x=torch.randn(128, 4).bfloat16().T), ValueError, "x must be contiguous"),
    (dict(w13=torch.randn(4, 128, 256).bfloat16().transpose(1, 2)), ValueError, "w13 must be contiguous"),
    (dict(topk_weights=torch.rand(2, 4).T), ValueError, "topk_weights must be contiguous"),
    (dict(topk_idx=torch.zeros(4, 2, dtype=torch.int64, device="meta")), ValueError, "topk_idx is on meta but the other inputs are on cpu"),
    (dict(w2=torch.randn(4, 128, 128, device="meta").bfloat16()), ValueError, "w2 is on meta"),
    (dict(precision="fp4"), ValueError, "precision must be one of 'bf16', 'fp8', 'mxfp8', 'fp8_bwd'"),
    (dict(activation_clamp=-1.0), ValueError, "activation_clamp must be None or a positive finite number"),
    (dict(x=[[1.0]]), TypeError, "x must be a torch.Tensor"),
]


@pytest.mark.parametrize("over,exc,match", BAD, ids=[m for _, _, m in BAD])
def test_errors(over, exc, match):
    with pytest.raises(exc, match=match):
        _call(**over)


def test_error_precision_not_supported_by_gpu(monkeypatch):
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda i=None: "NVIDIA H200")
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda i=None: (9, 0))
    with pytest.raises(ValueError, match=r"precision='mxfp8' .* needs a Blackwell GPU .* NVIDIA H200 \(cuda:0, compute capability 9.0\)"):
        check_precision("mxfp8", torch.device("cuda", 0))
    check_precision("fp8", torch.device("cuda", 0))
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda i=None: "NVIDIA A100")
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda i=None: (8, 0))
    with pytest.raises(ValueError, match="precision='fp8' needs a Hopper or Blackwell GPU .*NVIDIA A100"):
        check_precision("fp8", torch.device("cuda", 0))
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda i=None: "NVIDIA B200")
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda i=None: (10, 0))
    check_precision("mxfp8", torch.device("cuda", 0))


def test_error_module_args():
    with pytest.raises(ValueError, match="hidden_size must be a positive int"):
        deep_gemm.MegaMoE(4, 0, 128)
    with pytest.raises(ValueError, match="dispatch.precision must be one of"):
        deep_gemm.MegaMoE(4, 128, 128, precision="int8")


def test_qdq_is_what_reference_multiplies(rng):
    """op_act in fp8 mode is exactly the public cast round trip."""
    t = torch.randn(5, 300, generator=rng)
    q, s = deep_gemm.per_token_cast_to_fp8(t)
    torch.testing.assert_close(qdq(t, 1, 128, False), deep_gemm.per_token_cast_back_from_fp8(q, s, out_dtype=torch.float32),
                               rtol=0, atol=0)


# ---- GPU (skipped without a CUDA GPU with a prime-kernels library) -------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("T,K,E,mode", [(1000, 8, 64, "uniform"), (517, 4, 16, "masked"), (300, 8, 128, "skewed"),
                                        (0, 8, 16, "uniform")])
@pytest.mark.parametrize("clamp", [None, 1.0])
def test_gpu_mega_moe_matches_reference(T, K, E, mode, clamp, rng):
    H, I = 256, 128
    x, idx, tw, w13, w2 = make_inputs(T, K, E, H, I, mode, rng)
    dy = torch.randn(T, H, generator=rng).bfloat16()
    outs = []
    for dev in ("cuda", "cpu"):
        leaves = [t.to(dev).requires_grad_() for t in (x, tw, w13, w2)]
        y = deep_gemm.mega_moe(leaves[0], idx.to(dev), leaves[1], leaves[2], leaves[3], activation_clamp=clamp)
        y.backward(dy.to(dev))
        outs.append([y.detach().cpu()] + [t.grad.cpu() for t in leaves])
    # With the clamp, an element of z whose bf16 rounding differs between the two backends on the clamp's edge
    # takes the other side of its derivative mask: seed 1885602693 gives dx 1.2e-5 and dw13 8.2e-6 on both sm90
    # libraries, deterministically (session 18 runs 9-11), where other seeds give 3.5e-6 and 5e-9. The clamped cases
    # are held to 5e-5 (about 1 % relative L2, the float64 bar of the kernel tests).
    bound = 1e-5 if clamp is None else 5e-5
    for g, r, name in zip(*outs, ["y", "dx", "dtopk_weights", "dw13", "dw2"]):
        assert g.shape == r.shape and g.dtype == r.dtype, name
        assert deep_gemm.calc_diff(g, r) < bound, name


@pytest.mark.gpu
def test_gpu_precision_errors_and_index_check():
    major, _ = torch.cuda.get_device_capability()
    x, idx, tw, w13, w2 = [t.cuda() for t in _ok()]
    if major != 10:
        with pytest.raises(ValueError, match=r"precision='mxfp8' .* needs a Blackwell GPU"):
            deep_gemm.mega_moe(x, idx, tw, w13, w2, precision="mxfp8")
    idx[0, 0] = 4
    with pytest.raises(ValueError, match=r"topk_idx must hold expert indices in \[-1, 4\)"):
        deep_gemm.mega_moe(x, idx, tw, w13, w2)
    with pytest.raises(ValueError, match="topk_idx is on cpu but the other inputs are on cuda"):
        deep_gemm.mega_moe(x, idx.cpu(), tw, w13, w2)
