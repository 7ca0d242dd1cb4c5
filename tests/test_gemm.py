"""Grouped GEMMs (DeepGEMM API): reference against float64 on random layouts; errors; runtime knobs."""
import pytest
import torch

import deep_gemm
from deep_gemm.reference.quant import align

SENTINEL = 12345.0


def rand_sizes(G, mode, gen, mean=20):
    sizes = torch.randint(0, 2 * mean, (G,), generator=gen)
    if mode == "empty":
        sizes[torch.rand(G, generator=gen) < 0.5] = 0
    elif mode == "skewed":
        sizes[:] = torch.randint(0, 3, (G,), generator=gen)
        sizes[0] = 4 * mean + 1
    elif mode == "odd":
        sizes = sizes * 2 + 1
    return sizes.tolist()


def m_indices_layout(sizes, pad, gen):
    """m_indices with `pad` (-1) rows after every group."""
    idx = []
    for g, s in enumerate(sizes):
        idx += [g] * s + [-1] * pad
    return torch.tensor(idx, dtype=torch.int32)


def psum_layout(sizes, alignment):
    ends, rows, start = [], 0, 0
    for s in sizes:
        start = align(rows, alignment) if ends else 0
        rows = start + s
        ends.append(rows)
    return torch.tensor(ends, dtype=torch.int32), rows


def expected_contiguous(a64, b64_nk, layout, use_psum, M, N, alignment=128):
    """float64 result and the mask of rows that must be written."""
    want = torch.full((M, N), SENTINEL, dtype=torch.float64)
    if use_psum:
        prev = 0
        for g, e in enumerate(layout.tolist()):
            s = align(prev, alignment) if g else 0
            want[s:e] = a64[s:e] @ b64_nk[g].T
            prev = e
    else:
        for r, g in enumerate(layout.tolist()):
            if g >= 0:
                want[r] = a64[r] @ b64_nk[g].T
    return want


@pytest.mark.parametrize("mode", ["random", "empty", "skewed", "odd"])
@pytest.mark.parametrize("use_psum", [False, True])
@pytest.mark.parametrize("nn", [False, True])
def test_m_grouped_bf16_contiguous(mode, use_psum, nn, rng):
    G, N, K = 5, 48, 64
    sizes = rand_sizes(G, mode, rng)
    if use_psum:
        layout, M = psum_layout(sizes, 128)
    else:
        layout = m_indices_layout(sizes, 3, rng)
        M = layout.numel()
    a = torch.randn(M, K, generator=rng).bfloat16()
    b_nk = torch.randn(G, N, K, generator=rng).bfloat16()
    d = torch.full((M, N), SENTINEL).bfloat16()
    if nn:
        deep_gemm.m_grouped_bf16_gemm_nn_contiguous(a, b_nk.transpose(1, 2).contiguous(), d, layout,
                                                    use_psum_layout=use_psum)
    else:
        deep_gemm.m_grouped_bf16_gemm_nt_contiguous(a, b_nk, d, layout, use_psum_layout=use_psum)
    want = expected_contiguous(a.double(), b_nk.double(), layout, use_psum, M, N)
    torch.testing.assert_close(d.double(), want, rtol=1e-2, atol=1e-2)
    assert deep_gemm.calc_diff(d, want) < 1e-5


def test_psum_alignment_knob(rng):
    G, N, K = 4, 32, 32
    sizes = rand_sizes(G, "odd", rng)
    old = deep_gemm.get_mk_alignment_for_contiguous_layout()
    try:
        deep_gemm.set_mk_alignment_for_contiguous_layout(1)   # plain offsets, no gaps
        layout, M = psum_layout(sizes, 1)
        assert M == sum(sizes)
        a = torch.randn(M, K, generator=rng).bfloat16()
        b = torch.randn(G, N, K, generator=rng).bfloat16()
        d = torch.empty(M, N, dtype=torch.float32)
        deep_gemm.m_grouped_bf16_gemm_nt_contiguous(a, b, d, layout, use_psum_layout=True)
        want = expected_contiguous(a.double(), b.double(), layout, True, M, N, alignment=1)
        torch.testing.assert_close(d.double(), want, rtol=1e-5, atol=1e-5)
    finally:
        deep_gemm.set_mk_alignment_for_contiguous_layout(old)


@pytest.mark.parametrize("fp8", [False, True])
def test_m_grouped_masked(fp8, rng):
    G, M, N, K = 4, 37, 64, 256
    a = torch.randn(G, M, K, generator=rng).bfloat16()
    b = torch.randn(G, N, K, generator=rng).bfloat16()
    masked_m = torch.tensor([0, M, 5, 17], dtype=torch.int32)
    d = torch.full((G, M, N), SENTINEL).bfloat16()
    if fp8:
        qa = deep_gemm.per_token_cast_to_fp8(a)
        qb = deep_gemm.per_block_cast_to_fp8(b)
        deep_gemm.m_grouped_fp8_gemm_nt_masked(qa, qb, d, masked_m, 16)
        a64 = deep_gemm.per_token_cast_back_from_fp8(*qa, out_dtype=torch.float64)
        b64 = deep_gemm.per_block_cast_back_from_fp8(*qb, out_dtype=torch.float64)
    else:
        deep_gemm.m_grouped_bf16_gemm_nt_masked(a, b, d, masked_m, 16)
        a64, b64 = a.double(), b.double()
    for g in range(G):
        m = int(masked_m[g])
        want = a64[g, :m] @ b64[g].T
        assert deep_gemm.calc_diff(d[g, :m], want) < 1e-5
        assert torch.all(d[g, m:] == SENTINEL)   # rows past masked_m are not written
    assert deep_gemm.calc_diff(d[3, :17], a[3, :17].double() @ b[3].double().T) < (2e-3 if fp8 else 1e-5)


@pytest.mark.parametrize("mode", ["random", "empty", "odd"])
@pytest.mark.parametrize("with_c", [False, True])
def test_k_grouped_bf16(mode, with_c, rng):
    G, M, N = 4, 24, 40
    ks = rand_sizes(G, mode, rng)
    S = sum(ks)
    a = torch.randn(S, M, generator=rng).bfloat16()
    b = torch.randn(S, N, generator=rng).bfloat16()
    c = torch.randn(G, M, N, generator=rng) if with_c else None
    d = torch.empty(G, M, N)
    deep_gemm.k_grouped_bf16_gemm_tn_contiguous(a, b, d, ks, torch.tensor(ks, dtype=torch.int32), c)
    s = 0
    for g, k in enumerate(ks):
        want = a[s:s + k].double().T @ b[s:s + k].double() + (c[g].double() if with_c else 0)
        torch.testing.assert_close(d[g].double(), want, rtol=1e-4, atol=1e-4)
        s += k
    # c = d accumulates in place; ks_cpu=None reads the sizes from grouped_layout
    d2 = d.clone()
    deep_gemm.k_grouped_bf16_gemm_tn_contiguous(a, b, d2, None, torch.tensor(ks, dtype=torch.int32), d2)
    base = c if with_c else 0
    torch.testing.assert_close(d2 - d, d - base, rtol=1e-4, atol=1e-4)


def test_k_grouped_psum(rng):
    G, M, N = 3, 16, 8
    ks = [5, 0, 9]
    layout, S = psum_layout(ks, 128)
    a = torch.randn(S, M, generator=rng).bfloat16()
    b = torch.randn(S, N, generator=rng).bfloat16()
    d = torch.empty(G, M, N)
    deep_gemm.k_grouped_bf16_gemm_tn_contiguous(a, b, d, None, layout, use_psum_layout=True)
    starts = [0, 128, 128]
    for g, (s, k) in enumerate(zip(starts, ks)):
        torch.testing.assert_close(d[g].double(), a[s:s + k].double().T @ b[s:s + k].double(), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("use_ue8m0", [False, True])
@pytest.mark.parametrize("nn", [False, True])
def test_m_grouped_fp8_contiguous(use_ue8m0, nn, rng):
    G, N, K = 3, 256, 384
    sizes = rand_sizes(G, "odd", rng)
    layout = m_indices_layout(sizes, 2, rng)
    M = layout.numel()
    a = torch.randn(M, K, generator=rng).bfloat16()
    b_nk = torch.randn(G, N, K, generator=rng).bfloat16()
    qa = deep_gemm.per_token_cast_to_fp8(a, use_ue8m0=use_ue8m0)
    a64 = deep_gemm.per_token_cast_back_from_fp8(*qa, out_dtype=torch.float64)
    d = torch.full((M, N), SENTINEL).bfloat16()
    if nn:
        qb = deep_gemm.per_block_cast_to_fp8(b_nk.transpose(1, 2).contiguous(), use_ue8m0=use_ue8m0)
        b64 = deep_gemm.per_block_cast_back_from_fp8(*qb, out_dtype=torch.float64).transpose(1, 2)
        deep_gemm.m_grouped_fp8_gemm_nn_contiguous(qa, qb, d, layout)
    else:
        qb = deep_gemm.per_block_cast_to_fp8(b_nk, use_ue8m0=use_ue8m0)
        b64 = deep_gemm.per_block_cast_back_from_fp8(*qb, out_dtype=torch.float64)
        deep_gemm.m_grouped_fp8_gemm_nt_contiguous(qa, qb, d, layout)
    want = expected_contiguous(a64, b64, layout, False, M, N)
    assert deep_gemm.calc_diff(d, want) < 1e-5          # exact operands: only bf16 output rounding
    assert torch.all(d[layout < 0] == SENTINEL)
    loose = expected_contiguous(a.double(), b_nk.double(), layout, False, M, N)
    assert deep_gemm.calc_diff(d, loose) < 2e-3         # quantization error vs the bf16 operands


def test_m_grouped_mxfp8_contiguous(rng):
    G, N, K = 2, 64, 96
    sizes = [7, 12]
    layout = m_indices_layout(sizes, 0, rng)
    a = torch.randn(sum(sizes), K, generator=rng).bfloat16()
    b = torch.randn(G, N, K, generator=rng).bfloat16()
    qa, qb = deep_gemm.per_token_cast_to_mxfp8(a), deep_gemm.per_token_cast_to_mxfp8(b)
    assert qa[1].dtype == torch.uint8 and qb[1].shape == (G, N, 3)
    d = torch.empty(sum(sizes), N).bfloat16()
    deep_gemm.m_grouped_fp8_gemm_nt_contiguous(qa, qb, d, layout)
    a64 = deep_gemm.per_token_cast_back_from_mxfp8(*qa, out_dtype=torch.float64)
    b64 = deep_gemm.per_token_cast_back_from_mxfp8(*qb, out_dtype=torch.float64)
    assert deep_gemm.calc_diff(d, expected_contiguous(a64, b64, layout, False, d.shape[0], N)) < 1e-5


@pytest.mark.parametrize("gran", [128, 32])
def test_k_grouped_fp8(gran, rng):
    G, M, N = 3, 128, 256
    ks = [gran * 2, 0, gran]
    S = sum(ks)
    a = torch.randn(S, M, generator=rng).bfloat16()
    b = torch.randn(S, N, generator=rng).bfloat16()
    if gran == 128:
        qa, qb = deep_gemm.per_channel_cast_to_fp8(a), deep_gemm.per_channel_cast_to_fp8(b)
        a64 = deep_gemm.per_channel_cast_back_from_fp8(*qa, out_dtype=torch.float64)
        b64 = deep_gemm.per_channel_cast_back_from_fp8(*qb, out_dtype=torch.float64)
    else:
        qa, qb = deep_gemm.per_channel_cast_to_mxfp8(a), deep_gemm.per_channel_cast_to_mxfp8(b)
        a64 = deep_gemm.per_channel_cast_back_from_mxfp8(*qa, out_dtype=torch.float64)
        b64 = deep_gemm.per_channel_cast_back_from_mxfp8(*qb, out_dtype=torch.float64)
    d = torch.zeros(G, M, N)
    deep_gemm.k_grouped_fp8_gemm_tn_contiguous(qa, qb, d, ks, torch.tensor(ks, dtype=torch.int32), d,
                                               recipe=(1, 1, gran))
    s = 0
    for g, k in enumerate(ks):
        want = a64[s:s + k].T @ b64[s:s + k]
        torch.testing.assert_close(d[g].double(), want, rtol=1e-4, atol=1e-3)
        s += k
    assert torch.all(d[1] == 0)


def test_empty_m(rng):
    a = torch.empty(0, 64).bfloat16()
    b = torch.randn(2, 32, 64, generator=rng).bfloat16()
    d = torch.empty(0, 32).bfloat16()
    deep_gemm.m_grouped_bf16_gemm_nt_contiguous(a, b, d, torch.empty(0, dtype=torch.int32))


# ---- errors -------------------------------------------------------------------------------------

def _ab():
    return torch.zeros(8, 64).bfloat16(), torch.zeros(2, 32, 64).bfloat16(), torch.zeros(8, 32).bfloat16()


I32 = torch.int32
E = [
    (lambda: deep_gemm.m_grouped_bf16_gemm_nt_contiguous(torch.zeros(8, 64), *_ab()[1:], torch.zeros(8, dtype=I32)),
     TypeError, "a must have dtype bfloat16"),
    (lambda: deep_gemm.m_grouped_bf16_gemm_nt_contiguous(torch.zeros(8).bfloat16(), *_ab()[1:], torch.zeros(8, dtype=I32)),
     ValueError, "a must be 2-D"),
    (lambda: deep_gemm.m_grouped_bf16_gemm_nt_contiguous(_ab()[0], torch.zeros(2, 32, 48).bfloat16(), _ab()[2],
                                                         torch.zeros(8, dtype=I32)), ValueError, r"b must have K = 64"),
    (lambda: deep_gemm.m_grouped_bf16_gemm_nt_contiguous(*_ab()[:2], torch.zeros(8, 16).bfloat16(), torch.zeros(8, dtype=I32)),
     ValueError, r"d must have shape \[8, 32\]"),
    (lambda: deep_gemm.m_grouped_bf16_gemm_nt_contiguous(*_ab(), torch.zeros(8, dtype=torch.int64)),
     TypeError, "grouped_layout must have dtype int32"),
    (lambda: deep_gemm.m_grouped_bf16_gemm_nt_contiguous(*_ab(), torch.zeros(7, dtype=I32)),
     ValueError, r"grouped_layout must have shape \[8\]"),
    (lambda: deep_gemm.m_grouped_bf16_gemm_nt_contiguous(*_ab(), torch.zeros(8, dtype=I32), use_psum_layout=True),
     ValueError, r"grouped_layout must have shape \[2\]"),
    (lambda: deep_gemm.m_grouped_bf16_gemm_nt_contiguous(torch.zeros(64, 8).bfloat16().T, *_ab()[1:], torch.zeros(8, dtype=I32)),
     ValueError, "a must be contiguous"),
    (lambda: deep_gemm.m_grouped_bf16_gemm_nt_contiguous(_ab()[0], _ab()[1].to("meta"), _ab()[2], torch.zeros(8, dtype=I32)),
     ValueError, "b is on meta but the other inputs are on cpu"),
    (lambda: deep_gemm.m_grouped_bf16_gemm_nt_masked(torch.zeros(2, 4, 64).bfloat16(), torch.zeros(2, 32, 64).bfloat16(),
                                                     torch.zeros(2, 4, 32).bfloat16(), torch.zeros(3, dtype=I32), 4),
     ValueError, r"masked_m must have shape \[2\]"),
    (lambda: deep_gemm.m_grouped_bf16_gemm_nt_masked(torch.zeros(2, 4, 64).bfloat16(), torch.zeros(2, 32, 64).bfloat16(),
                                                     torch.zeros(2, 4, 32).bfloat16(), torch.zeros(2, dtype=I32), 0),
     ValueError, "expected_m must be a positive int"),
    (lambda: deep_gemm.k_grouped_bf16_gemm_tn_contiguous(torch.zeros(10, 4).bfloat16(), torch.zeros(10, 6).bfloat16(),
                                                         torch.zeros(2, 4, 6), [4, 5], torch.zeros(2, dtype=I32)),
     ValueError, "ks_cpu must sum to a.shape"),
    (lambda: deep_gemm.k_grouped_bf16_gemm_tn_contiguous(torch.zeros(10, 4).bfloat16(), torch.zeros(10, 6).bfloat16(),
                                                         torch.zeros(2, 4, 6).bfloat16(), [4, 6], torch.zeros(2, dtype=I32)),
     TypeError, "d must have dtype float32"),
    (lambda: deep_gemm.m_grouped_fp8_gemm_nt_contiguous(_ab()[0], _ab()[1], _ab()[2], torch.zeros(8, dtype=I32)),
     TypeError, r"a must be a pair \(E4M3 tensor, scales\)"),
    (lambda: deep_gemm.m_grouped_fp8_gemm_nt_contiguous((_ab()[0], torch.ones(8, 1)), deep_gemm.per_block_cast_to_fp8(_ab()[1]),
                                                        _ab()[2], torch.zeros(8, dtype=I32)),
     TypeError, r"a\[0\] must have dtype float8_e4m3fn"),
    (lambda: deep_gemm.m_grouped_fp8_gemm_nt_contiguous(deep_gemm.per_token_cast_to_fp8(_ab()[0]),
                                                        deep_gemm.per_block_cast_to_fp8(_ab()[1]), *_ab()[2:],
                                                        torch.zeros(8, dtype=I32)),
     ValueError, "a: K = 64 must be a multiple of 128"),
    (lambda: deep_gemm.k_grouped_fp8_gemm_tn_contiguous(deep_gemm.per_channel_cast_to_fp8(torch.zeros(192, 4)),
                                                        deep_gemm.per_channel_cast_to_fp8(torch.zeros(192, 6)),
                                                        torch.zeros(2, 4, 6), [64, 128], torch.zeros(2, dtype=I32)),
     ValueError, "every ks_cpu entry must be a multiple of 128"),
    (lambda: deep_gemm.k_grouped_fp8_gemm_tn_contiguous(None, None, torch.zeros(2, 4, 6), [64, 128],
                                                        torch.zeros(2, dtype=I32), recipe=(1, 128, 128)),
     ValueError, r"recipe must be \(1, 1, 128\) or \(1, 1, 32\)"),
    (lambda: deep_gemm.set_num_sms(0), ValueError, "num_sms must be a positive int"),
    (lambda: deep_gemm.set_mk_alignment_for_contiguous_layout(-1), ValueError, "alignment must be a positive int"),
]


@pytest.mark.parametrize("bad,exc,match", E, ids=[m for _, _, m in E])
def test_errors(bad, exc, match):
    with pytest.raises(exc, match=match):
        bad()


def test_num_sms():
    old = deep_gemm.get_num_sms()
    deep_gemm.set_num_sms(7)
    assert deep_gemm.get_num_sms() == 7
    import deep_gemm.gemm as g
    g._num_sms = None if old == 0 or not torch.cuda.is_available() else old
    assert deep_gemm.get_num_sms() == old


# ---- registered ops ------------------------------------------------------------------------------

def _op_samples(gen):
    I32 = torch.int32
    G, N, K = 3, 32, 256
    sizes = [5, 0, 9]
    lay = m_indices_layout(sizes, 2, gen)
    M = lay.numel()
    a = torch.randn(M, K, generator=gen).bfloat16()
    b = torch.randn(G, N, K, generator=gen).bfloat16()
    bkn = torch.randn(G, K, N, generator=gen).bfloat16()
    ends = torch.tensor([5, 128 + 0, 128 + 9], dtype=I32)
    am = torch.randn(G, 8, K, generator=gen).bfloat16()
    mm = torch.tensor([8, 0, 3], dtype=I32)
    qa, qb = deep_gemm.per_token_cast_to_fp8(a), deep_gemm.per_block_cast_to_fp8(b)
    qkn = deep_gemm.per_block_cast_to_fp8(bkn)
    qam = deep_gemm.per_token_cast_to_fp8(am)
    ks = [128, 0, 256]
    ka, kb = torch.randn(384, 16, generator=gen).bfloat16(), torch.randn(384, 24, generator=gen).bfloat16()
    qka, qkb = deep_gemm.per_channel_cast_to_fp8(ka), deep_gemm.per_channel_cast_to_fp8(kb)
    kl = torch.tensor(ks, dtype=I32)
    bf = torch.bfloat16
    return {
        "m_grouped_bf16_gemm_nt_contiguous": [
            (a, b, torch.zeros(M, N, dtype=bf), lay, "nk", False, True, None),
            (torch.randn(137, K, generator=gen).bfloat16(), b, torch.zeros(137, N, dtype=bf), ends, "nk", True, True, None)],
        "m_grouped_bf16_gemm_nn_contiguous": [(a, bkn, torch.zeros(M, N, dtype=bf), lay, "nk", False, True)],
        "m_grouped_bf16_gemm_nt_masked": [(am, b, torch.zeros(G, 8, N, dtype=bf), mm, 4, "nk")],
        "k_grouped_bf16_gemm_tn_contiguous": [(ka, kb, torch.zeros(G, 16, 24), ks, kl, None, True, "mn", False),
                                              (ka, kb, torch.zeros(G, 16, 24), None, kl, torch.randn(G, 16, 24), False, "mn", False)],
        "m_grouped_fp8_gemm_nt_contiguous": [(*qa, *qb, torch.zeros(M, N, dtype=bf), lay, None, None, None, "nk", False,
                                              False, True, None)],
        "m_grouped_fp8_gemm_nn_contiguous": [(*qa, *qkn, torch.zeros(M, N, dtype=bf), lay, None, None, None, "nk", False,
                                              False, True)],
        "m_grouped_fp8_gemm_nt_masked": [(*qam, *qb, torch.zeros(G, 8, N, dtype=bf), mm, 4, None, None, None, "nk", False)],
        "k_grouped_fp8_gemm_tn_contiguous": [(*qka, *qkb, torch.zeros(G, 16, 24), ks, kl, None, True, [1, 1, 128], "mn",
                                              False)],
    }


def test_opcheck_every_gemm_op(rng):
    from deep_gemm._gemm_ops import OPS
    samples = _op_samples(rng)
    assert sorted(samples) == sorted(OPS)
    for name, arg_sets in samples.items():
        # opcheck's schema test compares tensors with ops that have no float8 kernels on CPU
        utils = (("test_faketensor", "test_aot_dispatch_static", "test_aot_dispatch_dynamic") if "fp8" in name
                 else ("test_schema", "test_autograd_registration", "test_faketensor", "test_aot_dispatch_dynamic"))
        for args in arg_sets:
            torch.library.opcheck(getattr(torch.ops.prime_kernels, name).default, args, test_utils=utils)


def test_compile_grouped_gemms_fullgraph(rng):
    """A grouped GEMM pipeline (fp8 cast excluded) traces into one graph and matches eager."""
    torch._dynamo.reset()
    G, N, K = 3, 64, 128
    sizes = [17, 0, 40]
    lay = m_indices_layout(sizes, 0, rng)
    a = torch.randn(57, K, generator=rng).bfloat16()
    b = torch.randn(G, N, K, generator=rng).bfloat16()
    ks = torch.tensor(sizes, dtype=torch.int32)

    def f(a, b):
        d = torch.empty(57, N, dtype=torch.bfloat16)
        deep_gemm.m_grouped_bf16_gemm_nt_contiguous(a, b, d, lay)
        dw = torch.zeros(G, N, K)
        deep_gemm.k_grouped_bf16_gemm_tn_contiguous(d, a, dw, None, ks, dw)
        return d.float().relu(), dw

    want = f(a, b)
    got = torch.compile(f, fullgraph=True, backend="aot_eager")(a, b)
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w)


# ---- GPU: each public GEMM on the device's backend against the CPU reference ----------------------

def _to(v, dev):
    if isinstance(v, torch.Tensor):
        return v.to(dev)
    if isinstance(v, tuple):
        return tuple(_to(t, dev) for t in v)
    return v


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["m_grouped_bf16_gemm_nt_contiguous", "m_grouped_bf16_gemm_nn_contiguous",
                                  "m_grouped_bf16_gemm_nt_masked", "k_grouped_bf16_gemm_tn_contiguous",
                                  "m_grouped_fp8_gemm_nt_contiguous", "m_grouped_fp8_gemm_nn_contiguous",
                                  "m_grouped_fp8_gemm_nt_masked", "k_grouped_fp8_gemm_tn_contiguous"])
def test_gpu_public_gemm_matches_reference(name, rng):
    samples = _op_samples(rng)[name]
    fn = getattr(deep_gemm, name)
    for args in samples:
        args = list(args)
        if "fp8" in name:   # public form takes (tensor, scales) pairs
            args = [(args[0], args[1]), (args[2], args[3])] + args[4:]
        if name.startswith("k_grouped"):   # public: (a, b, d, ks_cpu, grouped_layout, c, ...) with c = d for accumulate
            i = 2
            acc = args[i + 4]
            args = args[:i + 3] + [args[i] if acc else args[i + 3]] + args[i + 5:]
        out = []
        for dev in ("cuda", "cpu"):
            a = [_to(v, dev) for v in args]
            if name.startswith("k_grouped") and acc:
                a[5] = a[2]
            fn(*a)
            out.append(a[2].cpu())
        assert deep_gemm.calc_diff(out[0], out[1]) < 1e-5, name
