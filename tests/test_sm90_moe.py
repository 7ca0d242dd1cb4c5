"""Hopper fused MoE kernels (deep_gemm/kernels/sm90.py) against the float64 reference.

Every case draws fresh random inputs, poisons the allocator's free memory with NaN before the
launch (so an unwritten output element shows up as NaN), and compares y, dx, dW1, dW2 and
d(topk_weights) with deep_gemm.reference run in float64, by relative L2 error <= 1e-2.
"""
import pytest
import torch

import deep_gemm
from deep_gemm import reference
from deep_gemm.kernels import NotSupportedHere
from deep_gemm.testing import rel_l2

pytestmark = pytest.mark.gpu
TOL = 1e-2


def _sm90():
    from deep_gemm.kernels import sm90
    return sm90


def poison(nbytes=1 << 30):
    """Fill free cached blocks with NaN so torch.empty in the op returns poisoned memory."""
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    blk = torch.full((nbytes // 2,), float("nan"), dtype=torch.bfloat16, device="cuda")
    del blk


def make_topk(T, E, K, kind, gen):
    if kind == "skewed":  # most slots on a few experts
        p = torch.full((E,), 1.0)
        p[0] = 50.0 * E
        p[1 % E] = 10.0 * E
    else:
        p = torch.ones(E)
    if kind == "empty":  # only the first quarter of the experts get tokens
        p[max(E // 4, 1):] = 0
    if K <= int((p > 0).sum()):
        idx = torch.multinomial(p.expand(T, E).contiguous() if T else p[None], K, replacement=False,
                                generator=gen)[:T]
    else:
        idx = torch.multinomial(p, T * K, replacement=True, generator=gen).view(T, K)
    if kind == "masked":
        idx[torch.rand(T, K, generator=gen) < 0.3] = -1
    w = torch.rand(T, K, generator=gen)
    return idx, w


def make_case(T, E, K, H, I, kind, gen, idx_dtype=torch.int64):
    s = 1.0
    x = (torch.randn(T, H, generator=gen) * s).to(torch.bfloat16)
    w13 = (torch.randn(E, 2 * I, H, generator=gen) / H ** 0.5).to(torch.bfloat16)
    w2 = (torch.randn(E, H, I, generator=gen) / I ** 0.5).to(torch.bfloat16)
    idx, w = make_topk(T, E, K, kind, gen)
    dy = torch.randn(T, H, generator=gen).to(torch.bfloat16)
    dev = "cuda"
    return (x.to(dev), idx.to(idx_dtype).to(dev), w.to(dev), w13.to(dev), w2.to(dev), dy.to(dev))


CASES = [
    # T, E, K, H, I, routing, clamp
    (300, 8, 4, 256, 256, "uniform", None),
    (777, 16, 6, 512, 384, "skewed", None),
    (513, 32, 8, 256, 128, "empty", None),
    (400, 8, 4, 320, 256, "masked", None),
    (1, 8, 4, 256, 256, "uniform", None),
    (257, 8, 1, 256, 256, "uniform", None),
    (0, 8, 4, 256, 256, "uniform", None),
    (333, 8, 2, 256, 256, "uniform", 0.5),
    (333, 8, 2, 256, 384, "masked", 0.5),  # the clamp through the 128 x (96 + 96) GEMM 1 forms
    (2048, 32, 8, 1024, 384, "uniform", None),
    (600, 16, 4, 256, 512, "skewed", None),  # two 256-column dH tiles
    (600, 16, 4, 256, 768, "skewed", 0.5),  # three 256-column dH tiles, with the clamp
]


def run_case(T, E, K, H, I, kind, clamp, gen, idx_dtype=torch.int64):
    sm90 = _sm90()
    x, idx, w, w13, w2, dy = make_case(T, E, K, H, I, kind, gen, idx_dtype)
    routing = deep_gemm.moe_routing(idx, E)
    poison()
    y, z = sm90.moe_forward(x, idx, w, w13, w2, routing, clamp, "bf16")
    torch.cuda.synchronize()
    n = int(routing.offsets[-1])
    # float64 reference on the same routing
    r64 = [t for t in routing]
    y_ref, z_ref = reference.moe_forward(x.double(), idx, w, w13.double(), w2.double(), r64, clamp, "bf16")
    y_simple = reference.moe_forward_simple(x, idx, w, w13, w2, clamp)
    errs = {"y": rel_l2(y, y_ref), "y_vs_simple": rel_l2(y, y_simple), "z": rel_l2(z[:n], z_ref[:n])}
    poison()
    dx, dw13, dw2, dtw = sm90.moe_backward(dy, x, idx, w, w13, w2, routing, z, clamp, "bf16")
    torch.cuda.synchronize()
    # The backward is defined from the saved z: give the reference ours (bf16), so that the clamp's
    # indicators [g <= c], [|u| <= c] see the same values (rounding flips them otherwise).
    z64 = z.double()
    dx_r, dw13_r, dw2_r, dtw_r = reference.moe_backward(dy.double(), x.double(), idx, w.double(), w13.double(),
                                                        w2.double(), r64, z64, clamp, "bf16")
    errs.update(dx=rel_l2(dx, dx_r), dw13=rel_l2(dw13, dw13_r), dw2=rel_l2(dw2, dw2_r), dtw=rel_l2(dtw, dtw_r))
    if 0 < n < DTW_MIN_VALUES:
        errs["dtw"] = dtw_bound_ratio(dtw, dtw_r, dy, idx, w2, z, routing, n, clamp)
    outs = dict(y=y, dx=dx, dw13=dw13, dw2=dw2, dtw=dtw)
    return errs, outs


# d(topk_weights)[p] = <dA_p, round(h_p)> with dA = dy . W2 staged as bf16 in the kernel (the
# epilogue warps read it from shared memory). That rounding changes each product by at most 2^-8
# relatively (bf16's unit roundoff), which the sum amplifies without bound when it nearly cancels:
# for a vector of only a few values (T = 1: K of them), rel L2 <= 1e-2 is then a coin with ~0.1 % odds
# of failing an exact bf16-staged computation (simulated in float64 over 3000 draws, T = 1, K = 4,
# I = 256: median 1.7e-3, max 1.6e-2). So such short vectors are checked against the rounding's own
# bound per element instead.
DTW_MIN_VALUES = 32


def dtw_bound_ratio(dtw, dtw_r, dy, idx, w2, z, routing, n, clamp):
    """max_p |dtw[p] - ref[p]| / (2^-7 sum_i |dA_pi h_pi| + 1e-6): <= 1/2 when the kernel's only error is
    dA's bf16 rounding (2^-8 a product; the factor 2 covers an h rounded from fp32 to the other
    neighbour, and the fp32 sums); returned times TOL, so that the caller's <= TOL passes."""
    pairs = routing.sorted_pair[:n].long()
    K = idx.shape[1]
    tok, e = pairs // K, idx.reshape(-1)[pairs].long()
    h, *_ = reference.moe.swiglu(z[:n].double(), clamp)
    h = h.to(torch.bfloat16).double()
    dA = torch.einsum("ph,phi->pi", dy.double()[tok], w2.double()[e])
    bound = 2.0 ** -7 * (dA * h).abs().sum(-1) + 1e-6
    err = (dtw.reshape(-1)[pairs].double() - dtw_r.reshape(-1)[pairs].double()).abs()
    return TOL * (err / bound).max().item()


# Kernel variants the layer's correctness cases run under, as PK_SM90_VARIANT_<OP> settings
# (key COMBINE: the PK_MOE_COMBINE setting): "default" = the library's choices; "staged" =
# the staged (shared memory + bulk copy) epilogue for GEMM 1 (variant 4: 128 x 192 tiles; I % 96 != 0
# falls back to cooperative), GEMM 2 and dX (variant 3); "scatter" = GEMM 2 adds w * row into an fp32 y with atomics from its epilogue instead
# of GEMM 2 + the gather-sum combine (forward only; the backward is the default one); "dh256" = dH
# with cooperative 128 x 256 tiles (z loaded in the epilogue; I % 256 != 0 falls back to 128 x 128;
# the default dH where I % 256 == 0 is 128 x 256 with the whole producer warpgroup gathering and a fourth
# warpgroup of epilogue warps: 512 threads, each tile as two m64n128 wgmmas a k-step, session 15);
# "dh_warps2" = 128 x 256 with two gathering and two epilogue warps in the producer warpgroup; "wait0" /
# "dh_warps2_wait0" = every m-grouped kernel's consumers releasing each stage after wgmma.wait_group 0 (variant + 32); "wgrad_staged" = the weight gradients through k-grouped variant 10
# (staged bf16 epilogue with wait_group 1; the default for bf16 is 19, 128-row chunks); "dh_prefetch_l1" /
# "dh_warps2_prefetch_l1" = dH 8 / 9 (+ 32): the epilogue warps also prefetch z into L1 (the defaults until
# session 15); "dh_no_prefetch" = dH 4 + 32 (the same without the L1 prefetch); "wgrad_tma" = k-grouped
# variant 16 (bf16 weight gradients stored by TMA from a swizzled staging tile); "wgrad_wait0" = variant 13 (the
# per-row bulk-copy form); "staged_tma" = GEMM 2 and dX staged with their full tiles stored by TMA (the
# default since run 8 is 3 + 32 + 64 for both); "staged_no_tma" = the same without the TMA store;
# "gemm1_tma" = GEMM 1 staged with z's full tiles stored by TMA (variant 4 + 64: the default where I % 96 == 0
# until session 15); "gemm1_epiwg" = GEMM 1 variant 5 (the same tiles, its SwiGLU and stores in a fourth warpgroup
# of epilogue warps: the default where I % 96 == 0);
# "cp_async_a" = contiguous A rows (GEMM 2, dX) loaded by the 128 cp.async producer threads instead
# of one TMA box per tile (the default); "gemm1_coop" = GEMM 1 cooperative 128 x 256 (the default is
# staged 128 x (96 + 96) where I % 96 == 0); "gemm1_staged_plain" = GEMM 1 staged without the TMA store
# (variant 4); "pp192" = GEMM 2 and dX ping-pong 128 x 192 staged per warp (variant 4: the defaults at
# H >= 1536, dX's on an H200 only since session 34; these cases' H is smaller).
VARIANTS = {"pp192": {"GEMM2": "4", "DX": "4"},
            "default": {}, "staged": {"GEMM1": "4", "GEMM2": "3", "DX": "3"}, "scatter": {"COMBINE": "scatter"},
            "dh256": {"DH": "3"}, "dh_warps2": {"DH": "5"},
            "wait0": {"GEMM1": "36", "GEMM2": "35", "DX": "33", "DH": "36"},
            "dh_warps2_wait0": {"DH": "37", "DX": "35"}, "wgrad_staged": {"WGRAD": "10"},
            "dh_prefetch_l1": {"DH": "40"}, "dh_warps2_prefetch_l1": {"DH": "41", "DX": "35"},
            "dh_no_prefetch": {"DH": "36"}, "wgrad_tma": {"WGRAD": "16"}, "wgrad_wait0": {"WGRAD": "13"},
            "staged_tma": {"GEMM2": "67", "DX": "99"}, "gemm1_tma": {"GEMM1": "68"},
            "gemm1_staged_plain": {"GEMM1": "4"},
            "staged_no_tma": {"GEMM2": "3", "DX": "35"},
            "cp_async_a": {"A_LOAD": "cp_async"}, "gemm1_coop": {"GEMM1": "1"}, "gemm1_epiwg": {"GEMM1": "5"},
            # + 16: 2-CTA clusters multicasting the weight tile (staged / cooperative forms)
            "cluster": {"GEMM1": "20", "GEMM2": "19", "DX": "19", "DH": "19"},
            "cluster_coop": {"GEMM1": "17", "GEMM2": "17", "DX": "17"},
            # each group's tiles m-tile first (PK_SM90_TILE_ORDER=m; the default only for weights 16 or more
            # n-blocks wide, wider than these cases), alone and with the 2-CTA pairs (a unit is an m-tile pair)
            "m_first": {"TILE_ORDER": "m"},
            "m_first_cluster": {"GEMM1": "20", "GEMM2": "19", "DX": "19", "DH": "19", "TILE_ORDER": "m"},
            # the weight gradients' tiles walked in the balanced order (PK_SM90_WGRAD_WALK=balanced: experts by
            # descending row count, each round of the grid dealt forwards then backwards; the default walks them in
            # expert order)
            "wgrad_balanced_walk": {"WGRAD_WALK": "balanced"}}


def _set_variant(monkeypatch, name):
    for op in ("GEMM1", "GEMM2", "DH", "DX", "GEMM", "WGRAD"):
        monkeypatch.delenv(f"PK_SM90_VARIANT_{op}", raising=False)
    monkeypatch.delenv("PK_MOE_COMBINE", raising=False)
    monkeypatch.delenv("PK_SM90_A_LOAD", raising=False)
    monkeypatch.delenv("PK_SM90_TILE_ORDER", raising=False)
    monkeypatch.delenv("PK_SM90_WGRAD_WALK", raising=False)
    for op, v in VARIANTS[name].items():
        if op == "COMBINE":
            monkeypatch.setenv("PK_MOE_COMBINE", v)
        elif op in ("A_LOAD", "TILE_ORDER", "WGRAD_WALK"):
            monkeypatch.setenv(f"PK_SM90_{op}", v)
        else:
            monkeypatch.setenv(f"PK_SM90_VARIANT_{op}", v)


@pytest.fixture(params=list(VARIANTS))
def variant(request, monkeypatch):
    _set_variant(monkeypatch, request.param)
    return request.param


@pytest.mark.parametrize("T,E,K,H,I,kind,clamp", CASES)
def test_moe_fwd_bwd(T, E, K, H, I, kind, clamp, rng, variant):
    errs, outs = run_case(T, E, K, H, I, kind, clamp, rng)
    for name, t in outs.items():
        assert not torch.isnan(t).any(), f"{name} has NaN (unwritten elements?)"
    if T == 0:
        return
    for name, e in errs.items():
        assert e <= TOL, f"{name}: rel L2 {e:.3e} > {TOL} ({errs})"


def test_moe_int32_idx(rng, variant):
    errs, _ = run_case(200, 8, 4, 256, 256, "masked", None, rng, idx_dtype=torch.int32)
    assert max(errs.values()) <= TOL, errs


def test_moe_deterministic(rng, variant):
    if variant == "scatter":
        pytest.skip("the scatter combine adds with float atomics: y is not bitwise reproducible (by design)")
    sm90 = _sm90()
    x, idx, w, w13, w2, dy = make_case(600, 16, 8, 512, 256, "uniform", rng)
    routing = deep_gemm.moe_routing(idx, 16)
    y1, z1 = sm90.moe_forward(x, idx, w, w13, w2, routing, None, "bf16")
    y2, z2 = sm90.moe_forward(x, idx, w, w13, w2, routing, None, "bf16")
    assert torch.equal(y1, y2)
    g1 = sm90.moe_backward(dy, x, idx, w, w13, w2, routing, z1, None, "bf16")
    g2 = sm90.moe_backward(dy, x, idx, w, w13, w2, routing, z1, None, "bf16")
    for a, b in zip(g1[:1] + g1[3:], g2[:1] + g2[3:]):  # dx, dtw (dW determinism is the wgrad kernel's)
        assert torch.equal(a, b)


def test_moe_from_a_fresh_thread(rng):
    """A thread whose CUDA work so far is only torch's may have no CUDA context bound (torch's device guard
    skips cudaSetDevice when the device does not change): the autograd engine's device thread, where the
    backward's first native call is a tensor-map encode (a driver call) before any launch. Every call works
    from such a thread and gives the main thread's results."""
    import threading
    sm90 = _sm90()
    x, idx, w, w13, w2, dy = make_case(300, 16, 8, 256, 256, "uniform", rng)
    routing = deep_gemm.moe_routing(idx, 16)
    y, z = sm90.moe_forward(x, idx, w, w13, w2, routing, None, "bf16")
    want = sm90.moe_backward(dy, x, idx, w, w13, w2, routing, z, None, "bf16")
    # once more, dropped: the thread's allocations then come from the allocator's cache (no cudaMalloc,
    # which would bind a context and hide the case)
    sm90.moe_backward(dy, x, idx, w, w13, w2, routing, z, None, "bf16")
    torch.cuda.synchronize()
    got, errors = [], []

    def work():
        try:
            got.extend(sm90.moe_backward(dy, x, idx, w, w13, w2, routing, z, None, "bf16"))
            got.append(sm90.moe_forward(x, idx, w, w13, w2, deep_gemm.moe_routing(idx, 16), None, "bf16")[0])
            torch.cuda.synchronize()
        except Exception as e:  # noqa: BLE001 (reported below, in the test's thread)
            errors.append(e)
    t = threading.Thread(target=work)
    t.start()
    t.join()
    assert not errors, errors
    for name, a, b in zip(("dx", "dw13", "dw2", "dtw", "y"), got, (*want, y)):
        if name.startswith("dw"):  # (bitwise reproducibility is test_moe_deterministic's, not this test's)
            assert rel_l2(a, b) < 1e-6, name
        else:
            assert torch.equal(a, b), name


def test_moe_cuda_graph(rng, variant):
    """Routing + forward + backward captured once, replayed with new routing: no host sync inside."""
    sm90 = _sm90()
    T, E, K, H, I = 512, 16, 4, 256, 256
    x, idx, w, w13, w2, dy = make_case(T, E, K, H, I, "uniform", rng)
    import os
    os.environ["PK_MOE_WGRAD"] = os.environ.get("PK_MOE_WGRAD", "native")
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(2):  # warm-up outside capture
            r = deep_gemm.moe_routing(idx, E, validate=False)
            y, z = sm90.moe_forward(x, idx, w, w13, w2, r, None, "bf16")
            dx = sm90.moe_backward(dy, x, idx, w, w13, w2, r, z, None, "bf16")[0]
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        r = deep_gemm.moe_routing(idx, E, validate=False)
        y, z = sm90.moe_forward(x, idx, w, w13, w2, r, None, "bf16")
        dx = sm90.moe_backward(dy, x, idx, w, w13, w2, r, z, None, "bf16")[0]
    new_idx, new_w = make_topk(T, E, K, "skewed", rng)
    idx.copy_(new_idx.to(idx.device))
    w.copy_(new_w.to(w.device))
    g.replay()
    torch.cuda.synchronize()
    y_ref = reference.moe_forward_simple(x, idx, w, w13, w2, None)
    assert rel_l2(y, y_ref) <= TOL


@pytest.mark.parametrize("name", ["default", "staged", "dh256", "dh_warps2", "wait0", "dh_warps2_wait0",
                                  "dh_prefetch_l1", "dh_warps2_prefetch_l1", "wgrad_staged", "wgrad_tma",
                                  "wgrad_wait0", "staged_tma", "gemm1_tma", "gemm1_staged_plain", "staged_no_tma",
                                  "cluster", "pp192"])
def test_moe_few_ctas(rng, monkeypatch, name):
    """Each CTA walks many tiles (grid capped at 3 CTAs): pipeline phases, the ping-pong turns and the
    staging-buffer handshakes wrap around many times."""
    _set_variant(monkeypatch, name)
    monkeypatch.setenv("PK_SM90_MAX_CTAS", "3")
    errs, _ = run_case(700, 8, 4, 256, 512, "skewed", None, rng)
    for k, e in errs.items():
        assert e <= TOL, (k, e)


@pytest.mark.parametrize("T,E,K,H,I", [(600, 16, 4, 2048, 384), (300, 8, 2, 1536, 1152)])
def test_moe_default_wide_hidden(T, E, K, H, I, rng, monkeypatch):
    """At H >= 1536 the defaults take ping-pong 128 x 192 for GEMM 2 and dX (dX on an H100: the staged form with TMA
    stores): the real shapes' path, with N = H not a multiple of 192 in the first case."""
    _set_variant(monkeypatch, "default")
    errs, _ = run_case(T, E, K, H, I, "skewed", None, rng)
    for k, e in errs.items():
        assert e <= TOL, (k, e)


@pytest.mark.parametrize("T,E,K,H,I,kind", [(777, 16, 6, 512, 384, "skewed"), (400, 8, 4, 320, 256, "masked")])
@pytest.mark.parametrize("base,other", [("default", "staged"), ("default", "gemm1_coop"), ("dh256", "cluster"),
                                        ("default", "cluster_coop"), ("default", "wait0"),
                                        ("dh_warps2", "dh_warps2_wait0"), ("default", "dh_prefetch_l1"), ("default", "dh_no_prefetch"),
                                        ("dh_warps2_wait0", "dh_warps2_prefetch_l1"), ("default", "staged_tma"), ("default", "gemm1_staged_plain"),
                                        ("default", "staged_no_tma"), ("default", "pp192"), ("default", "gemm1_tma")])
def test_staged_matches_default_bitwise(T, E, K, H, I, kind, base, other, rng, monkeypatch):
    """The staged epilogues and the 2-CTA cluster forms compute the same MMAs in the same order as the
    cooperative kernels: y, z, dx, dtw equal bitwise. (dH's d(topk_weights) partials are summed per
    128 or 256 columns depending on its tile width, so "cluster", whose dH is 128 x 256, is compared
    with the 128 x 256 dH.)"""
    sm90 = _sm90()
    x, idx, w, w13, w2, dy = make_case(T, E, K, H, I, kind, rng)
    routing = deep_gemm.moe_routing(idx, E)
    res = []
    for name in (base, other):
        _set_variant(monkeypatch, name)
        poison()
        y, z = sm90.moe_forward(x, idx, w, w13, w2, routing, None, "bf16")
        dx, _, _, dtw = sm90.moe_backward(dy, x, idx, w, w13, w2, routing, z, None, "bf16")
        torch.cuda.synchronize()
        n = int(routing.offsets[-1])
        res.append((y, z[:n], dx, dtw))
    for name, a, b in zip(("y", "z", "dx", "dtw"), res[0], res[1]):
        assert torch.equal(a, b), name


@pytest.mark.parametrize("T,E,K,H,I,kind", [(777, 16, 6, 512, 384, "skewed"), (400, 8, 4, 320, 256, "masked"),
                                             (2048, 32, 8, 1024, 384, "uniform")])
def test_scatter_combine_vs_gather(T, E, K, H, I, kind, rng, monkeypatch):
    """PK_MOE_COMBINE=scatter gives the gather-sum's y up to rounding (gather rounds each GEMM 2 row to
    bf16 before the sum, scatter sums fp32 rows), z bitwise (GEMM 1 is shared), and repeats to within
    fp32 reassociation (atomics: not bitwise)."""
    sm90 = _sm90()
    x, idx, w, w13, w2, dy = make_case(T, E, K, H, I, kind, rng)
    routing = deep_gemm.moe_routing(idx, E)
    n = int(routing.offsets[-1])
    res = {}
    for name, env in (("gather", {}), ("scatter", {"PK_MOE_COMBINE": "scatter"}),
                      ("scatter2", {"PK_MOE_COMBINE": "scatter"})):
        _set_variant(monkeypatch, "default")
        for k, v in env.items():
            monkeypatch.setenv(k, v)
        poison()
        y, z = sm90.moe_forward(x, idx, w, w13, w2, routing, None, "bf16")
        torch.cuda.synchronize()
        assert not torch.isnan(y).any(), name
        res[name] = (y, z[:n])
    yg = res["gather"][0]
    for name in ("scatter", "scatter2"):
        assert torch.equal(res[name][1], res["gather"][1]), f"z differs ({name})"
        assert rel_l2(res[name][0], yg) <= 5e-3, name
    assert rel_l2(res["scatter2"][0], res["scatter"][0]) <= 1e-3


def test_combine_mode_rejects_unknown(monkeypatch, rng):
    """An unknown PK_MOE_COMBINE, and the scatter with a ping-pong GEMM 2 (no such kernel), raise."""
    sm90 = _sm90()
    x, idx, w, w13, w2, dy = make_case(16, 8, 2, 256, 256, "uniform", rng)
    monkeypatch.setenv("PK_MOE_COMBINE", "scatter_bf16")
    with pytest.raises(ValueError):
        sm90.moe_forward(x, idx, w, w13, w2, deep_gemm.moe_routing(idx, 8), None, "bf16")
    monkeypatch.setenv("PK_MOE_COMBINE", "scatter")
    monkeypatch.setenv("PK_SM90_VARIANT_GEMM2", "2")
    with pytest.raises(ValueError):
        sm90.moe_forward(x, idx, w, w13, w2, deep_gemm.moe_routing(idx, 8), None, "bf16")


def test_not_supported_precision(rng):
    sm90 = _sm90()
    x, idx, w, w13, w2, dy = make_case(16, 8, 2, 256, 256, "uniform", rng)
    with pytest.raises(NotSupportedHere):
        sm90.moe_forward(x, idx, w, w13, w2, deep_gemm.moe_routing(idx, 8), None, "fp8")


def test_public_autograd(rng):
    """The public op (deep_gemm.moe.mega_moe, autograd) dispatches to these kernels on Hopper."""
    from deep_gemm.moe import mega_moe
    T, E, K, H, I = 256, 8, 4, 256, 256
    x, idx, w, w13, w2, dy = make_case(T, E, K, H, I, "masked", rng)
    xs, ws, w13s, w2s = (t.clone().requires_grad_() for t in (x, w, w13, w2))
    y = mega_moe(xs, idx, ws, w13s, w2s)
    y.backward(dy)
    x64, w64, w1364, w264 = (t.double().requires_grad_() for t in (x, w, w13, w2))
    y64 = reference.moe_forward_simple(x64, idx, w64, w1364, w264, None)
    y64.backward(dy.double())
    assert rel_l2(y, y64) <= TOL
    for a, b in ((xs.grad, x64.grad), (ws.grad, w64.grad), (w13s.grad, w1364.grad), (w2s.grad, w264.grad)):
        assert rel_l2(a, b) <= TOL


if __name__ == "__main__":  # quick table on the device machine
    gen = torch.Generator().manual_seed(torch.randint(0, 2**31 - 1, ()).item())
    for case in CASES:
        try:
            errs, outs = run_case(*case, gen)
            nan = [k for k, t in outs.items() if torch.isnan(t).any()]
            print(case, " ".join(f"{k}={v:.2e}" for k, v in errs.items()), "NaN:" + ",".join(nan) if nan else "")
        except Exception as e:  # keep going: one table per device run
            print(case, "FAILED", type(e).__name__, str(e)[:300])


# I 384 and 768: dW1 (2I) in 128 x 384 tiles with variant 28, dW2 (I) too at 768
@pytest.mark.parametrize("T,E,K,H,I,kind", [(777, 16, 6, 512, 384, "skewed"), (513, 32, 8, 256, 128, "empty"),
                                            (300, 8, 4, 256, 768, "skewed")])
# 21: its last pass deferred (the bf16 default where 28 runs as 21); 28: the bf16 default, 128 x 384 tiles where I allows
@pytest.mark.parametrize("wgrad_variant", ["default", "19", "21", "28"])
def test_weight_grad_outputs(T, E, K, H, I, kind, wgrad_variant, rng, monkeypatch):
    """wgrad_dtype=bf16 writes the bf16 rounding of the fp32 weight gradients: bitwise when both come from
    the same k-grouped pipeline (one rounding of the same accumulation; dW1 runs swapped, out^T stored
    transposed, in both dtypes); with the defaults (28 for both since session 39 where I allows its tiles; not
    promised bitwise) within one bf16 rounding. fp32 accumulators get the gradients added in place and
    are returned."""
    if wgrad_variant != "default":
        monkeypatch.setenv("PK_SM90_VARIANT_WGRAD", wgrad_variant)
    sm90 = _sm90()
    x, idx, w, w13, w2, dy = make_case(T, E, K, H, I, kind, rng)
    routing = deep_gemm.moe_routing(idx, E)
    y, z = sm90.moe_forward(x, idx, w, w13, w2, routing, None, "bf16")
    _, dw13, dw2, _ = sm90.moe_backward(dy, x, idx, w, w13, w2, routing, z, None, "bf16")
    poison()
    dx16, dw13_16, dw2_16, dtw16 = sm90.moe_backward(dy, x, idx, w, w13, w2, routing, z, None, "bf16",
                                                      wgrad_dtype=torch.bfloat16)
    assert dw13_16.dtype == dw2_16.dtype == torch.bfloat16
    if wgrad_variant != "default":
        assert torch.equal(dw13_16, dw13.to(torch.bfloat16)) and torch.equal(dw2_16, dw2.to(torch.bfloat16))
    for got, want in ((dw13_16, dw13), (dw2_16, dw2)):
        # one bf16 rounding (unit roundoff 2^-8) of a sum that differs from want by fp32 reordering only
        bound = want.abs() * 2.0**-8 + want.abs().max() * 1e-5
        assert bool(((got.float() - want).abs() <= bound).all())
    acc13 = torch.randn(dw13.shape, device="cuda")
    acc2 = torch.randn(dw2.shape, device="cuda")
    want13, want2 = acc13 + dw13, acc2 + dw2
    _, r13, r2, _ = sm90.moe_backward(dy, x, idx, w, w13, w2, routing, z, None, "bf16",
                                      grad_acc_w13=acc13, grad_acc_w2=acc2)
    assert r13 is acc13 and r2 is acc2
    # (the kernel adds its fp32 tile to what is there: the same sum as acc + dw up to one fp32 rounding)
    assert rel_l2(acc13, want13) <= 1e-6 and rel_l2(acc2, want2) <= 1e-6


@pytest.mark.parametrize("T,E,K,H,I,wgrad_dtype", [(2048, 64, 4, 512, 256, torch.bfloat16),
                                                     (2048, 64, 4, 512, 256, None),
                                                     (8192, 16, 4, 1024, 256, torch.bfloat16)])
def test_backward_peak_memory(T, E, K, H, I, wgrad_dtype, rng):
    """moe_backward holds at its peak only what one of its steps needs (dH: dz, hw, parts; dX and the
    combine: + dx_sorted; dW1: dz, hw, dw13; dW2: hw, dw13, dw2; dx and dtw throughout), not all of
    them at once: the first case (weight gradients large against the activations) fails with everything
    allocated up front, the last (activations large) with dx_sorted kept past the combine."""
    sm90 = _sm90()
    x, idx, w, w13, w2, dy = make_case(T, E, K, H, I, "uniform", rng)
    routing = deep_gemm.moe_routing(idx, E)
    y, z = sm90.moe_forward(x, idx, w, w13, w2, routing, None, "bf16")
    n, wb = T * K, 2 if wgrad_dtype == torch.bfloat16 else 4
    dz, hw, part, dxs = n * 2 * I * 2, n * I * 2, n * (I // 128) * 4, n * H * 2
    dw13, dw2, always = E * 2 * I * H * wb, E * H * I * wb, T * H * 2 + T * K * 4
    steps = {"dH": dz + hw + part, "dX": dz + hw + part + dxs, "dW1": dz + hw + dw13, "dW2": hw + dw13 + dw2}
    small = T * K * 12 + (4 << 20)  # tok and its int64 quotient; the allocator's rounding of each block
    bound = always + max(steps.values()) + small
    torch.cuda.synchronize()
    base = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    out = sm90.moe_backward(dy, x, idx, w, w13, w2, routing, z, None, "bf16", wgrad_dtype=wgrad_dtype)
    torch.cuda.synchronize()
    peak = torch.cuda.max_memory_allocated() - base
    assert peak <= bound, f"peak {peak / 2**20:.1f} MiB > planned {bound / 2**20:.1f} MiB ({steps})"
    assert out[1].shape == (E, 2 * I, H) and out[2].shape == (E, H, I)
    assert out[1].dtype == out[2].dtype == (wgrad_dtype or torch.float32)


def test_public_op_weight_grads(rng):
    """mega_moe's backward hands bf16 parameters bf16 gradients straight from the kernel, and with
    grad_accumulators adds fp32 gradients into them (both checked against float64)."""
    T, E, K, H, I = 600, 16, 4, 256, 256
    x, idx, w, w13, w2, dy = make_case(T, E, K, H, I, "skewed", rng)
    leaves = [t.clone().requires_grad_() for t in (w13, w2)]
    deep_gemm.mega_moe(x, idx, w, leaves[0], leaves[1]).backward(dy)
    l64 = [t.detach().double().requires_grad_() for t in (w13, w2)]
    reference.moe_forward_simple(x.double(), idx, w.double(), l64[0], l64[1], None, z_dtype=torch.bfloat16
                                 ).backward(dy.double())
    for got, want in zip(leaves, l64):
        assert got.grad.dtype == torch.bfloat16
        assert rel_l2(got.grad, want.grad) <= TOL
    accs = [torch.randn(t.shape, device="cuda") for t in (w13, w2)]
    start = [a.clone() for a in accs]
    fresh = [t.clone().requires_grad_() for t in (w13, w2)]
    deep_gemm.mega_moe(x, idx, w, fresh[0], fresh[1], grad_accumulators=tuple(accs)).backward(dy)
    for f, a, s, want in zip(fresh, accs, start, l64):
        assert f.grad is None
        assert rel_l2(a - s, want.grad) <= TOL


@pytest.mark.gpu
def test_diag_ring_stats_needs_a_diagnostic_build():
    """pk_sm90_diag_ring_stats (benchmarks/ring_times.py) answers only in a -DPK_SM90_DIAG_RING_TIMES build; a wheel's
    library says so instead of returning zeros."""
    import ctypes
    lib = _sm90()._lib(torch.device("cuda"), "pk_sm90_diag_ring_stats")
    out = (ctypes.c_ulonglong * 8)(*range(8))
    with pytest.raises(ValueError, match="PK_SM90_DIAG_RING_TIMES"):
        lib.call("pk_sm90_diag_ring_stats", out, ctypes.c_int(1))
    assert list(out) == list(range(8))
