"""Hopper k-grouped weight-gradient GEMM (deep_gemm/kernels/sm90_kgrouped.py) against float64."""
import importlib.util
import os
import pathlib
import shutil
import subprocess

import pytest
import torch

from deep_gemm.kernels import NotSupportedHere
from deep_gemm.kernels.sm90_kgrouped import VARIANTS, group_order_by_rows, k_grouped_wgrad
from deep_gemm.testing import rel_l2

# Pipeline variants of the kernel (the `_variant` tuning argument): 0 = the entry point's default,
# then every named one (the lean and staged pipelines). The GPU cases below run each of them on the
# same inputs against one float64 reference (cheaper than one test per variant: the real-shape
# references are large), and report every failing variant by name.
ALL_VARIANTS = [0] + sorted(VARIANTS.values())
VARIANT_NAMES = {0: "default", **{v: k for k, v in VARIANTS.items()}}


def reference_wgrad(a, a_rows, b, b_rows, offsets, out0=None):
    """float64 reference; offsets is a host list."""
    G = len(offsets) - 1
    M, N = a.shape[1], b.shape[1]
    ref = torch.zeros(G, M, N, dtype=torch.float64, device=a.device)
    if out0 is not None:
        ref += out0.double()
    for g in range(G):
        s, e = offsets[g], offsets[g + 1]
        if e == s:
            continue
        r = torch.arange(s, e, device=a.device)
        ia = a_rows[s:e].long() if a_rows is not None else r
        ib = b_rows[s:e].long() if b_rows is not None else r
        ref[g] += a[ia].double().t() @ b[ib].double()
    return ref


def make_case(counts, M, N, *, gather_a, gather_b, extra_rows, gen, src_rows=None):
    """Random operands for the given per-group row counts. A gathered side draws its rows from a
    source of src_rows rows; its index entries past offsets[G] are -1."""
    dev = torch.device("cuda")
    G = len(counts)
    offsets = [0]
    for c in counts:
        offsets.append(offsets[-1] + c)
    R = offsets[-1] + extra_rows
    src_rows = src_rows or max(R // 4, 1)

    def side(gather, cols):
        if gather:
            rows = torch.randint(0, src_rows, (R,), generator=gen, dtype=torch.int32)
            rows[offsets[-1]:] = -1
            t = torch.randn(src_rows, cols, generator=gen).to(torch.bfloat16)
            return t.to(dev), rows.to(dev)
        return torch.randn(R, cols, generator=gen).to(torch.bfloat16).to(dev), None

    a, a_rows = side(gather_a, M)
    b, b_rows = side(gather_b, N)
    off = torch.tensor(offsets, dtype=torch.int32, device=dev)
    return a, a_rows, b, b_rows, off, offsets


def check_variants(run, ref, *, variants=ALL_VARIANTS, out0=None, empty_groups=(), tol=1e-2):
    """run(variant) -> out for each variant; every output must be finite (outputs start NaN
    unless accumulating), within tol of ref, and exact on empty groups (zero, or out0 when
    accumulating). Fails listing every failing variant."""
    bad = []
    for v in variants:
        out = run(v)
        torch.cuda.synchronize()
        name = VARIANT_NAMES[v]
        if not torch.isfinite(out).all():
            bad.append(f"{name}: unwritten (NaN) or non-finite outputs")
            continue
        err = rel_l2(out, ref)
        if not err <= tol:
            bad.append(f"{name}: relative L2 error {err:.3e}")
        for g in empty_groups:
            want = out0[g] if out0 is not None else torch.zeros_like(out[g])
            if not torch.equal(out[g], want):
                bad.append(f"{name}: group {g} (empty) was modified")
        del out
    assert not bad, "; ".join(bad)


def run_and_check(counts, M, N, gen, *, gather_a=True, gather_b=False, extra_rows=0,
                  accumulate=False, max_ctas=0, block_n=0, debug=0, variants=ALL_VARIANTS, tol=1e-2,
                  out_dtype=torch.float32):
    a, a_rows, b, b_rows, off, offsets = make_case(counts, M, N, gather_a=gather_a,
                                                   gather_b=gather_b, extra_rows=extra_rows, gen=gen)
    G = len(counts)
    out0 = torch.randn(G, M, N, generator=gen).cuda() if accumulate else None
    ref = reference_wgrad(a, a_rows, b, b_rows, offsets, out0)

    def run(v):
        out = out0.clone() if accumulate else torch.full((G, M, N), float("nan"), device="cuda", dtype=out_dtype)
        k_grouped_wgrad(a, a_rows, b, b_rows, off, out, accumulate=accumulate, _max_ctas=max_ctas,
                        _block_n=block_n, _debug=debug, _variant=v)
        return out.float()

    check_variants(run, ref, variants=variants, out0=out0,
                   empty_groups=[g for g, c in enumerate(counts) if c == 0], tol=tol)


def routed_rows(T, K, E, gen, skew=False):
    """Token index of each sorted (token, slot) pair and per-expert counts, like the MoE backward."""
    if skew:
        idx = torch.randint(0, E, (T, K), generator=gen)
        idx[torch.rand(T, K, generator=gen) < 0.7] = 0
    else:
        idx = torch.argsort(torch.rand(T, E, generator=gen), dim=1)[:, :K]
    flat = idx.reshape(-1)
    order = torch.argsort(flat, stable=True)
    tokens = (order // K).to(torch.int32)
    counts = torch.bincount(flat, minlength=E).tolist()
    return tokens, counts


# ---- argument checks (CPU: no GPU needed) ---------------------------------------------------

def _cpu_args():
    a = torch.zeros(8, 128, dtype=torch.bfloat16)
    b = torch.zeros(8, 128, dtype=torch.bfloat16)
    off = torch.tensor([0, 4, 8], dtype=torch.int32)
    out = torch.zeros(2, 128, 128)
    return a, None, b, None, off, out


@pytest.mark.parametrize("field,value,exc,match", [
    (0, torch.zeros(8, 128), TypeError, "a must have dtype bfloat16"),
    (2, torch.zeros(8, 128, dtype=torch.bfloat16).t(), ValueError, "b must"),
    (1, torch.zeros(5, dtype=torch.int32), ValueError, "a_rows"),
    (3, torch.zeros(8, dtype=torch.int64), TypeError, "b_rows must have dtype int32"),
    (4, torch.tensor([0, 4, 8]), TypeError, "offsets must have dtype int32"),
    (5, torch.zeros(2, 128, 256), ValueError, "out must have shape"),
    (5, torch.zeros(2, 128, 128, dtype=torch.float16), TypeError, "out must have dtype float32 or bfloat16"),
    (5, torch.zeros(2, 128, 128).transpose(1, 2), ValueError, "out must be contiguous"),
])
def test_argument_errors(field, value, exc, match):
    args = list(_cpu_args())
    args[field] = value
    with pytest.raises(exc, match=match):
        k_grouped_wgrad(*args)


def test_bf16_out_cannot_accumulate():
    args = list(_cpu_args())
    args[5] = torch.zeros(2, 128, 128, dtype=torch.bfloat16)
    with pytest.raises(ValueError, match="accumulate=True needs a float32 out"):
        k_grouped_wgrad(*args, accumulate=True)


def test_unknown_variant_rejected():
    with pytest.raises(ValueError, match="_variant"):
        k_grouped_wgrad(*_cpu_args(), _variant=max(VARIANTS.values()) + 1)


@pytest.mark.parametrize("order,exc,match", [
    (torch.tensor([1, 0]), TypeError, "_group_order must have dtype int32"),
    (torch.tensor([0, 1, 2], dtype=torch.int32), ValueError, "_group_order must have one entry a group"),
    (torch.tensor([[0, 1]], dtype=torch.int32), ValueError, "_group_order must"),
    (torch.tensor([1, 9, 0, 9], dtype=torch.int32)[::2], ValueError, "_group_order must be contiguous"),
])
def test_group_order_errors(order, exc, match):
    with pytest.raises(exc, match=match):
        k_grouped_wgrad(*_cpu_args(), _group_order=order)


def test_walk_switch(monkeypatch):
    from deep_gemm.kernels.sm90_kgrouped import balanced_walk
    monkeypatch.delenv("PK_SM90_WGRAD_WALK", raising=False)
    assert balanced_walk() is False
    monkeypatch.setenv("PK_SM90_WGRAD_WALK", " Balanced ")
    assert balanced_walk() is True
    monkeypatch.setenv("PK_SM90_WGRAD_WALK", "zigzag")
    with pytest.raises(ValueError, match="PK_SM90_WGRAD_WALK must be 'balanced' or 'plain'"):
        balanced_walk()


_ROOT = pathlib.Path(__file__).resolve().parents[1]
_WALK_MAIN = r"""
#include <cstdio>
#include "kgrouped_walk.cuh"
int main() {  // per (clusters, units): the cluster that takes each unit, -1 if none
  for (int step = 1; step <= 13; ++step)
    for (int n = 0; n <= 5 * step + 3; ++n) {
      std::printf("%d %d", step, n);
      for (int u = 0; u < n; ++u) {
        int who = -1;
        for (int c = 0; c < step; ++c)
          for (int slot = c; slot < n; slot += step)
            if (pk::sm90::kgrouped::balanced_unit(slot, c, step, n) == u) who = who == -1 ? c : -2;
        std::printf(" %d", who);
      }
      std::printf("\n");
    }
}
"""


def _walk_model():
    spec = importlib.util.spec_from_file_location("wgrad_walk_model", _ROOT / "benchmarks/wgrad_walk_model.py")
    model = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(model)
    return model


def test_walk_model():
    model = _walk_model().busiest_over_mean
    assert model([1.0] * 12, list(range(12)), 4, False) == 1.0
    # costs by descending size dealt in rounds of 2: plain gives pair 0 the two big ones, the zigzag evens them
    cost = [4.0, 3.0, 2.0, 1.0]
    assert model(cost, [0, 1, 2, 3], 2, False) == 6.0 / 5.0
    assert model(cost, [0, 1, 2, 3], 2, True) == 1.0
    # a partial last round goes forwards: units 0..4 over 2 pairs, round 2 (unit 4) to pair 0
    assert model([1.0, 1.0, 1.0, 1.0, 2.0], list(range(5)), 2, True) == 4.0 / 3.0


def test_balanced_walk_deals_as_modelled(tmp_path):
    # The kernel's own walk function (csrc/sm90/kgrouped_walk.cuh, built here by the host compiler): each unit is
    # taken by exactly one cluster, the one benchmarks/wgrad_walk_model.py's pair_of names (-1: by none, -2: twice).
    cxx = os.environ.get("CXX") or shutil.which("c++") or shutil.which("g++")
    if not cxx:
        pytest.skip("no host C++ compiler (set CXX)")
    src, exe = tmp_path / "walk.cpp", tmp_path / "walk"
    src.write_text(_WALK_MAIN)
    subprocess.run([cxx, "-std=c++17", "-O1", "-I", str(_ROOT / "deep_gemm/csrc/sm90"), str(src), "-o", str(exe)],
                   check=True)
    model = _walk_model()
    lines = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.splitlines()
    assert len(lines) == sum(5 * s + 4 for s in range(1, 14))
    for line in lines:
        step, n, *who = map(int, line.split())
        assert who == [model.pair_of(u, n, step) for u in range(n)], f"{step} clusters, {n} units"
    # the zigzag is real: with 3 clusters and 6 units, cluster 0 takes units 0 and 5
    assert lines[[tuple(map(int, l.split()[:2])) for l in lines].index((3, 6))].split()[2:] == "0 1 2 2 1 0".split()


def test_group_order_by_rows():
    # descending row count, ties in group order; empty groups last
    off = torch.tensor([0, 5, 5, 12, 17, 18, 18, 25], dtype=torch.int32)  # counts 5 0 7 5 1 0 7
    order = group_order_by_rows(off)
    assert order.dtype == torch.int32
    assert order.tolist() == [2, 6, 0, 3, 4, 1, 5]
    assert group_order_by_rows(torch.tensor([0], dtype=torch.int32)).numel() == 0


def test_cpu_and_odd_shapes_not_supported():
    with pytest.raises(NotSupportedHere):
        k_grouped_wgrad(*_cpu_args())
    a = torch.zeros(8, 96, dtype=torch.bfloat16)
    args = list(_cpu_args())
    args[0], args[5] = a, torch.zeros(2, 96, 128)
    with pytest.raises(NotSupportedHere):
        k_grouped_wgrad(*args)


# ---- GPU ----------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("gather_a,gather_b", [(True, False), (False, True), (True, True), (False, False)])
@pytest.mark.parametrize("M,N", [(128, 128), (256, 384), (384, 256), (128, 512), (256, 256), (512, 256)])
def test_small_shapes(gather_a, gather_b, M, N, rng):
    # empty, single row, not multiples of 64 or 128, exactly 128, one past 256; last chunks that end on,
    # just past and just before a 16-row wgmma step
    counts = [0, 1, 63, 64, 65, 200, 0, 129, 128, 257, 16, 17, 112, 143]
    run_and_check(counts, M, N, rng, gather_a=gather_a, gather_b=gather_b, extra_rows=37)


@pytest.mark.gpu
def test_forced_block_n_128(rng):
    run_and_check([70, 0, 300], 256, 512, rng, gather_a=True, gather_b=True, extra_rows=3,
                  block_n=128)


@pytest.mark.gpu
@pytest.mark.parametrize("M,N,gather_b", [(256, 256, True), (256, 384, True),
                                          (512, 768, False)])  # 28: 128 x 384 tiles, alternating fp32 passes
def test_accumulate(M, N, gather_b, rng):
    run_and_check([5, 0, 300, 77], M, N, rng, gather_a=True, gather_b=gather_b, extra_rows=10,
                  accumulate=True)


@pytest.mark.gpu
@pytest.mark.parametrize("M,N,gather_a,gather_b,debug", [
    (384, 256, True, False, 0), (384, 128, True, False, 0),   # single CTAs (odd m-tile count)
    (512, 256, True, False, 0),                               # cluster pair along M (B by TMA multicast)
    (512, 768, True, False, 0),                               # the same, 128 x 384 tiles in variant 28
    (512, 512, False, True, 0),                               # A by TMA, single CTAs
    (512, 512, False, True, 256),                             # opt-in: pair along N (A multicast)
])
@pytest.mark.parametrize("out_dtype", [torch.float32, torch.bfloat16])
def test_persistent_loop_few_ctas(M, N, gather_a, gather_b, debug, out_dtype, rng):
    # 3 CTAs (2 with a cluster) walk many tiles each: pipeline phases wrap many times, and a bf16 out's deferred
    # last pass (variant 21, and the default where it runs as 21) is written during the next tile's first chunk,
    # past empty groups too; at N 768 the default's 128 x 384 tiles (28) alternate their passes' staging halves.
    counts = torch.randint(0, 300, (16,), generator=rng).tolist()
    counts[3] = 0
    counts[5] = 128
    run_and_check(counts, M, N, rng, gather_a=gather_a, gather_b=gather_b, extra_rows=5, max_ctas=3,
                  debug=debug, out_dtype=out_dtype)


@pytest.mark.gpu
@pytest.mark.parametrize("gather_a,gather_b,debug", [(True, False, 4), (False, True, 256 | 4),
                                                     (False, True, 256), (True, False, 128),
                                                     (False, True, 512)])
@pytest.mark.parametrize("out_dtype", [torch.float32, torch.bfloat16])
def test_tuning_variants(gather_a, gather_b, debug, out_dtype, rng):
    # Tuning switches must stay correct: bit 2 no cluster, bit 8 256 x 128 tiles (A side),
    # bit 7 release stages after wait_group 0, bit 9 128 x 256 cluster pairs sharing A along N.
    run_and_check([70, 0, 300, 64, 1], 512, 512, rng, gather_a=gather_a, gather_b=gather_b,
                  extra_rows=3, debug=debug, variants=[0], out_dtype=out_dtype)


@pytest.mark.gpu
def test_skewed_groups(rng):
    counts = [0] * 16
    counts[0], counts[7], counts[15] = 5000, 3, 1
    run_and_check(counts, 256, 512, rng, gather_a=False, gather_b=True, extra_rows=100)


OUT_KINDS = ["bf16", "fp32", "fp32_accumulate"]
# The entry point's defaults, by out kind, for the MoE's two forms (dW2: a gathered, b identity; dW1: a identity, b
# gathered, run swapped): 28 for bf16 and plain fp32 outs and dW2's fp32 accumulate, 19 (4-CTA clusters) for dW1's.
DEFAULT_PIPELINE = {("dW2", "bf16"): 28, ("dW2", "fp32"): 28, ("dW2", "fp32_accumulate"): 28,
                    ("dW1", "bf16"): 28, ("dW1", "fp32"): 28, ("dW1", "fp32_accumulate"): 19}


@pytest.mark.gpu
@pytest.mark.parametrize("which", ["dW2", "dW1"])
@pytest.mark.parametrize("out_kind", OUT_KINDS)
def test_default_pipelines(which, out_kind, rng):
    # The default is bitwise the pipeline DEFAULT_PIPELINE names (the same kernel and cluster), where the shared
    # side's width allows 28's 128 x 384 tiles (768) and where it does not (512: 28 runs as 21).
    counts = [0, 1, 63, 200, 129, 0, 257, 64]
    for wide in (768, 512):
        M, N = (512, wide) if which == "dW2" else (wide, 512)
        a, a_rows, b, b_rows, off, _ = make_case(counts, M, N, gather_a=which == "dW2", gather_b=which == "dW1",
                                                 extra_rows=9, gen=rng)
        accumulate = out_kind == "fp32_accumulate"
        out0 = torch.randn(len(counts), M, N, generator=rng).cuda() if accumulate else None

        def run(v):
            dt = torch.bfloat16 if out_kind == "bf16" else torch.float32
            out = out0.clone() if accumulate else torch.full((len(counts), M, N), float("nan"), device="cuda",
                                                              dtype=dt)
            k_grouped_wgrad(a, a_rows, b, b_rows, off, out, accumulate=accumulate, _variant=v)
            return out

        got, want = run(0), run(DEFAULT_PIPELINE[which, out_kind])
        assert torch.isfinite(got).all() and torch.equal(got, want), f"{which} {out_kind} at {M} x {N}"


@pytest.mark.gpu
@pytest.mark.parametrize("which", ["dW2", "dW1"])
def test_walk_orders_bitwise(which, rng):
    # A tile's result does not depend on which CTA computes it, so every walk (group order, the balanced order,
    # any permutation; full grids, and grids small enough to leave partial last rounds on both walks) gives the
    # same bits in every pipeline; a tile computed twice or never would show as NaN or a difference.
    counts = [300, 0, 17, 1000, 64, 129, 0, 5, 640, 1, 256, 77]
    M, N = (512, 768) if which == "dW2" else (768, 512)
    a, a_rows, b, b_rows, off, offsets = make_case(counts, M, N, gather_a=which == "dW2", gather_b=which == "dW1",
                                                   extra_rows=13, gen=rng)
    G = len(counts)
    ref = reference_wgrad(a, a_rows, b, b_rows, offsets)
    balanced = group_order_by_rows(off)
    assert balanced[0].item() == 3 and balanced[-2:].tolist() == [1, 6]
    shuffled = torch.randperm(G, generator=rng).to(torch.int32).cuda()
    out0 = torch.randn(G, M, N, generator=rng).cuda()
    bad = []
    for v in ALL_VARIANTS:
        for kind in OUT_KINDS:
            outs = {}
            for order_name, order in (("group", None), ("balanced", balanced), ("shuffled", shuffled)):
                for max_ctas in (0, 6, 10):
                    if kind == "fp32_accumulate":
                        out = out0.clone()
                    else:
                        dt = torch.bfloat16 if kind == "bf16" else torch.float32
                        out = torch.full((G, M, N), float("nan"), device="cuda", dtype=dt)
                    k_grouped_wgrad(a, a_rows, b, b_rows, off, out, accumulate=kind == "fp32_accumulate",
                                    _variant=v, _max_ctas=max_ctas, _group_order=order)
                    outs[order_name, max_ctas] = out
            base = outs["group", 0]
            name = f"{VARIANT_NAMES[v]} {kind}"
            want = ref + out0.double() if kind == "fp32_accumulate" else ref
            if not torch.isfinite(base).all() or not rel_l2(base.float(), want) <= 1e-2:
                bad.append(f"{name}: group order, full grid: wrong")
            bad += [f"{name}: {k} differs" for k, o in outs.items() if not torch.equal(o, base)]
    assert not bad, "; ".join(bad)


@pytest.mark.gpu
@pytest.mark.parametrize("shape", ["30B", "235B"])
@pytest.mark.parametrize("which", ["dW2", "dW1"])
@pytest.mark.parametrize("skew", [False, True])
def test_moe_shapes(shape, which, skew, rng):
    """The two MoE uses at the real H/I, with T = 1024 tokens (top-8, 128 experts)."""
    H, I = (2048, 768) if shape == "30B" else (4096, 1536)
    T, K, E = 1024, 8, 128
    tokens, counts = routed_rows(T, K, E, rng, skew=skew)
    dev = torch.device("cuda")
    R = T * K
    offsets = [0]
    for c in counts:
        offsets.append(offsets[-1] + c)
    off = torch.tensor(offsets, dtype=torch.int32, device=dev)
    tok = tokens.to(dev)
    if which == "dW2":  # a = dy [T, H] gathered by token, b = hw [T*K, I] sorted
        a = torch.randn(T, H, generator=rng).to(torch.bfloat16).to(dev)
        b = torch.randn(R, I, generator=rng).to(torch.bfloat16).to(dev)
        a_rows, b_rows, M, N = tok, None, H, I
    else:  # a = dz [T*K, 2I] sorted, b = x [T, H] gathered by token
        a = torch.randn(R, 2 * I, generator=rng).to(torch.bfloat16).to(dev)
        b = torch.randn(T, H, generator=rng).to(torch.bfloat16).to(dev)
        a_rows, b_rows, M, N = None, tok, 2 * I, H
    ref = reference_wgrad(a, a_rows, b, b_rows, offsets)

    def run(v):
        out = torch.full((E, M, N), float("nan"), device=dev)
        k_grouped_wgrad(a, a_rows, b, b_rows, off, out, _variant=v)
        return out

    check_variants(run, ref, empty_groups=[g for g, c in enumerate(counts) if c == 0])


# debug bit 10: keep the caller's orientation where an out with A identity and B gathered (dW1) would otherwise run
# with the operands swapped and the tile written transposed (the default there: bf16, fp32 and fp32 accumulate).
NO_SWAP = 1024
# In that swapped form the identity side is shared by 4-CTA clusters for an fp32 accumulate (where the gathered side's
# 128-wide tiles come in fours), else by pairs; debug bit 11 forces 4-CTA clusters (where the tiles allow), bit 12
# pairs.
CLUSTER4 = 2048
PAIRS = 4096


@pytest.mark.gpu
@pytest.mark.parametrize("shape", ["30B", "235B"])
@pytest.mark.parametrize("skew", [False, True])
@pytest.mark.parametrize("out_kind", OUT_KINDS)
def test_dw1_swapped_operands(shape, skew, out_kind, rng):
    """dW1 as the MoE backward runs it (a = dz sorted, b = x gathered by token): the default computes out^T with
    the operands swapped and stores (or reduce-adds) the tiles transposed. It, the same with 4-CTA clusters and with
    pairs sharing dz, and the caller's orientation against float64; empty experts exactly zero (or untouched,
    accumulating); each within one bf16 rounding (bf16) or fp32 reordering (fp32) of the caller's orientation."""
    H, I = (2048, 768) if shape == "30B" else (4096, 1536)
    T, K, E = 1024, 8, 128
    tokens, counts = routed_rows(T, K, E, rng, skew=skew)
    dev = torch.device("cuda")
    offsets = [0]
    for c in counts:
        offsets.append(offsets[-1] + c)
    off = torch.tensor(offsets, dtype=torch.int32, device=dev)
    tok = tokens.to(dev)
    a = torch.randn(T * K, 2 * I, generator=rng).to(torch.bfloat16).to(dev)
    b = torch.randn(T, H, generator=rng).to(torch.bfloat16).to(dev)
    accumulate = out_kind == "fp32_accumulate"
    out0 = torch.randn(E, 2 * I, H, generator=rng).to(dev) if accumulate else None
    ref = reference_wgrad(a, None, b, tok, offsets, out0)
    # one output held at a time besides the caller's orientation (the first): at 235B each is 6.4 GB in fp32
    forms = (("caller's orientation", NO_SWAP, 0), ("swapped", 0, 0), ("swapped, 4-CTA clusters", CLUSTER4, 0),
             ("swapped, pairs", PAIRS, 0), ("swapped, 128 x 384 tiles", 0, VARIANTS["wide_bk64"]))
    rel = 2.0**-7 if out_kind == "bf16" else 1e-5
    y = None
    for name, debug, variant in forms:
        if accumulate:
            out = out0.clone()
        else:
            dt = torch.bfloat16 if out_kind == "bf16" else torch.float32
            out = torch.full((E, 2 * I, H), float("nan"), device=dev, dtype=dt)
        k_grouped_wgrad(a, None, b, tok, off, out, accumulate=accumulate, _debug=debug, _variant=variant)
        torch.cuda.synchronize()
        assert torch.isfinite(out).all(), name
        assert rel_l2(out, ref) <= 1e-2, name
        for g, c in enumerate(counts):
            if c == 0:
                assert torch.equal(out[g], out0[g]) if accumulate else not out[g].any(), f"{name}: empty expert {g}"
        if y is None:
            y, y_max = out, out.abs().max().float()
            continue
        for g in range(E):  # expert by expert: no whole-size temporaries
            x, yg = out[g].float(), y[g].float()
            assert bool(((x - yg).abs() <= yg.abs() * rel + y_max * 1e-5).all()), f"{name}: expert {g}"
        del out


@pytest.mark.gpu
@pytest.mark.parametrize("max_ctas", [0, 3])
@pytest.mark.parametrize("out_kind", OUT_KINDS)
@pytest.mark.parametrize("cluster", [2, 4])
def test_swapped_operands_odd_groups(max_ctas, out_kind, cluster, rng):
    # The swapped, transposed path at small shapes: empty groups, single rows, partial chunks, index entries of -1
    # past the last group; max_ctas 3 (one cluster) walks many tiles, the held last pass crossing empty groups.
    # Pipelines 19, 21 and 28 swap (0: 28 for bf16 and plain fp32, 19 for an fp32 accumulate). Cluster 4 (debug
    # bit 11) where N / 128 is a multiple of 4 (N 512, 1024), else pairs (N 256, 768); cluster 2: pairs (debug bit
    # 12) everywhere. 28 takes 128 x 384 tiles, always in pairs, where M is a multiple of 384 (768), elsewhere it
    # runs as 21.
    counts = [0, 1, 63, 64, 65, 200, 0, 129, 128, 257, 16, 17, 112, 143, 0]
    for M, N in ((256, 256), (512, 768), (768, 512), (256, 1024)):
        run_and_check(counts, M, N, rng, gather_a=False, gather_b=True, extra_rows=37, max_ctas=max_ctas,
                      debug=CLUSTER4 if cluster == 4 else PAIRS,
                      variants=[0, 19, 21, 28], accumulate=out_kind == "fp32_accumulate",
                      out_dtype=torch.bfloat16 if out_kind == "bf16" else torch.float32)


@pytest.mark.gpu
@pytest.mark.parametrize("variant", ALL_VARIANTS, ids=[VARIANT_NAMES[v] for v in ALL_VARIANTS])
def test_graph_capture_no_host_sync(variant, rng):
    """offsets is only read on the device: capture once, change the routing, replay."""
    M, N, G = 256, 256, 6
    counts = [100, 0, 64, 1, 300, 7]
    a, a_rows, b, b_rows, off, offsets = make_case(counts, M, N, gather_a=True, gather_b=True,
                                                   extra_rows=50, gen=rng)
    out = torch.full((G, M, N), float("nan"), device="cuda")
    k_grouped_wgrad(a, a_rows, b, b_rows, off, out, _variant=variant)  # warm-up outside the capture
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        k_grouped_wgrad(a, a_rows, b, b_rows, off, out, _variant=variant)
    new_counts = [0, 250, 10, 0, 200, 62]
    new_offsets = [0]
    for c in new_counts:
        new_offsets.append(new_offsets[-1] + c)
    off.copy_(torch.tensor(new_offsets, dtype=torch.int32))
    a_rows.copy_(torch.randint(0, a.shape[0], a_rows.shape, generator=rng, dtype=torch.int32))
    b_rows.copy_(torch.randint(0, b.shape[0], b_rows.shape, generator=rng, dtype=torch.int32))
    out.fill_(float("nan"))
    g.replay()
    torch.cuda.synchronize()
    ref = reference_wgrad(a, a_rows, b, b_rows, new_offsets)
    assert torch.isfinite(out).all()
    assert rel_l2(out, ref) <= 1e-2


@pytest.mark.gpu
@pytest.mark.parametrize("walk", ["plain", "balanced"])
@pytest.mark.parametrize("mode", ["ks_cpu", "sizes_tensor", "psum", "c_other", "c_is_d", "d_offset",
                                  "d_offset_c_is_d"])
def test_public_k_grouped_bf16_gemm_tn_contiguous(mode, walk, rng, monkeypatch):
    """d_offset*: d is a view at storage offset 1 (only 4-byte aligned): the wrapper goes through an
    aligned copy (the kernel refuses such an out). walk: PK_SM90_WGRAD_WALK."""
    monkeypatch.setenv("PK_SM90_WGRAD_WALK", walk)
    import deep_gemm.gemm as dg
    from deep_gemm.kernels.sm90_kgrouped import k_grouped_bf16_gemm_tn_contiguous as native
    ks = [0, 100, 64, 1, 250, 0, 129]
    G, M, N = len(ks), 256, 384
    S = sum(ks)
    dev = torch.device("cuda")
    a = torch.randn(S, M, generator=rng).to(torch.bfloat16).to(dev)
    b = torch.randn(S, N, generator=rng).to(torch.bfloat16).to(dev)
    sizes = torch.tensor(ks, dtype=torch.int32, device=dev)
    ends = torch.cumsum(sizes, 0, dtype=torch.int32)
    d = torch.full((G, M, N), float("nan"), device=dev)
    c = None
    if mode == "c_other":
        c = torch.randn(G, M, N, generator=rng).to(dev)
    if mode.startswith("d_offset"):
        d = torch.full((G * M * N + 1,), float("nan"), device=dev)[1:].view(G, M, N)
    if mode.endswith("c_is_d"):
        d.copy_(torch.randn(G, M, N, generator=rng).to(dev))
        c = d
    c_ref = None if c is None else c.clone().double()
    d_ref = torch.zeros(G, M, N, dtype=torch.float64, device=dev)
    if mode == "psum":
        old = dg.get_mk_alignment_for_contiguous_layout()
        dg.set_mk_alignment_for_contiguous_layout(1)
        try:
            native(a, b, d, None, ends, c, use_psum_layout=True)
        finally:
            dg.set_mk_alignment_for_contiguous_layout(old)
    else:
        native(a, b, d, ks if mode != "sizes_tensor" else None, sizes, c)
    # float64 reference
    s = 0
    for g, k in enumerate(ks):
        base = c_ref[g] if c_ref is not None else 0
        d_ref[g] = base + (a[s:s + k].double().t() @ b[s:s + k].double() if k else 0)
        s += k
    assert torch.isfinite(d).all()
    assert rel_l2(d, d_ref) <= 1e-2


@pytest.mark.gpu
@pytest.mark.parametrize("gather_a,gather_b", [(True, False), (False, True)])
# 128- and 256-wide tiles (512 with B identity: 2-CTA clusters; 768 there: 128 x 384 tiles in variant 28)
@pytest.mark.parametrize("N", [384, 512, 768])
def test_bf16_out(gather_a, gather_b, N, rng):
    """A bf16 out gets the bf16 rounding of what the fp32 out gets (bitwise for one pipeline; the two
    outs' defaults are different pipelines, so there within one bf16 rounding), empty groups zero,
    for every pipeline variant."""
    counts = [0, 1, 63, 300, 129, 0]
    M = 256
    a, a_rows, b, b_rows, off, offsets = make_case(counts, M, N, gather_a=gather_a, gather_b=gather_b,
                                                   extra_rows=5, gen=rng)
    ref = reference_wgrad(a, a_rows, b, b_rows, offsets)
    bad = []
    for v in ALL_VARIANTS:
        # against the same variant's fp32 out (a pipeline with another chunk size would start each
        # tile's rotation elsewhere and differ from the others in the last bits)
        out32 = torch.full((len(counts), M, N), float("nan"), device="cuda")
        k_grouped_wgrad(a, a_rows, b, b_rows, off, out32, _variant=v)
        out16 = torch.full((len(counts), M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
        k_grouped_wgrad(a, a_rows, b, b_rows, off, out16, _variant=v)
        torch.cuda.synchronize()
        # A identity, B gathered, a TMA-store pipeline: the bf16 out runs with the operands swapped (other tiles, so
        # each tile's chunks in another order)
        swapped = not gather_a and N % 256 == 0 and VARIANT_NAMES[v] in ("default", "staged_tma", "split_bk128",
                                                                         "split_bk128_defer_tail", "wide_bk64")
        if v == 0 or swapped:  # the two outs' defaults may be different pipelines (another summation order)
            bound = out32.abs() * 2.0**-8 + out32.abs().max() * 1e-5
            same = bool(((out16.float() - out32).abs() <= bound).all())
        else:
            same = torch.equal(out16, out32.to(torch.bfloat16))
        ok = (bool(torch.isfinite(out16).all()) and rel_l2(out16.float(), ref) <= 1e-2
              and same and not out16[0].any() and not out16[5].any())
        if not ok:
            bad.append(VARIANT_NAMES[v])
    assert not bad, f"bf16 out wrong for variants {bad}"


def test_out_not_16_byte_aligned_rejected():
    """An out whose base is only 4-byte aligned (a view at storage offset 1) is refused before any
    launch: the kernel stores 8- and 16-byte vectors and by TMA (before session 5's check, variant 8
    wrote misaligned float2 stores: compute-sanitizer memcheck, results/session5/run11)."""
    args = list(_cpu_args())
    store = torch.zeros(2 * 128 * 128 + 1)
    args[5] = store[1:].view(2, 128, 128)
    with pytest.raises(ValueError, match="out must be 16-byte aligned"):
        k_grouped_wgrad(*args)
