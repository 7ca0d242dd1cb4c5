"""Hopper native bf16 m-grouped GEMMs (contiguous nt/nn with m_indices or psum layouts, masked nt)
against float64; d is poisoned with NaN first, and rows that belong to no group must keep it."""
import pytest
import torch

import deep_gemm
from deep_gemm.kernels import NotSupportedHere
from deep_gemm.testing import rel_l2

pytestmark = pytest.mark.gpu
TOL = 1e-2


def _sm90():
    from deep_gemm.kernels import sm90
    return sm90


def _rand(*shape, gen, scale=1.0):
    return (torch.randn(*shape, generator=gen) * scale).to(torch.bfloat16).cuda()


# Kernel variants the correctness cases run under (PK_SM90_VARIANT_GEMM): "0" = the library default,
# "1" = cooperative 128 x 256, "2" = ping-pong 128 x 128, "3" = cooperative with the staged (shared
# memory + bulk copy) epilogue, "4" = ping-pong 128 x 192 staged per warp (192 accumulators a thread).
# + 16: 2-CTA clusters multicasting B; + 32: wait_group 0; 3 + 64: full tiles stored by TMA.
# Suffix "m": each group's tiles walked m-tile first (PK_SM90_TILE_ORDER=m; the default only where N is 16
# or more n-blocks, wider than these cases).
VARIANTS = ["0", "1", "2", "3", "4", "17", "19", "33", "35", "67", "99", "0m", "2m", "4m", "19m", "99m"]


@pytest.fixture(params=VARIANTS, ids=lambda v: f"variant{v}")
def variant(request, monkeypatch):
    v = request.param
    if v.endswith("m"):
        monkeypatch.setenv("PK_SM90_TILE_ORDER", "m")
        v = v[:-1]
    else:
        monkeypatch.delenv("PK_SM90_TILE_ORDER", raising=False)
    monkeypatch.setenv("PK_SM90_VARIANT_GEMM", v)
    return v


@pytest.mark.parametrize("nn", [False, True])
@pytest.mark.parametrize("G,N,K,sizes", [
    (4, 256, 128, [130, 0, 257, 1]),
    (8, 512, 256, [64] * 8),
    (4, 384, 640, [300, 5, 129, 65]),  # 65: the second warpgroup of the tile computes one row
    # last m-tiles of exactly 64 and of 63 rows: the second warpgroup (ping-pong: the second m64 block) multiplies nothing
    (3, 256, 320, [192, 63, 320]),
])
def test_contiguous_m_indices(G, N, K, sizes, nn, rng, variant):
    sm90 = _sm90()
    m_idx = torch.cat([torch.full((s,), g, dtype=torch.int32) for g, s in enumerate(sizes)] +
                      [torch.full((37,), -1, dtype=torch.int32)])
    m_idx = m_idx[torch.randperm(m_idx.numel(), generator=rng)]  # rows of a group need not be adjacent
    M = m_idx.numel()
    a = _rand(M, K, gen=rng)
    b = _rand(G, K, N, gen=rng, scale=K ** -0.5) if nn else _rand(G, N, K, gen=rng, scale=K ** -0.5)
    d = torch.full((M, N), float("nan"), dtype=torch.bfloat16, device="cuda")
    gl = m_idx.cuda()
    fn = sm90.m_grouped_bf16_gemm_nn_contiguous if nn else sm90.m_grouped_bf16_gemm_nt_contiguous
    fn(a, b, d, gl)
    torch.cuda.synchronize()
    bnk = (b.transpose(1, 2) if nn else b).double()
    for g in range(G):
        rows = (gl == g).nonzero().flatten()
        if rows.numel():
            ref = a[rows].double() @ bnk[g].T
            assert rel_l2(d[rows], ref) <= TOL, g
    pad = (gl < 0)
    assert torch.isnan(d[pad].float()).all(), "padding rows must not be written"


@pytest.mark.parametrize("nn", [False, True])
def test_contiguous_psum(nn, rng, variant):
    sm90 = _sm90()
    from deep_gemm.reference.gemm import psum_ranges, _mk_alignment
    G, N, K = 5, 256, 192
    sizes = [200, 0, 3, 128, 77]
    ends, prev = [], 0
    al = _mk_alignment()
    for s in sizes:
        start = (prev + al - 1) // al * al if ends else 0
        ends.append(start + s)
        prev = ends[-1]
    M = ends[-1] + 5
    a = _rand(M, K, gen=rng)
    b = _rand(G, K, N, gen=rng, scale=K ** -0.5) if nn else _rand(G, N, K, gen=rng, scale=K ** -0.5)
    d = torch.full((M, N), float("nan"), dtype=torch.bfloat16, device="cuda")
    gl = torch.tensor(ends, dtype=torch.int32, device="cuda")
    (sm90.m_grouped_bf16_gemm_nn_contiguous if nn else sm90.m_grouped_bf16_gemm_nt_contiguous)(
        a, b, d, gl, use_psum_layout=True)
    torch.cuda.synchronize()
    bnk = (b.transpose(1, 2) if nn else b).double()
    for g, (s, e) in enumerate(psum_ranges(ends, al)):
        if e > s:
            assert rel_l2(d[s:e], a[s:e].double() @ bnk[g].T) <= TOL


def test_masked(rng, variant):
    sm90 = _sm90()
    G, M, N, K = 6, 300, 512, 256
    a = _rand(G, M, K, gen=rng)
    b = _rand(G, N, K, gen=rng, scale=K ** -0.5)
    masked_m = torch.tensor([0, 1, 128, 300, 129, 77], dtype=torch.int32, device="cuda")
    d = torch.full((G, M, N), float("nan"), dtype=torch.bfloat16, device="cuda")
    sm90.m_grouped_bf16_gemm_nt_masked(a, b, d, masked_m, 128)
    torch.cuda.synchronize()
    for g in range(G):
        m = int(masked_m[g])
        if m:
            assert rel_l2(d[g, :m], a[g, :m].double() @ b[g].double().T) <= TOL
        assert torch.isnan(d[g, m:].float()).all()


@pytest.mark.parametrize("nn", [False, True])
def test_staged_matches_cooperative_bitwise(nn, rng, monkeypatch):
    """Variant 3 (staged epilogue) writes exactly the cooperative kernel's values, and the same rows:
    group-clipped m_indices rows scattered back, N not a multiple of the 256-wide tile, NaN padding."""
    sm90 = _sm90()
    G, N, K = 5, 320 if not nn else 384, 448
    sizes = [1, 200, 0, 129, 64]
    m_idx = torch.cat([torch.full((s,), g, dtype=torch.int32) for g, s in enumerate(sizes)] +
                      [torch.full((19,), -1, dtype=torch.int32)])
    m_idx = m_idx[torch.randperm(m_idx.numel(), generator=rng)]
    M = m_idx.numel()
    a = _rand(M, K, gen=rng)
    b = _rand(G, K, N, gen=rng, scale=K ** -0.5) if nn else _rand(G, N, K, gen=rng, scale=K ** -0.5)
    gl = m_idx.cuda()
    fn = sm90.m_grouped_bf16_gemm_nn_contiguous if nn else sm90.m_grouped_bf16_gemm_nt_contiguous
    outs = []
    for v in ("1", "3"):
        monkeypatch.setenv("PK_SM90_VARIANT_GEMM", v)
        d = torch.full((M, N), float("nan"), dtype=torch.bfloat16, device="cuda")
        fn(a, b, d, gl)
        outs.append(d)
    torch.cuda.synchronize()
    assert torch.equal(outs[0].isnan(), outs[1].isnan()), "staged variant wrote different rows"
    assert torch.isnan(outs[1][gl < 0].float()).all()
    assert not torch.isnan(outs[1][gl >= 0].float()).any()
    assert torch.equal(torch.nan_to_num(outs[0]), torch.nan_to_num(outs[1]))


def test_staged_unaligned_out(rng, monkeypatch):
    """An output base that is 4- but not 16-byte aligned: variant 3 falls back to the cooperative store."""
    sm90 = _sm90()
    monkeypatch.setenv("PK_SM90_VARIANT_GEMM", "3")
    G, M, N, K = 2, 96, 256, 128
    a = _rand(G, M, K, gen=rng)
    b = _rand(G, N, K, gen=rng, scale=K ** -0.5)
    masked_m = torch.tensor([96, 33], dtype=torch.int32, device="cuda")
    buf = torch.full((G * M * N + 2,), float("nan"), dtype=torch.bfloat16, device="cuda")
    d = buf[2:].view(G, M, N)  # 4 bytes past an aligned base
    sm90.m_grouped_bf16_gemm_nt_masked(a, b, d, masked_m, 64)
    torch.cuda.synchronize()
    assert rel_l2(d[0], a[0].double() @ b[0].double().T) <= TOL
    assert rel_l2(d[1, :33], a[1, :33].double() @ b[1].double().T) <= TOL
    assert torch.isnan(d[1, 33:].float()).all() and torch.isnan(buf[:2].float()).all()


def test_public_entry_dispatches(rng):
    """deep_gemm.m_grouped_bf16_gemm_nt_masked reaches the native kernel and agrees."""
    G, M, N, K = 2, 64, 256, 128
    a = _rand(G, M, K, gen=rng)
    b = _rand(G, N, K, gen=rng, scale=K ** -0.5)
    masked_m = torch.tensor([64, 10], dtype=torch.int32, device="cuda")
    d = torch.zeros(G, M, N, dtype=torch.bfloat16, device="cuda")
    deep_gemm.m_grouped_bf16_gemm_nt_masked(a, b, d, masked_m, 64)
    assert rel_l2(d[0], a[0].double() @ b[0].double().T) <= TOL


def test_unsupported_k(rng):
    sm90 = _sm90()
    a = _rand(10, 100, gen=rng)
    b = _rand(2, 64, 100, gen=rng)
    d = torch.empty(10, 64, dtype=torch.bfloat16, device="cuda")
    with pytest.raises(NotSupportedHere):
        sm90.m_grouped_bf16_gemm_nt_contiguous(a, b, d, torch.zeros(10, dtype=torch.int32, device="cuda"))
