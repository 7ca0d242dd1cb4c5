"""FP8 / MXFP8 casts: the exact arithmetic (amax/448, UE8M0 ceil, saturating E4M3), inverses, layouts."""
import pytest
import torch

import deep_gemm

FP8_MAX = 448.0


def blocks_amax64(x, bm, bk):
    """float64 amax per (bm x bk) block, independent of the library's padding code."""
    M, K = x.shape
    out = torch.zeros(-(-M // bm), -(-K // bk), dtype=torch.float64)
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            out[i, j] = x[i * bm:(i + 1) * bm, j * bk:(j + 1) * bk].double().abs().max()
    return out.clamp_min(1e-4)


def expand(s, bm, bk, M, K):
    return s.repeat_interleave(bm, 0)[:M].repeat_interleave(bk, 1)[:, :K]


def e4m3_round64(v):
    """Round float64 to the nearest E4M3 value, ties to even (saturating), via the exact fp8 grid."""
    grid = torch.arange(256, dtype=torch.uint8).view(torch.float8_e4m3fn).double()
    grid = torch.unique(grid[torch.isfinite(grid)])
    v = v.clamp(-FP8_MAX, FP8_MAX)
    pos = torch.searchsorted(grid, v.contiguous()).clamp(1, grid.numel() - 1)
    lo, hi = grid[pos - 1], grid[pos]
    lo_even = (lo.to(torch.float8_e4m3fn).view(torch.uint8) & 1) == 0
    tie = (v - lo) == (hi - v)
    return torch.where(tie, torch.where(lo_even, lo, hi), torch.where((v - lo) < (hi - v), lo, hi))


CASTS = {  # name -> (cast, cast back, block shape)
    "per_token": (deep_gemm.per_token_cast_to_fp8, deep_gemm.per_token_cast_back_from_fp8, (1, 128)),
    "per_block": (deep_gemm.per_block_cast_to_fp8, deep_gemm.per_block_cast_back_from_fp8, (128, 128)),
    "per_channel": (deep_gemm.per_channel_cast_to_fp8, deep_gemm.per_channel_cast_back_from_fp8, (128, 1)),
}


@pytest.mark.parametrize("name", list(CASTS))
@pytest.mark.parametrize("use_ue8m0", [False, True])
@pytest.mark.parametrize("shape", [(1, 128), (37, 300), (130, 257), (256, 128)])
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
def test_fp8_casts_exact(name, use_ue8m0, shape, dtype, rng):
    cast, back, (bm, bk) = CASTS[name]
    x = (torch.randn(*shape, generator=rng) * torch.exp(torch.randn(shape[0], 1, generator=rng) * 3)).to(dtype)
    q, sf = cast(x, use_ue8m0=use_ue8m0)
    assert q.dtype == torch.float8_e4m3fn and q.shape == x.shape and sf.dtype == torch.float32
    want_sf = (blocks_amax64(x, bm, bk) / FP8_MAX).float()   # fp32 amax / 448 (amax is exact in fp32)
    if use_ue8m0:
        exp = torch.ceil(torch.log2(want_sf.double()))
        want_sf = torch.pow(2.0, exp).float()
    assert sf.shape == want_sf.shape
    torch.testing.assert_close(sf, want_sf, rtol=0, atol=0)
    # q = e4m3(x * (1/sf)), reciprocal and product in fp32
    scaled = x.float() * (1.0 / expand(sf, bm, bk, *shape))
    torch.testing.assert_close(q.double(), e4m3_round64(scaled.double()), rtol=0, atol=0)
    assert q.float().abs().max() <= FP8_MAX
    # inverse: float(q) * sf; relative error within half an E4M3 ulp (2^-4) of the block amax
    xr = back(q, sf, out_dtype=torch.float64)
    err = (xr - x.double()).abs()
    assert torch.all(err <= expand(blocks_amax64(x, bm, bk), bm, bk, *shape) * 2 ** -3 + 1e-30)


def test_zero_block_and_large_values():
    x = torch.zeros(2, 256)
    x[1, 128:] = 3e38
    q, sf = deep_gemm.per_token_cast_to_fp8(x)
    assert torch.all(q[0].float() == 0) and torch.allclose(sf[0], torch.tensor(1e-4 / 448))
    assert torch.all(torch.isfinite(q.float())) and torch.all(q[1, 128:].float() == FP8_MAX)


def test_ue8m0_helpers(rng):
    s = torch.rand(3, 9, generator=rng) * 10 + 1e-6
    p2 = deep_gemm.ceil_to_ue8m0(s)
    assert torch.all(p2 >= s) and torch.all(p2 < 2 * s)
    assert torch.all(torch.log2(p2) == torch.round(torch.log2(p2)))
    e = deep_gemm.float_to_ue8m0(p2)
    assert e.dtype == torch.uint8 and torch.equal(deep_gemm.ue8m0_to_float(e), p2)
    packed = deep_gemm.pack_ue8m0_to_int(p2)
    assert packed.dtype == torch.int32 and packed.shape == (3, 3)
    assert torch.equal(deep_gemm.unpack_ue8m0_from_int(packed, 9), p2)
    assert int(packed[0, 0]) & 0xFF == int(e[0, 0])   # little-endian: entry 0 in the low byte


@pytest.mark.parametrize("shape", [(5, 64), (33, 100), (2, 7, 96)])
def test_mxfp8(shape, rng):
    x = torch.randn(*shape, generator=rng).bfloat16()
    q, e = deep_gemm.per_token_cast_to_mxfp8(x)
    assert e.dtype == torch.uint8 and e.shape == (*shape[:-1], -(-shape[-1] // 32))
    x2 = x.reshape(-1, shape[-1])
    sf = deep_gemm.ue8m0_to_float(e.reshape(-1, e.shape[-1]))
    want = torch.pow(2.0, torch.ceil(torch.log2(blocks_amax64(x2, 1, 32) / FP8_MAX))).float()
    torch.testing.assert_close(sf, want, rtol=0, atol=0)
    xr = deep_gemm.per_token_cast_back_from_mxfp8(q, e, out_dtype=torch.float32)
    assert deep_gemm.calc_diff(xr, x) < 1e-3
    if len(shape) == 2:
        qc, ec = deep_gemm.per_channel_cast_to_mxfp8(x)
        assert ec.shape == (-(-shape[0] // 32), shape[1])
        assert deep_gemm.calc_diff(deep_gemm.per_channel_cast_back_from_mxfp8(qc, ec), x) < 1e-3


def test_packed_ue8m0_roundtrip(rng):
    x = torch.randn(9, 640, generator=rng)
    q, packed = deep_gemm.per_token_cast_to_fp8(x, use_packed_ue8m0=True)
    q2, sf = deep_gemm.per_token_cast_to_fp8(x, use_ue8m0=True)
    assert torch.equal(q.view(torch.uint8), q2.view(torch.uint8)) and packed.shape == (9, 2)
    torch.testing.assert_close(deep_gemm.per_token_cast_back_from_fp8(q, packed, out_dtype=torch.float32),
                               deep_gemm.per_token_cast_back_from_fp8(q2, sf, out_dtype=torch.float32))


def test_layout_helpers(rng):
    assert deep_gemm.get_tma_aligned_size(37, 4) == 40 and deep_gemm.get_tma_aligned_size(37, 1) == 48
    sf = torch.rand(37, 3, generator=rng)
    t = deep_gemm.get_mn_major_tma_aligned_tensor(sf)
    assert torch.equal(t, sf) and t.stride() == (1, 40)
    assert deep_gemm.get_mn_major_tma_aligned_tensor(t).data_ptr() == t.data_ptr()   # already in layout
    g = torch.rand(2, 37, 3, generator=rng)
    tg = deep_gemm.get_col_major_tma_aligned_tensor(g)
    assert torch.equal(tg, g) and tg.stride() == (120, 1, 40)
    p2 = deep_gemm.ceil_to_ue8m0(torch.rand(37, 6, generator=rng))
    pk = deep_gemm.get_mn_major_tma_aligned_packed_ue8m0_tensor(p2)
    assert pk.shape == (37, 2) and pk.stride() == (1, 40)
    assert torch.equal(pk.contiguous(), deep_gemm.pack_ue8m0_to_int(p2))


E = [
    (lambda: deep_gemm.per_token_cast_to_fp8(torch.zeros(4, 128, dtype=torch.int32)), TypeError, "x must have dtype"),
    (lambda: deep_gemm.per_token_cast_to_fp8(torch.zeros(128)), ValueError, "x must be 2-D"),
    (lambda: deep_gemm.per_block_cast_to_fp8(torch.zeros(4, 128), gran_k=64), ValueError, "gran_k must be 128"),
    (lambda: deep_gemm.per_token_cast_back_from_fp8(torch.zeros(4, 128), torch.ones(4, 1)), TypeError,
     "x must have dtype float8_e4m3fn"),
    (lambda: deep_gemm.per_token_cast_back_from_fp8(torch.zeros(4, 256).to(torch.float8_e4m3fn), torch.ones(4, 1)),
     ValueError, r"sf must have shape \[4, 2\]"),
    (lambda: deep_gemm.get_mn_major_tma_aligned_packed_ue8m0_tensor(torch.full((4, 4), 0.3)), ValueError,
     "sf must hold positive powers of two"),
    (lambda: deep_gemm.get_tma_aligned_size(3, 3), ValueError, "element_size must be"),
]


@pytest.mark.parametrize("bad,exc,match", E, ids=[m for _, _, m in E])
def test_errors(bad, exc, match):
    with pytest.raises(exc, match=match):
        bad()


def test_empty_inputs():
    for cast in (deep_gemm.per_token_cast_to_fp8, deep_gemm.per_block_cast_to_fp8, deep_gemm.per_channel_cast_to_fp8):
        q, sf = cast(torch.zeros(0, 256))
        assert q.shape == (0, 256)
    q, e = deep_gemm.per_token_cast_to_mxfp8(torch.zeros(0, 64))
    assert q.shape == (0, 64) and e.shape == (0, 2)
    assert deep_gemm.per_token_cast_back_from_mxfp8(q, e).shape == (0, 64)


@pytest.mark.gpu
@pytest.mark.parametrize("name,kw", [("per_token_cast_to_fp8", {}), ("per_token_cast_to_fp8", {"use_ue8m0": True}),
                                     ("per_token_cast_to_fp8", {"gran_k": 32, "use_ue8m0": True}),
                                     ("per_block_cast_to_fp8", {}), ("per_block_cast_to_fp8", {"use_ue8m0": True}),
                                     ("per_channel_cast_to_fp8", {}), ("per_token_cast_to_mxfp8", {}),
                                     ("per_channel_cast_to_mxfp8", {})])
def test_gpu_casts_bit_exact(name, kw, rng):
    """Whatever runs on the GPU (native kernel or reference) quantizes bit for bit like the CPU reference."""
    x = (torch.randn(300, 1000, generator=rng) * torch.exp(torch.randn(300, 1, generator=rng) * 2)).bfloat16()
    fn = getattr(deep_gemm, name)
    qg, sg = fn(x.cuda(), **kw)
    qc, sc = fn(x, **kw)
    assert torch.equal(qg.cpu().view(torch.uint8), qc.view(torch.uint8))
    assert torch.equal(sg.cpu(), sc)


def test_opcheck_every_cast_op(rng):
    from deep_gemm._quant_ops import OPS
    x = torch.randn(37, 300, generator=rng).bfloat16()
    q, sf = deep_gemm.per_token_cast_to_fp8(x)
    qb, sfb = deep_gemm.per_block_cast_to_fp8(x)
    qc, sfc = deep_gemm.per_channel_cast_to_fp8(x)
    qm, em = deep_gemm.per_token_cast_to_mxfp8(x)
    qmc, emc = deep_gemm.per_channel_cast_to_mxfp8(x)
    samples = {
        "per_token_cast_to_fp8": [(x, False, 128, False), (x, True, 32, False), (x, False, 128, True)],
        "per_block_cast_to_fp8": [(x, False, 128), (x.float().reshape(1, 37, 300), True, 128)],
        "per_channel_cast_to_fp8": [(x, False, 128)],
        "per_token_cast_to_mxfp8": [(x,)],
        "per_channel_cast_to_mxfp8": [(x,)],
        "per_token_cast_back_from_fp8": [(q, sf, 128, torch.bfloat16)],
        "per_block_cast_back_from_fp8": [(qb, sfb, 128, torch.float32)],
        "per_channel_cast_back_from_fp8": [(qc, sfc, 128, torch.bfloat16)],
        "per_token_cast_back_from_mxfp8": [(qm, em, torch.bfloat16)],
        "per_channel_cast_back_from_mxfp8": [(qmc, emc, torch.float32)],
    }
    assert sorted(samples) == sorted(OPS)
    # opcheck's schema test compares tensors with ops that have no float8 kernels on CPU
    utils = ("test_faketensor", "test_aot_dispatch_static", "test_aot_dispatch_dynamic")
    for name, arg_sets in samples.items():
        for args in arg_sets:
            torch.library.opcheck(getattr(torch.ops.prime_kernels, name).default, args, test_utils=utils)


def test_compile_cast_and_fp8_gemm_fullgraph(rng):
    torch._dynamo.reset()
    lay = torch.tensor([0] * 9 + [1] * 14, dtype=torch.int32)
    a = torch.randn(23, 256, generator=rng).bfloat16()
    b = torch.randn(2, 128, 256, generator=rng).bfloat16()

    def f(a, b):
        d = torch.empty(23, 128, dtype=torch.bfloat16)
        deep_gemm.m_grouped_fp8_gemm_nt_contiguous(deep_gemm.per_token_cast_to_fp8(a),
                                                   deep_gemm.per_block_cast_to_fp8(b, use_ue8m0=True), d, lay)
        return d

    got = torch.compile(f, fullgraph=True, backend="aot_eager", dynamic=True)(a, b)
    assert torch.equal(got, f(a, b))


def test_transform_sf_into_required_layout(rng):
    x = torch.randn(37, 300, generator=rng)
    _, sf = deep_gemm.per_token_cast_to_fp8(x)
    t = deep_gemm.transform_sf_into_required_layout(sf, 37, 300, (1, 128), arch_major=9)
    assert torch.equal(t, sf) and t.stride() == (1, 40)
    t3 = deep_gemm.transform_sf_into_required_layout(sf, 37, 300, (1, 128, 128), is_sfa=True, arch_major=9)
    assert torch.equal(t3, sf)
    w = torch.randn(2, 256, 300, generator=rng)
    _, sfw = deep_gemm.per_block_cast_to_fp8(w, use_ue8m0=True)
    assert torch.equal(deep_gemm.transform_sf_into_required_layout(sfw, 256, 300, (128, 128), 2, arch_major=9), sfw)
    # Blackwell: block scales broadcast to rows, packed four UE8M0 exponents per int32, MN-major
    pk = deep_gemm.transform_sf_into_required_layout(sfw, 256, 300, (1, 128, 128), 2, is_sfa=False, arch_major=10)
    assert pk.shape == (2, 256, 1) and pk.dtype == torch.int32 and pk.stride()[1] == 1
    rows = deep_gemm.unpack_ue8m0_from_int(pk.contiguous(), 3)
    assert torch.equal(rows, sfw.repeat_interleave(128, dim=1))
    _, packed = deep_gemm.per_token_cast_to_fp8(x, use_packed_ue8m0=True, gran_k=32)
    pk2 = deep_gemm.transform_sf_into_required_layout(packed, 37, 300, (1, 32), arch_major=10)
    assert torch.equal(pk2, packed) and pk2.stride() == (1, 40)
    with pytest.raises(ValueError, match=r"sf must have shape \[..., 37, 3\]"):
        deep_gemm.transform_sf_into_required_layout(sf[:, :2], 37, 300, (1, 128), arch_major=9)
    with pytest.raises(ValueError, match="is_sfa must be given"):
        deep_gemm.transform_sf_into_required_layout(sf, 37, 300, (1, 128, 128), arch_major=9)
