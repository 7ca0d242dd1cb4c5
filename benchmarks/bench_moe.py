"""One-command MoE layer benchmark on one GPU (Hopper): ours vs the TorchTitan-style torch path.

    PYTHONPATH=. PK_LIBRARY_PATH=build/sm90 python benchmarks/bench_moe.py [--shapes 30b,235b] [--json out.json]
        [--variants default,staged,scatter] [--breakdown] [--main-grad] [--routing skewed [--skew 0.5]]

T = 16384 tokens, E = 128 experts, top-8, uniform random routing (--routing skewed: lognormal expert loads), bf16.
Times (CUDA events, warm-up, median of --reps): our forward (routing + fused forward), backward, forward+backward (kernel entry
points, weight gradients in bf16 like the parameters); the same through the public op as a trainer
runs it (deep_gemm.mega_moe on bf16 parameters, autograd, .grad set to None each step); the torch
layer (argsort + gather + torch._grouped_mm + silu*up + torch._grouped_mm + weighting + index_add_,
autograd for the backward, .grad set to None each step); a dense 8192^3 bf16 matmul as the ceiling.
Also timed back to back for SUSTAINED_S seconds (ours and torch fwd+bwd, the dense matmul): the steady state of a
training loop, where the CPU runs ahead and the GPU stays at its power cap (8192^3 sustains ~660 TFLOP/s there
against ~780 for synchronised calls, session 11).
FLOPs: forward 6*T*K*H*I, backward twice that. Note: under sustained load an H200 runs at its 700 W
power cap and lowers its SM clock (benchmarks/timeline_moe.py --clocks samples it), so times depend
on how long the GPU has been busy; every row here is measured the same way.

Kernel variants: the sm90 entry points honour PK_SM90_VARIANT_<OP> (OP in GEMM1, GEMM2, DH, DX, GEMM,
and WGRAD for the weight gradients' k-grouped pipeline ids, deep_gemm.kernels.sm90_kgrouped.VARIANTS;
0 = library default, 1 = cooperative, 2 = ping-pong, 3 = cooperative with the staged shared-memory +
bulk-copy epilogue for GEMM1 / GEMM2 / DX / GEMM, and cooperative 128 x 256 tiles for DH). Without --variants the environment is used as is.
--variants times our layer once per listed setting (the torch baseline once per shape): "default"
(every PK_SM90_VARIANT_* and PK_MOE_COMBINE unset), "staged" (GEMM1 = 4, GEMM2 = DX = 3), "scatter"
(PK_MOE_COMBINE=scatter: GEMM 2's epilogue adds w * row into an fp32 y with atomics instead of
GEMM 2 + the gather-sum combine), or explicit OP=V pairs joined by '+' (A_LOAD=tma|cp_async sets
PK_SM90_A_LOAD: how GEMM 2 and dX load their contiguous A rows; WALK=balanced|plain sets PK_SM90_WGRAD_WALK:
the order in which the weight gradients' CTAs walk their tiles, plain by default), e.g.
--variants default,GEMM2=3+DX=3,GEMM1=1,COMBINE=scatter+GEMM2=2. --breakdown times each kernel alone
for variants 1, 2 and 3, and GEMM 2 + combine against the scatter GEMM 2 (+ zeroing and the bf16
conversion of y32). --main-grad adds a table of fwd+bwd with the weight gradients added into fp32 main_grad
accumulators (the `fp32_grad_accumulation` trainer path), ours and torch.
"""
from __future__ import annotations

import argparse
import json
import os

import torch
import torch.nn.functional as F
from deep_gemm.testing import cuda_sustained_ms
from deep_gemm.testing import cuda_time_ms as bench

SHAPES = {"30b": (2048, 768), "235b": (4096, 1536)}
VARIANT_OPS = ("GEMM1", "GEMM2", "DH", "DX", "GEMM", "WGRAD")
VARIANT_PRESETS = {"default": {}, "staged": {"GEMM1": "4", "GEMM2": "3", "DX": "3"},
                   "scatter": {"COMBINE": "scatter"}}
# Settings that take a word instead of a variant id: key in a variant setting -> (environment variable, words).
MODE_SETTINGS = {"COMBINE": ("PK_MOE_COMBINE", ("gather", "scatter")),
                 "A_LOAD": ("PK_SM90_A_LOAD", ("tma", "cp_async")),
                 "WALK": ("PK_SM90_WGRAD_WALK", ("balanced", "plain"))}


def parse_variant(spec):
    """'default' | 'staged' | 'scatter' | 'OP=V+OP=V' -> {OP: V} (OP in VARIANT_OPS with a numeric V, or a key
    of MODE_SETTINGS with one of its words)."""
    if spec in VARIANT_PRESETS:
        return dict(VARIANT_PRESETS[spec])
    out = {}
    for kv in spec.split("+"):
        op, _, v = kv.partition("=")
        op, v = op.strip().upper(), v.strip()
        if op in MODE_SETTINGS and v.lower() in MODE_SETTINGS[op][1]:
            out[op] = v.lower()
            continue
        if op not in VARIANT_OPS or not v.isdigit():
            modes = ", ".join(f"{k}={'|'.join(w)}" for k, (_, w) in MODE_SETTINGS.items())
            raise SystemExit(f"bad --variants entry {kv!r} (want OP=V, OP in {VARIANT_OPS}, or {modes})")
        out[op] = v
    return out


def set_variant_env(settings):
    for op in VARIANT_OPS:
        os.environ.pop(f"PK_SM90_VARIANT_{op}", None)
    for env, _ in MODE_SETTINGS.values():
        os.environ.pop(env, None)
    for op, v in settings.items():
        os.environ[MODE_SETTINGS[op][0] if op in MODE_SETTINGS else f"PK_SM90_VARIANT_{op}"] = v


SUSTAINED_S = 3.0  # seconds each back-to-back measurement runs


def dense_ceiling(reps, sustained_s=0.0):
    """TFLOP/s of a dense 8192^3 bf16 matmul: median of synchronised calls, or (sustained_s > 0) run back to
    back for that long, at the power cap."""
    n = 8192
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    ms = cuda_sustained_ms(lambda: a @ b, sustained_s) if sustained_s > 0 else bench(lambda: a @ b, reps=reps)
    return 2 * n ** 3 / ms / 1e9


def torch_layer(x, idx, w, w13, w2):
    """TorchTitan-style grouped-mm MoE (the baseline)."""
    T, K = idx.shape
    E = w13.shape[0]
    flat = idx.reshape(-1)
    order = torch.argsort(flat, stable=True)
    counts = torch.bincount(flat, minlength=E)
    offs = torch.cumsum(counts, 0, dtype=torch.int32)
    tok = order // K
    xs = x[tok]
    gu = torch._grouped_mm(xs, w13.transpose(-2, -1), offs=offs)
    I = w13.shape[1] // 2
    h = F.silu(gu[:, :I]) * gu[:, I:]
    o = torch._grouped_mm(h, w2.transpose(-2, -1), offs=offs)
    o = o * w.reshape(-1)[order, None].to(o.dtype)
    return torch.zeros_like(x).index_add_(0, tok, o)


def peak_mib(fn):
    """MiB allocated by one call of fn above what was allocated before it."""
    torch.cuda.synchronize()
    base = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    fn()
    torch.cuda.synchronize()
    return (torch.cuda.max_memory_allocated() - base) / 2 ** 20


ROUTINGS = ("uniform", "skewed")


def expert_scores(T, E, routing, skew, g):
    """[T, E] random scores whose top-K per row is the routing: uniform (every expert equally likely), or skewed
    (Gumbel top-K: expert e drawn without replacement with probability proportional to exp(skew * b_e), b_e ~ N(0, 1)
    fixed by its own seed, so the experts' loads are lognormal; at T = 16384, E = 128, K = 8 skew 0.5 puts the busiest
    expert at 3.3x the mean and the idlest at 0.34x, skew 1 at 7.7x and 0.08x). Both draw the same uniform numbers from
    g, so the uniform inputs do not change, and skew 0 gives the uniform routing exactly."""
    u = torch.rand(T, E, device=g.device, generator=g)
    if routing == "uniform":
        return u
    if routing != "skewed":
        raise ValueError(f"routing must be one of {ROUTINGS}, got {routing!r}")
    if not skew >= 0:
        raise ValueError(f"skew must be a number >= 0, got {skew!r}")
    # the experts' popularity from a CPU generator: the same on every device (the loads then differ only by the noise)
    b = torch.randn(E, generator=torch.Generator().manual_seed(2)).to(g.device)
    return skew * b - torch.log(-torch.log(u.clamp(1e-12, 1 - 1e-7)))


def load_stats(idx, E):
    """(busiest expert's pairs / the mean, experts with no pair) of a [T, K] routing."""
    counts = torch.bincount(idx.reshape(-1), minlength=E)
    return (counts.max() / counts.float().mean()).item(), int((counts == 0).sum())


def layer_inputs(name, T, E, K, dev="cuda", routing="uniform", skew=0.5):
    """Random bf16 layer inputs at a benchmark shape: top-K routing (uniform, or skewed: expert_scores), softmax
    weights."""
    H, I = SHAPES[name]
    g = torch.Generator(device=dev).manual_seed(0)
    x = torch.randn(T, H, device=dev, generator=g).to(torch.bfloat16)
    w13 = (torch.randn(E, 2 * I, H, device=dev, generator=g) / H ** 0.5).to(torch.bfloat16)
    w2 = (torch.randn(E, H, I, device=dev, generator=g) / I ** 0.5).to(torch.bfloat16)
    idx = expert_scores(T, E, routing, skew, g).topk(K, dim=-1).indices
    w = torch.softmax(torch.randn(T, K, device=dev, generator=g), -1)
    dy = torch.randn(T, H, device=dev, generator=g).to(torch.bfloat16)
    return x, w13, w2, idx, w, dy


def balanced_products(xg, dyg, h, dz, w13, w2):
    """The layer's six products as cuBLAS batched GEMMs (torch.bmm) over E equal groups of the sorted rows
    (T*K a multiple of E): every weight read, no group boundary inside a tile, the gathered rows as copies.
    Each output has the layout ours writes. {name: (fn, FLOPs in units of 2*T*K*H*I)}."""
    E = w13.shape[0]
    b = lambda t: t.view(E, t.shape[0] // E, t.shape[1])  # noqa: E731
    return {"GEMM 1": (lambda: torch.bmm(b(xg), w13.transpose(1, 2)), 2),
            "GEMM 2": (lambda: torch.bmm(b(h), w2.transpose(1, 2)), 1),
            "dH": (lambda: torch.bmm(b(dyg), w2), 1),
            "dX": (lambda: torch.bmm(b(dz), w13), 2),
            "dW2": (lambda: torch.bmm(b(dyg).transpose(1, 2), b(h)), 1),
            "dW1": (lambda: torch.bmm(b(dz).transpose(1, 2), b(xg)), 2)}


def library_floor(name, T, E, K, reps):
    """What the layer costs as library GEMMs with everything MoE-specific free: the six products as
    balanced_products (pre-gathered rows, perfectly even routing, no SwiGLU, no routing) and the two top-K
    sums as contiguous torch sums. Forward = GEMM 1, GEMM 2, sum; forward+backward adds dH, dX, sum, dW2,
    dW1. Timed as ours is (synchronised median; back to back for SUSTAINED_S). ms, or {} when T*K % E."""
    H, I = SHAPES[name]
    if (T * K) % E:
        return {}
    x, w13, w2, _, _, dy = layer_inputs(name, T, E, K)
    n = T * K
    g = torch.Generator(device=x.device).manual_seed(1)
    rows = torch.randint(0, T, (n,), device=x.device, generator=g)
    xg, dyg = x[rows], dy[rows]
    h = torch.randn(n, I, device=x.device, generator=g).to(torch.bfloat16)
    dz = torch.randn(n, 2 * I, device=x.device, generator=g).to(torch.bfloat16)
    p = {k: fn for k, (fn, _) in balanced_products(xg, dyg, h, dz, w13, w2).items()}

    def fwd():
        p["GEMM 1"]()
        return p["GEMM 2"]().view(T, K, H).sum(1)

    def fwd_bwd():
        fwd()
        p["dH"]()
        p["dX"]().view(T, K, H).sum(1)
        p["dW2"]()
        p["dW1"]()
    return {"floor_fwd_ms": bench(fwd, reps), "floor_fwdbwd_ms": bench(fwd_bwd, reps),
            "floor_fwdbwd_sustained_ms": cuda_sustained_ms(fwd_bwd, SUSTAINED_S)}


def mega_moe_step(x, idx, w, w13, w2, dy, grad_accumulators=None):
    """A trainer's step through the public op: fresh leaves (bf16 parameters), grads set to None, then
    mega_moe(...).backward(dy); with grad_accumulators the weight gradients are added into those fp32
    tensors (Megatron-style main_grad) instead. Returns (step, leaves)."""
    import deep_gemm
    leaves = [t.detach().clone().requires_grad_() for t in (x, w, w13, w2)]

    def step():
        for t in leaves:
            t.grad = None
        deep_gemm.mega_moe(leaves[0], idx, leaves[1], leaves[2], leaves[3], validate=False,
                           grad_accumulators=grad_accumulators).backward(dy)
    return step, leaves


def main_grad_times(x, idx, w, w13, w2, dy, torch_leaves, torch_fb, reps, torch_res=None):
    """fwd+bwd ms with the weight gradients added into fp32 main_grad accumulators: ours through
    mega_moe(grad_accumulators=...) (the kernels reduce-add into them), torch as a trainer without a fused
    accumulate does it (autograd's bf16 .grad, then main_grad.add_(grad)). One pair of accumulators
    (E*(3*H*I)*4 bytes: 9.7 GB at 235B) serves both."""
    accs = (torch.zeros(w13.shape, dtype=torch.float32, device=w13.device),
            torch.zeros(w2.shape, dtype=torch.float32, device=w2.device))
    ours, _ = mega_moe_step(x, idx, w, w13, w2, dy, accs)
    res = {"ours_main_grad_fwdbwd_ms": bench(ours, reps)}
    if torch_res is not None and "torch_main_grad_fwdbwd_ms" in torch_res:
        res["torch_main_grad_fwdbwd_ms"] = torch_res["torch_main_grad_fwdbwd_ms"]
    else:
        def torch_step():
            torch_fb()
            accs[0].add_(torch_leaves[2].grad)
            accs[1].add_(torch_leaves[3].grad)
        res["torch_main_grad_fwdbwd_ms"] = bench(torch_step, reps)
        for t in torch_leaves:
            t.grad = None
    res["speedup_main_grad_fwdbwd"] = res["torch_main_grad_fwdbwd_ms"] / res["ours_main_grad_fwdbwd_ms"]
    return res


def run_shape(name, T, E, K, reps, out, variant="env", torch_res=None, main_grad=False, routing="uniform", skew=0.5):
    import deep_gemm
    from deep_gemm.kernels import sm90
    from deep_gemm.kernels.sm90_kgrouped import balanced_walk
    H, I = SHAPES[name]
    x, w13, w2, idx, w, dy = layer_inputs(name, T, E, K, routing=routing, skew=skew)
    flops_f = 6 * T * K * H * I
    busiest, empty = load_stats(idx, E)
    res = {"shape": name, "T": T, "E": E, "K": K, "H": H, "I": I, "variant": variant,
           "routing": routing if routing == "uniform" else f"{routing} {skew:g}",
           "busiest_expert_over_mean": busiest, "empty_experts": empty,
           "variant_env": {op: os.environ[f"PK_SM90_VARIANT_{op}"] for op in VARIANT_OPS
                           if f"PK_SM90_VARIANT_{op}" in os.environ},
           "combine": os.environ.get("PK_MOE_COMBINE", "gather"),
           "wgrad_walk": "balanced" if balanced_walk() else "plain"}

    def ours_fwd():
        r = deep_gemm.moe_routing(idx, E, validate=False)
        return r, sm90.moe_forward(x, idx, w, w13, w2, r, None, "bf16")

    r, (y, z) = ours_fwd()
    res["ours_fwd_ms"] = bench(ours_fwd, reps)
    # weight gradients in the parameters' dtype (bf16), as the torch path's autograd produces them
    res["ours_bwd_ms"] = bench(lambda: sm90.moe_backward(dy, x, idx, w, w13, w2, r, z, None, "bf16",
                                                         wgrad_dtype=torch.bfloat16), reps)

    def ours_fb():
        r2, (y2, z2) = ours_fwd()
        return sm90.moe_backward(dy, x, idx, w, w13, w2, r2, z2, None, "bf16", wgrad_dtype=torch.bfloat16)

    del y, z
    res["ours_peak_mib"] = peak_mib(ours_fb)
    res["ours_fwdbwd_ms"] = bench(ours_fb, reps)
    # The public op as a trainer calls it: bf16 parameters, autograd, fresh .grad each step. Timed next to the
    # direct calls, before the back-to-back and graph runs heat the card (timed after them until session 16,
    # which read ~4 % slower for the same kernels).
    ours_autograd, leaves = mega_moe_step(x, idx, w, w13, w2, dy)
    res["ours_autograd_fwdbwd_ms"] = bench(ours_autograd, reps)
    for t in leaves:  # (the step's own `grad = None` would free the last step's grads below the baseline)
        t.grad = None
    res["ours_autograd_peak_mib"] = peak_mib(ours_autograd)  # what a trainer's step allocates
    res["ours_fwdbwd_sustained_ms"] = cuda_sustained_ms(ours_fb, SUSTAINED_S)
    try:  # the same, captured once as a CUDA graph (no launch gaps; proves no host sync inside)
        st = torch.cuda.Stream()
        st.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(st):
            ours_fb()
        torch.cuda.current_stream().wait_stream(st)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            ours_fb()
        res["ours_fwdbwd_graph_ms"] = bench(graph.replay, reps)
        del graph
        gf = torch.cuda.CUDAGraph()
        with torch.cuda.graph(gf):
            ours_fwd()
        res["ours_fwd_graph_ms"] = bench(gf.replay, reps)
        del gf
    except Exception as e:  # noqa: BLE001
        res["ours_fwdbwd_graph_ms"] = res["ours_fwd_graph_ms"] = float("nan")
        res["graph_error"] = str(e)[:200]
    # saved for backward per token: x row + z rows + routing (counts/offsets amortised ~0)
    res["saved_bytes_per_token"] = 2 * H + K * 2 * I * 2 + K * 4 * 2

    if torch_res is not None:  # the torch baseline was already timed for this shape
        for k in ("torch_fwd_ms", "torch_peak_mib", "torch_fwdbwd_ms", "torch_fwdbwd_sustained_ms"):
            res[k] = torch_res[k]
        torch_layer_timed = False
    else:
        torch_layer_timed = True
    xr, w13r, w2r, wr = (t.detach().clone().requires_grad_() for t in (x, w13, w2, w))
    if torch_layer_timed:
        res["torch_fwd_ms"] = bench(lambda: torch_layer(xr, idx, wr, w13r, w2r), reps)

    def torch_fb():
        for t in (xr, w13r, w2r, wr):  # a training step's zero_grad(set_to_none=True)
            t.grad = None
        yt = torch_layer(xr, idx, wr, w13r, w2r)
        yt.backward(dy)

    if torch_layer_timed:
        res["torch_peak_mib"] = peak_mib(torch_fb)
        for t in (xr, w13r, w2r, wr):
            t.grad = None
        res["torch_fwdbwd_ms"] = bench(torch_fb, reps)
        res["torch_fwdbwd_sustained_ms"] = cuda_sustained_ms(torch_fb, SUSTAINED_S)
        for t in (xr, w13r, w2r, wr):
            t.grad = None
    if main_grad:  # both layers adding fp32 weight gradients into one pair of main_grad accumulators
        res.update(main_grad_times(x, idx, w, w13, w2, dy, (xr, wr, w13r, w2r), torch_fb, reps, torch_res))
    # the library floor, timed after both layers (the card as warm as for them)
    if torch_res is not None and "floor_fwd_ms" in torch_res:
        res.update({k: torch_res[k] for k in ("floor_fwd_ms", "floor_fwdbwd_ms", "floor_fwdbwd_sustained_ms")})
    elif torch_res is None:
        res.update(library_floor(name, T, E, K, reps))
    # accuracy spot check of ours vs the torch path (bf16 both)
    with torch.no_grad():
        yt = torch_layer(x, idx, w, w13, w2).float()
        yo = ours_fwd()[1][0].float()
        res["rel_l2_vs_torch"] = ((yo - yt).norm() / yt.norm()).item()
    res["ours_fwd_tflops"] = flops_f / res["ours_fwd_ms"] / 1e9
    res["ours_bwd_tflops"] = 2 * flops_f / res["ours_bwd_ms"] / 1e9
    res["ours_fwdbwd_tflops"] = 3 * flops_f / res["ours_fwdbwd_ms"] / 1e9
    res["torch_fwd_tflops"] = flops_f / res["torch_fwd_ms"] / 1e9
    res["torch_fwdbwd_tflops"] = 3 * flops_f / res["torch_fwdbwd_ms"] / 1e9
    res["speedup_fwd"] = res["torch_fwd_ms"] / res["ours_fwd_ms"]
    res["speedup_fwdbwd"] = res["torch_fwdbwd_ms"] / res["ours_fwdbwd_ms"]
    res["speedup_fwdbwd_sustained"] = res["torch_fwdbwd_sustained_ms"] / res["ours_fwdbwd_sustained_ms"]
    res["speedup_autograd_fwdbwd"] = res["torch_fwdbwd_ms"] / res["ours_autograd_fwdbwd_ms"]
    out.append(res)
    return res


def breakdown(name, T, E, K, reps):
    """Each kernel of our forward/backward timed alone (ms), for the notes."""
    import ctypes
    import deep_gemm
    from deep_gemm.kernels import sm90
    from deep_gemm._backend import ptr, stream_of
    H, I = SHAPES[name]
    dev = torch.device("cuda")
    x = torch.randn(T, H, device=dev).to(torch.bfloat16)
    w13 = (torch.randn(E, 2 * I, H, device=dev) / H ** 0.5).to(torch.bfloat16)
    w2 = (torch.randn(E, H, I, device=dev) / I ** 0.5).to(torch.bfloat16)
    idx = torch.rand(T, E, device=dev).topk(K, dim=-1).indices
    w = torch.softmax(torch.randn(T, K, device=dev), -1)
    dy = torch.randn(T, H, device=dev).to(torch.bfloat16)
    r = deep_gemm.moe_routing(idx, E, validate=False)
    _, off, sp, p2s = r
    lib = sm90._lib(dev, "pk_sm90_moe_gemm1_swiglu")
    n = T * K
    z = torch.empty(n, 2 * I, dtype=torch.bfloat16, device=dev)
    h = torch.empty(n, I, dtype=torch.bfloat16, device=dev)
    o = torch.empty(n, H, dtype=torch.bfloat16, device=dev)
    y = torch.empty(T, H, dtype=torch.bfloat16, device=dev)
    dz = torch.empty_like(z)
    hw = torch.empty_like(h)
    part = torch.empty(n, I // 128, device=dev)
    dtw = torch.empty(T, K, device=dev)
    s = stream_of(dev)
    c0 = ctypes.c_float(0.0)
    f = 2 * n * H * I  # one GEMM of the layer (GEMM 1 is 2f)
    rows = []

    def t(label, fn, flops):
        ms = bench(fn, reps)
        rows.append((label, ms, flops / ms / 1e9 if flops else 0.0))

    t("routing", lambda: deep_gemm.moe_routing(idx, E, validate=False), 0)
    for v in (1, 2, 3):
        vn = ctypes.c_int(v)
        tag = {1: " coop", 2: " pingpong", 3: " staged"}[v]
        t("gemm1+swiglu" + tag, lambda: lib.call("pk_sm90_moe_gemm1_swiglu", ptr(x), ctypes.c_int64(T),
          ctypes.c_int(H), ctypes.c_int(K), ptr(sp), ptr(off), ctypes.c_int(E), ptr(w13), ctypes.c_int(I), ptr(z),
          ptr(h), c0, vn, s), 2 * f)
        t("gemm2" + tag, lambda: sm90._m_grouped(lib, h, I, None, 1, w2, 0, E, H, I, 0, off, 0, n, o, H, dev, vn), f)
        # (dH's variant 3 is the cooperative 128 x 256 tile, not a staged epilogue)
        t("dh+swiglu_bwd" + (" coop256" if v == 3 else tag), lambda: lib.call(
          "pk_sm90_moe_dh_swiglu_bwd", ptr(dy), ctypes.c_int64(T),
          ctypes.c_int(H), ctypes.c_int(K), ptr(sp), ptr(off), ctypes.c_int(E), ptr(w2), ctypes.c_int(I),
          ptr(z), ptr(w), ptr(dz), ptr(hw), ptr(part), c0, vn, s), f)
        t("dx gemm" + tag, lambda: sm90._m_grouped(lib, dz, 2 * I, None, 1, w13, 1, E, H, 2 * I, 0, off, 0, n, o,
          H, dev, vn), 2 * f)
    t("combine", lambda: lib.call("pk_sm90_token_combine", ptr(o), ctypes.c_int(H), ctypes.c_int64(T),
      ctypes.c_int(K), ptr(p2s), ptr(w), ptr(y), ptr(None), ctypes.c_int(0), ptr(None), s), 0)
    t("dx combine+dtw", lambda: lib.call("pk_sm90_token_combine", ptr(o), ctypes.c_int(H), ctypes.c_int64(T),
      ctypes.c_int(K), ptr(p2s), ptr(None), ptr(y), ptr(part), ctypes.c_int(I // 128), ptr(dtw), s), 0)
    # GEMM 2 + combine (the default forward's steps 2-3) against GEMM 2 with the combine in its epilogue
    # (PK_MOE_COMBINE=scatter: zero y32, GEMM 2 adding w * row into y32 with atomics, y = bf16(y32)).
    v1 = ctypes.c_int(1)

    def gemm2_combine():
        sm90._m_grouped(lib, h, I, None, 1, w2, 0, E, H, I, 0, off, 0, n, o, H, dev, v1)
        lib.call("pk_sm90_token_combine", ptr(o), ctypes.c_int(H), ctypes.c_int64(T), ctypes.c_int(K), ptr(p2s),
                 ptr(w), ptr(y), ptr(None), ctypes.c_int(0), ptr(None), s)

    t("gemm2 coop + combine", gemm2_combine, f)
    if lib.has("pk_sm90_moe_gemm2_scatter"):
        y32 = torch.zeros(T, H, device=dev)

        def scatter(v):
            lib.call("pk_sm90_moe_gemm2_scatter", ptr(h), ctypes.c_int64(T), ctypes.c_int(H), ctypes.c_int(K),
                     ptr(sp), ptr(off), ctypes.c_int(E), ptr(w2), ctypes.c_int(I), ptr(w), ptr(y32),
                     ctypes.c_int(v), s)

        t("y32 zero", lambda: y32.zero_(), 0)
        t("gemm2 scatter coop", lambda: scatter(1), f)  # (accumulates across reps: timing only)
        t("y32 -> bf16 y", lambda: y.copy_(y32), 0)

        def scatter_all():
            y32.zero_()
            scatter(1)
            y.copy_(y32)

        t("zero + gemm2 scatter coop + cvt", scatter_all, f)
    else:
        print("  (library has no pk_sm90_moe_gemm2_scatter: scatter rows skipped)")
    tok = torch.div(sp, K, rounding_mode="floor").to(torch.int32)
    dw2 = torch.empty(E, H, I, device=dev)
    dw13 = torch.empty(E, 2 * I, H, device=dev)
    t("tok index", lambda: torch.div(sp, K, rounding_mode="floor").to(torch.int32), 0)
    t("dW2 wgrad fp32", lambda: sm90._wgrad(dy, tok, hw, None, off, dw2), f)
    t("dW1 wgrad fp32", lambda: sm90._wgrad(dz, None, x, tok, off, dw13), 2 * f)
    dw2 = torch.empty(E, H, I, device=dev, dtype=torch.bfloat16)
    dw13 = torch.empty(E, 2 * I, H, device=dev, dtype=torch.bfloat16)
    t("dW2 wgrad bf16", lambda: sm90._wgrad(dy, tok, hw, None, off, dw2), f)
    t("dW1 wgrad bf16", lambda: sm90._wgrad(dz, None, x, tok, off, dw13), 2 * f)
    # grouped GEMM as torch would do it, same shapes (for comparison)
    offs = off[1:]
    t("torch _grouped_mm gemm1", lambda: torch._grouped_mm(x[tok.clamp(min=0).long()], w13.transpose(-2, -1),
      offs=offs), 2 * f)
    print(f"breakdown {name} (T={T}, E={E}, K={K}):")
    for label, ms, tf in rows:
        print(f"  {label:26s} {ms:8.3f} ms  {tf:6.0f} TFLOP/s")
    return rows


def print_fwdbwd_table(results, key, dense=None):
    """One row a result: ours_{key}_ms and torch_{key}_ms with TFLOP/s, speedup_{key}, and a dense TFLOP/s column
    when dense is given."""
    print("| shape | variant | ours fwd+bwd ms (TFLOP/s) | torch fwd+bwd ms (TFLOP/s) | speedup |"
          + (" dense TFLOP/s |" if dense else ""))
    print("|---|---|---|---|---|" + ("---|" if dense else ""))
    for r in results:
        f3 = 3 * 6 * r["T"] * r["K"] * r["H"] * r["I"] / 1e9
        ours, torch_ms = r[f"ours_{key}_ms"], r[f"torch_{key}_ms"]
        print(f"| {r['shape']} | {r['variant']} | {ours:.2f} ({f3 / ours:.0f}) | {torch_ms:.2f} "
              f"({f3 / torch_ms:.0f}) | {r[f'speedup_{key}']:.2f}x |" + (f" {dense} |" if dense else ""))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", default="30b,235b")
    ap.add_argument("--tokens", type=int, default=16384)
    ap.add_argument("--experts", type=int, default=128)
    ap.add_argument("--topk", type=int, default=8)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--routing", default="uniform", choices=ROUTINGS,
                    help="uniform (the issue's setup) or skewed: experts' loads lognormal (see --skew); the library "
                         "floor stays on balanced groups")
    ap.add_argument("--skew", type=float, default=0.5,
                    help="with --routing skewed: the spread of the experts' log-popularity (0 = uniform; 0.5: the "
                         "busiest expert 3.3x the mean; 1: 7.7x)")
    ap.add_argument("--json", default=None)
    ap.add_argument("--breakdown", action="store_true", help="also time each kernel alone")
    ap.add_argument("--main-grad", action="store_true",
                    help="also time fwd+bwd with the weight gradients added into fp32 main_grad accumulators "
                         "(ours and torch; 4*E*3*H*I bytes more memory)")
    ap.add_argument("--variants", default=None,
                    help="comma-separated kernel-variant settings to time: default, staged, scatter, or "
                         "OP=V+OP=V (sets PK_SM90_VARIANT_<OP>; COMBINE=, A_LOAD= and WALK= set the variables of MODE_SETTINGS); "
                         "without it the environment is used as is")
    a = ap.parse_args()
    if not a.skew >= 0:  # (expert_scores checks it too; here before any GPU work)
        ap.error(f"--skew must be >= 0, got {a.skew}")
    variants = [(v, parse_variant(v)) for v in a.variants.split(",")] if a.variants else [("env", None)]
    print(f"GPU: {torch.cuda.get_device_name()}  torch {torch.__version__}", flush=True)
    ceiling = dense_ceiling(a.reps)
    ceiling_sustained = dense_ceiling(a.reps, SUSTAINED_S)
    print(f"dense bf16 8192^3 matmul: {ceiling:.0f} TFLOP/s (synchronised calls), {ceiling_sustained:.0f} TFLOP/s "
          f"(back to back for {SUSTAINED_S:.0f} s)", flush=True)
    results = []
    if a.breakdown:
        for name in a.shapes.split(","):
            breakdown(name, a.tokens, a.experts, a.topk, a.reps)
    for name in a.shapes.split(","):
        first = None
        for vname, settings in variants:
            if settings is not None:
                set_variant_env(settings)
            r = run_shape(name, a.tokens, a.experts, a.topk, a.reps, results, vname, first, a.main_grad, a.routing,
                          a.skew)
            first = first or r
            print(json.dumps(r), flush=True)
    print()
    if len(variants) > 1:
        print("| shape | variant | fwd ms | bwd ms | fwd+bwd ms | fwd graph ms | fwd+bwd graph ms | vs first |")
        print("|---|---|---|---|---|---|---|---|")
        base = {}
        for r in results:
            b = base.setdefault(r["shape"], r)
            print(f"| {r['shape']} | {r['variant']} | {r['ours_fwd_ms']:.3f} | {r['ours_bwd_ms']:.3f} | "
                  f"{r['ours_fwdbwd_ms']:.3f} | {r['ours_fwd_graph_ms']:.3f} | {r['ours_fwdbwd_graph_ms']:.3f} | "
                  f"fwd {b['ours_fwd_ms'] / r['ours_fwd_ms']:.3f}x, fwd+bwd "
                  f"{b['ours_fwdbwd_ms'] / r['ours_fwdbwd_ms']:.3f}x |")
        print()
    if results:  # (every shape draws the same routing: the same seed and T, E, K)
        r = results[0]
        print(f"routing: {r['routing']}; busiest expert {r['busiest_expert_over_mean']:.2f}x the mean, "
              f"{r['empty_experts']} experts empty")
    print(f"| shape | variant | ours fwd ms (TFLOP/s) | ours bwd ms | ours fwd+bwd ms (TFLOP/s) | ours mega_moe "
          f"autograd fwd+bwd ms | torch fwd ms | torch fwd+bwd ms | speedup fwd / fwd+bwd | peak MiB ours / torch "
          f"| saved B/token |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        print(f"| {r['shape']} | {r['variant']} | {r['ours_fwd_ms']:.2f} ({r['ours_fwd_tflops']:.0f}) | {r['ours_bwd_ms']:.2f} | "
              f"{r['ours_fwdbwd_ms']:.2f} ({r['ours_fwdbwd_tflops']:.0f}) | {r['ours_autograd_fwdbwd_ms']:.2f} | "
              f"{r['torch_fwd_ms']:.2f} "
              f"({r['torch_fwd_tflops']:.0f}) | {r['torch_fwdbwd_ms']:.2f} ({r['torch_fwdbwd_tflops']:.0f}) | "
              f"{r['speedup_fwd']:.2f}x / {r['speedup_fwdbwd']:.2f}x | {r['ours_peak_mib']:.0f} / "
              f"{r['torch_peak_mib']:.0f} | {r['saved_bytes_per_token']} |")
    for r in results:
        if "ours_autograd_peak_mib" in r:
            print(f"{r['shape']} [{r['variant']}]: peak MiB of the mega_moe autograd step {r['ours_autograd_peak_mib']:.0f} "
                  f"(direct calls {r['ours_peak_mib']:.0f}, torch {r['torch_peak_mib']:.0f})")
        print(f"{r['shape']} [{r['variant']}]: ours fwd as one CUDA graph {r['ours_fwd_graph_ms']:.2f} ms "
              f"({6 * r['T'] * r['K'] * r['H'] * r['I'] / r['ours_fwd_graph_ms'] / 1e9:.0f} TFLOP/s)")
        print(f"{r['shape']} [{r['variant']}]: ours fwd+bwd as one CUDA graph {r['ours_fwdbwd_graph_ms']:.2f} ms "
              f"({3 * 6 * r['T'] * r['K'] * r['H'] * r['I'] / r['ours_fwdbwd_graph_ms'] / 1e9:.0f} TFLOP/s)")
    print(f"\nBack to back for {SUSTAINED_S:.0f} s (a training loop's steady state at the power cap; the table above "
          f"times synchronised calls):")
    print_fwdbwd_table(results, "fwdbwd_sustained", f"{ceiling_sustained:.0f}")
    print(f"dense ceiling {ceiling:.0f} TFLOP/s (synchronised calls), {ceiling_sustained:.0f} (back to back)")
    mg = [r for r in results if "ours_main_grad_fwdbwd_ms" in r]
    if mg:
        print("\nWeight gradients added into fp32 main_grad accumulators (ours: mega_moe(grad_accumulators=...), the "
              "kernels reduce-add; torch: autograd's bf16 .grad, then main_grad.add_), synchronised calls:")
        print_fwdbwd_table(mg, "main_grad_fwdbwd")
    floors = [r for r in results if "floor_fwd_ms" in r]
    if floors:
        print("\nLibrary floor: the six products as cuBLAS bmm on balanced groups of pre-gathered rows + the two top-K "
              "sums (no gather, no SwiGLU, no routing, even experts), timed the same way:")
        print("| shape | variant | floor fwd ms | floor fwd+bwd ms | back to back | ours / floor: fwd, fwd+bwd, back to back |")
        print("|---|---|---|---|---|---|")
        for r in floors:
            print(f"| {r['shape']} | {r['variant']} | {r['floor_fwd_ms']:.2f} | {r['floor_fwdbwd_ms']:.2f} | "
                  f"{r['floor_fwdbwd_sustained_ms']:.2f} | {r['ours_fwd_ms'] / r['floor_fwd_ms']:.3f}, "
                  f"{r['ours_fwdbwd_ms'] / r['floor_fwdbwd_ms']:.3f}, "
                  f"{r['ours_fwdbwd_sustained_ms'] / r['floor_fwdbwd_sustained_ms']:.3f} |")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"ceiling_tflops": ceiling, "ceiling_sustained_tflops": ceiling_sustained, "results": results, "gpu": torch.cuda.get_device_name(),
                       "torch": torch.__version__}, f, indent=1)


if __name__ == "__main__":
    main()
