"""MoE routing metadata: reference semantics (CPU) and the GPU kernel against it."""
import pytest
import torch

import deep_gemm
from deep_gemm import reference


def make_topk_idx(T, K, E, mode, gen, dtype=torch.int64):
    if mode == "uniform":
        idx = torch.stack([torch.randperm(E, generator=gen)[:K] for _ in range(T)]) if T else torch.empty(0, K)
    elif mode == "skewed":  # most pairs to expert 0, the rest random
        idx = torch.randint(0, E, (T, K), generator=gen)
        idx[torch.rand(T, K, generator=gen) < 0.8] = 0
    elif mode == "empty_experts":  # only the first quarter of experts used
        idx = torch.randint(0, max(E // 4, 1), (T, K), generator=gen)
    elif mode == "masked":
        idx = torch.randint(0, E, (T, K), generator=gen)
        idx[torch.rand(T, K, generator=gen) < 0.3] = -1
    else:
        raise ValueError(mode)
    return idx.to(dtype).reshape(T, K)


def brute_force(topk_idx, E):
    flat = topk_idx.reshape(-1).tolist()
    pairs = sorted((e, p) for p, e in enumerate(flat) if 0 <= e < E)
    counts = [sum(1 for e, _ in pairs if e == x) for x in range(E)]
    offsets = [0]
    for c in counts:
        offsets.append(offsets[-1] + c)
    sorted_pair = [p for _, p in pairs] + [-1] * (len(flat) - len(pairs))
    pair_to_sorted = [-1] * len(flat)
    for pos, (_, p) in enumerate(pairs):
        pair_to_sorted[p] = pos
    return counts, offsets, sorted_pair, pair_to_sorted


CASES = [(37, 8, 16, "uniform"), (257, 4, 8, "skewed"), (100, 2, 32, "empty_experts"),
         (513, 6, 64, "masked"), (0, 8, 16, "masked"), (1, 1, 4, "uniform"), (1000, 8, 128, "uniform")]


@pytest.mark.parametrize("T,K,E,mode", CASES)
@pytest.mark.parametrize("dtype", [torch.int64, torch.int32])
def test_reference_matches_brute_force(T, K, E, mode, dtype, rng):
    idx = make_topk_idx(T, K, E, mode, rng, dtype)
    got = reference.moe_routing(idx, E)
    for g, w in zip(got, brute_force(idx, E)):
        assert g.dtype == torch.int32
        assert g.tolist() == w


def test_public_entry_on_cpu_uses_reference(rng):
    idx = make_topk_idx(50, 4, 8, "masked", rng)
    r = deep_gemm.moe_routing(idx, 8)
    assert isinstance(r, deep_gemm.MoERouting)
    for g, w in zip(r, reference.moe_routing(idx, 8)):
        assert torch.equal(g, w)


@pytest.mark.parametrize("bad,match", [
    (lambda: deep_gemm.moe_routing(torch.zeros(4, 2), 8), "topk_idx must have dtype int64 or int32"),
    (lambda: deep_gemm.moe_routing(torch.zeros(8, dtype=torch.int64), 8), "topk_idx must be 2-D"),
    (lambda: deep_gemm.moe_routing(torch.full((2, 2), 8), 8), r"topk_idx must hold expert indices in \[-1, 8\)"),
    (lambda: deep_gemm.moe_routing(torch.full((2, 2), -2), 8), "found -2"),
    (lambda: deep_gemm.moe_routing(torch.zeros(4, 4, dtype=torch.int64)[:, ::2], 8), "topk_idx must be contiguous"),
    (lambda: deep_gemm.moe_routing(torch.zeros(4, 2, dtype=torch.int64), 0), "num_experts must be a positive int"),
])
def test_errors(bad, match):
    with pytest.raises((TypeError, ValueError), match=match):
        bad()


def test_opcheck(rng):
    idx = make_topk_idx(33, 4, 8, "masked", rng)
    torch.library.opcheck(torch.ops.prime_kernels.moe_routing.default, (idx, 8))


@pytest.mark.gpu
@pytest.mark.parametrize("T,K,E,mode", CASES + [(16384, 8, 128, "uniform"), (4099, 8, 256, "masked"),
                                                (3000, 8, 4096, "skewed"), (20000, 4, 600, "uniform"),
                                                (70000, 2, 1, "masked"),
                                                # more chunks than resident warps and more experts than
                                                # blocks: every phase of the one launch loops
                                                (40000, 8, 8192, "masked")])
@pytest.mark.parametrize("dtype", [torch.int64, torch.int32])
def test_gpu_kernel_matches_reference(T, K, E, mode, dtype, rng):
    idx = make_topk_idx(T, K, E, mode, rng, dtype).cuda()
    got = deep_gemm.moe_routing(idx, E)
    want = reference.moe_routing(idx.cpu(), E)
    for g, w in zip(got, want):
        assert g.is_cuda
        assert torch.equal(g.cpu(), w)


@pytest.mark.gpu
def test_gpu_kernel_no_host_sync_graph_capture(rng):
    """The kernel path captures into a CUDA graph and replays with new routing."""
    T, K, E = 2048, 8, 64
    idx = make_topk_idx(T, K, E, "masked", rng).cuda()
    deep_gemm.moe_routing(idx, E, validate=False)  # warm-up outside capture
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        out = deep_gemm.moe_routing(idx, E)
    for _ in range(3):
        idx.copy_(make_topk_idx(T, K, E, "skewed", rng).cuda())
        g.replay()
        for got, want in zip(out, reference.moe_routing(idx.cpu(), E)):
            assert torch.equal(got.cpu(), want)
