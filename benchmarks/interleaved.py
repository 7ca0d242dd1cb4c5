"""A/B timing of kernel variants, interleaved, for a GPU whose clock drifts (an H200 at its 700 W
power cap): each round times every variant once (median of --reps), each round in a fresh random order
(--seed), rounds repeat --rounds times, and the table gives each variant's median over rounds.

    PYTHONPATH=. PK_LIBRARY_PATH=build/sm90 python3 benchmarks/interleaved.py [--shapes 30b,235b]

Variants: GEMM 1 + SwiGLU cooperative and staged 128x192 (4 stages); ping-pong 128x192 staged per warp
(GEMM 2, dX);
GEMM 2 and dX (cooperative 128x256) with their contiguous A rows loaded by TMA or by
cp.async, and as ping-pong 128x128 and staged-epilogue cooperative with A by TMA; dH (dy . W2 +
SwiGLU backward) as cooperative 128x128 (1), ping-pong (2), cooperative 128x256 (3) and 128x256 with
the epilogue in three (4) or two (5) warps of the producer warpgroup, or with a fourth warpgroup of epilogue
warps (10: the default since session 15); "wait0": the consumers release each
stage after wgmma.wait_group 0 (variant + 32); the k-grouped
weight gradients written as fp32 or bf16 (default pipeline, and each pipeline variant from 8 on); the whole
layer (forward + backward) with the defaults and with session 10's starting defaults.
"""
from __future__ import annotations

import argparse
import ctypes
import os
import random
import re
import statistics
import sys

import torch

import deep_gemm
from deep_gemm._backend import ptr, stream_of
from deep_gemm.kernels import sm90
from deep_gemm.kernels.sm90_kgrouped import VARIANTS, k_grouped_wgrad
from deep_gemm.testing import cuda_time_ms

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_moe import SHAPES, balanced_products, layer_inputs  # noqa: E402
from timeline_moe import clocks  # noqa: E402


def ceilings(xg, dyg, w13, w2, dz, hw, o, off, T, K, H, I, f):
    """What each kernel's product costs without the MoE parts (no gather, no grouping, no fused epilogue):
    torch.mm (cuBLAS) on pre-gathered copies with one expert's weight (M = T*K rows; the weight
    gradients as one product over all rows), and torch._grouped_mm on the same copies with the layer's
    groups. Their sum is the layer an unfused, gather-free design could reach on this card.
    xg, dyg: x and dy gathered into sorted order."""
    ends = off[1:].contiguous()
    mm = {"GEMM 1": (lambda: torch.mm(xg, w13[0].t()), 2 * f), "GEMM 2": (lambda: torch.mm(hw, w2[0].t()), f),
          "dH": (lambda: torch.mm(dyg, w2[0]), f), "dX": (lambda: torch.mm(dz, w13[0]), 2 * f),
          "dW2": (lambda: torch.mm(hw.t(), dyg), f), "dW1": (lambda: torch.mm(dz.t(), xg), 2 * f)}
    gmm = {"GEMM 1": (lambda: torch._grouped_mm(xg, w13.transpose(1, 2), offs=ends), 2 * f),
           "GEMM 2": (lambda: torch._grouped_mm(hw, w2.transpose(1, 2), offs=ends), f),
           "dH": (lambda: torch._grouped_mm(dyg, w2, offs=ends), f),
           "dX": (lambda: torch._grouped_mm(dz, w13, offs=ends), 2 * f),
           "dW2": (lambda: torch._grouped_mm(hw.t(), dyg, offs=ends), f),
           "dW1": (lambda: torch._grouped_mm(dz.t(), xg, offs=ends), 2 * f)}
    # the same products as batched GEMMs over E equal groups of T*K/E rows (every weight read, no group
    # boundary inside a tile: what a grouped GEMM would cost if routing were perfectly balanced)
    E = w13.shape[0]
    bmm = {k: (fn, u * f) for k, (fn, u) in balanced_products(xg, dyg, hw, dz, w13, w2).items()} \
        if (T * K) % E == 0 else {}
    # the combine's bytes (T*K rows read, T rows written) as one contiguous reduction
    combine = (lambda: o.view(T, K, H).sum(1), 1)
    a = torch.randn(8192, 8192, device=xg.device).to(torch.bfloat16)
    return {**{f"ceiling {k}: torch.mm, pre-gathered": v for k, v in mm.items()},
            **{f"ceiling {k}: torch._grouped_mm, pre-gathered": v for k, v in gmm.items()},
            **{f"ceiling {k}: torch.bmm, balanced groups": v for k, v in bmm.items()},
            "ceiling combine: contiguous sum over K": combine,
            "ceiling dense 8192^3": (lambda: torch.mm(a, a), 2 * 8192 ** 3)}


def balanced_idx(T, E, K, dev):
    """Top-K indices giving every expert exactly T*K/E pairs (T a multiple of E, K <= E / gcd): token t
    goes to experts (t + j * E / K) mod E, j < K, shuffled across tokens."""
    t = torch.randperm(T, device=dev)
    j = torch.arange(K, device=dev) * (E // K)
    return (t[:, None] + j[None, :]) % E


def gather_patterns(x, xg, off, n, T, H, I, gemm1_product, f):
    """GEMM 1's product through the ping-pong 128 x 192 kernel (variant 4) gathering A with row lists of
    chosen patterns (K = 1, row = list[p]): what about the real gather's rows (random tokens, sorted within
    an expert, 64 / 128 MiB of x) costs over pre-gathered rows. Each list keeps the real group layout."""
    dev = x.device
    g = torch.searchsorted(off[1:].long(), torch.arange(n, device=dev), right=True)  # group of sorted row p
    local = torch.arange(n, device=dev) - off.long()[g]
    tile = g * 4096 + local // 128  # a global id of p's 128-row tile (increasing with p)
    gen = torch.Generator(device=dev).manual_seed(1234)

    def sorted_within(key, vals):  # vals sorted within each equal-key run (keys nondecreasing with p)
        return (key * (1 << 32) + vals).sort().values - key * (1 << 32)

    def rand(hi):
        return torch.randint(0, hi, (n,), device=dev, generator=gen)
    rpw = (2 << 20) // (2 * H)  # rows of x in one 2 MiB window
    seq = torch.unique_consecutive(tile, return_inverse=True)[1]  # 0, 1, ... over the tiles
    win = torch.randint(0, T // rpw, (int(seq[-1]) + 1,), device=dev, generator=gen)[seq]
    small = (8 << 20) // (2 * H)  # rows of x in 8 MiB
    lists = {  # name: (A, row list)
        "pre-gathered x, identity list": (xg, torch.arange(n, device=dev)),
        "x, consecutive rows (p mod T)": (x, torch.arange(n, device=dev) % T),
        "x, random rows sorted within a group (control: the real pattern)": (x, sorted_within(g, rand(T))),
        "x, random rows, unsorted": (x, rand(T)),
        "x, random rows of one 2 MiB window a tile, sorted": (x, win * rpw + sorted_within(tile, rand(rpw))),
        "x's first 8 MiB, random rows sorted within a group": (x, sorted_within(g, rand(small))),
        "pre-gathered x, random rows of all T*K sorted within a group": (xg, sorted_within(g, rand(n))),
    }
    return {f"GEMM 1 product, ping-pong 128x192, gather pattern: {k}": (
        gemm1_product(a, rows.to(torch.int32).contiguous(), 1, 4), 2 * f) for k, (a, rows) in lists.items()}


def variants(shape, T, E, K, routing="uniform"):
    H, I = SHAPES[shape]
    x, w13, w2, idx, w, dy = layer_inputs(shape, T, E, K)
    if routing == "balanced":
        idx = balanced_idx(T, E, K, x.device)
    r = deep_gemm.moe_routing(idx, E, validate=False)
    _, off, sp, _ = r
    y, z = sm90.moe_forward(x, idx, w, w13, w2, r, None, "bf16")
    n, dev = T * K, x.device
    lib = sm90._lib(dev, "pk_sm90_moe_dh_swiglu_bwd")
    dz = torch.empty(n, 2 * I, dtype=torch.bfloat16, device=dev)
    hw = torch.empty(n, I, dtype=torch.bfloat16, device=dev)
    part = torch.empty(n, I // 128, device=dev)
    tw = w.float().contiguous()
    s = stream_of(dev)

    def dh(v):
        return lambda: lib.call("pk_sm90_moe_dh_swiglu_bwd", ptr(dy), ctypes.c_int64(T), ctypes.c_int(H),
                                ctypes.c_int(K), ptr(sp), ptr(off), ctypes.c_int(E), ptr(w2), ctypes.c_int(I),
                                ptr(z), ptr(tw), ptr(dz), ptr(hw), ptr(part), ctypes.c_float(0.0),
                                ctypes.c_int(v), s)
    dh(1)()
    tok = torch.div(sp, K, rounding_mode="floor").to(torch.int32)
    xg, dyg = x.index_select(0, tok.long()), dy.index_select(0, tok.long())  # the gathered rows as copies
    outs = {dt: (torch.empty(E, H, I, device=dev, dtype=dt), torch.empty(E, 2 * I, H, device=dev, dtype=dt))
            for dt in (torch.float32, torch.bfloat16)}

    def wgrad(dt, which, variant=0, debug=0, accumulate=False, use_tma=True, block_n=0):
        o2, o13 = outs[dt]
        kw = dict(_variant=variant, _debug=debug, accumulate=accumulate, _use_tma=use_tma, _block_n=block_n)
        if which == "dW2":
            return lambda: k_grouped_wgrad(dy, tok, hw, None, off, o2, **kw)
        return lambda: k_grouped_wgrad(dz, None, x, tok, off, o13, **kw)
    o = torch.randn(n, H, device=dev).to(torch.bfloat16)
    h = torch.empty(n, I, dtype=torch.bfloat16, device=dev)
    yc = torch.empty(T, H, dtype=torch.bfloat16, device=dev)

    def wgrad_diagnostics(which):
        o2, o13 = outs[torch.bfloat16]
        g = dyg if which == "dW2" else xg  # the gathered operand as a copy
        a, b, out = (g, hw, o2) if which == "dW2" else (dz, g, o13)
        ends = off[1:].contiguous()
        return {"pre-gathered copies, ours": lambda: k_grouped_wgrad(a, None, b, None, off, out),
                "pre-gathered copies, torch _grouped_mm": lambda: torch._grouped_mm(a.t(), b, offs=ends),
                "ours loads only": wgrad(torch.bfloat16, which, debug=3),
                "ours without the epilogue stores": wgrad(torch.bfloat16, which, debug=1),
                # debug bit 13: the whole epilogue, its TMA stores into one tile a CTA of group 0 (L2-resident):
                # what the stores cost without their DRAM write traffic (session 36)
                "ours, stores into one L2-resident tile a CTA": wgrad(torch.bfloat16, which, debug=8192),
                # debug bit 3: odd CTAs start ~half a tile late, so that neighbours' epilogues stop coinciding
                "ours, odd CTAs offset by half a tile": wgrad(torch.bfloat16, which, debug=8),
                "ours MMAs and epilogue, no loads": wgrad(torch.bfloat16, which, debug=64),
                "ours MMAs only": wgrad(torch.bfloat16, which, debug=65),
                "ours MMAs only split_bk128 (19)": wgrad(torch.bfloat16, which, 19, 65),
                "ours MMAs only staged_tma (16)": wgrad(torch.bfloat16, which, 16, 65),
                # debug bit 5 drops the consumers' proxy fence (timing only; no effect in run 6)
                "ours MMAs only, no proxy fence": wgrad(torch.bfloat16, which, debug=97),
                "ours without the proxy fence": wgrad(torch.bfloat16, which, debug=32),
                # The wait_group 1 pipelines (8: lean, 4 stages; 10: staged, 3), whose previous chunk's wgmma
                # are in flight when the fence (MEMBAR.ALL.CTA + FENCE.VIEW.ASYNC.S) runs: with and without it.
                **{f"{form} ({v}){tail}": wgrad(torch.bfloat16, which, v, dbg + extra)
                   for v in (8, 10) for form, dbg in (("ours wait_group 1", 0), ("ours MMAs only, wait_group 1", 65))
                   for tail, extra in (("", 0), (", no proxy fence", 32))},
                # The identity side (dz for dW1, hw for dW2) by cp.async like the gathered one instead of by TMA
                # (session 20 run 3: TMA prefetches of it into L2 made the kernel 3-15 % slower)
                "ours, identity side by cp.async": wgrad(torch.bfloat16, which, use_tma=False),
                "ours loads only, identity side by cp.async": wgrad(torch.bfloat16, which, debug=3, use_tma=False),
                # 128 x 128 tiles (the default pipeline, 128-row chunks): with -DPK_SM90_DIAG_WGRAD_BN128_STAGES=3 the
                # same with a third stage (an A/B across libraries)
                "ours 128x128 tiles": wgrad(torch.bfloat16, which, block_n=128),
                "ours 128x128 tiles, loads only": wgrad(torch.bfloat16, which, debug=3, block_n=128),
                "ours 128x128 tiles, MMAs only": wgrad(torch.bfloat16, which, debug=65, block_n=128)}

    def a_load(mode, fn):
        def run():
            os.environ["PK_SM90_A_LOAD"] = mode
            fn()
        return run
    def gemm2(v=1):
        return lambda: sm90._m_grouped(lib, h, I, None, 1, w2, 0, E, H, I, 0, off, 0, n, o, H, dev, ctypes.c_int(v))

    def dx(v=1):
        return lambda: sm90._m_grouped(lib, dz, 2 * I, None, 1, w13, 1, E, H, 2 * I, 0, off, 0, n, o, H, dev,
                                       ctypes.c_int(v))
    f = 2 * n * H * I
    zz = torch.empty(n, 2 * I, dtype=torch.bfloat16, device=dev)

    def with_env(settings, fn):
        """fn run with the environment variables `settings` set (restored after)."""
        def run():
            saved = {k: os.environ.get(k) for k in settings}
            os.environ.update(settings)
            try:
                fn()
            finally:
                for k, v in saved.items():
                    if v is None:
                        os.environ.pop(k, None)
                    else:
                        os.environ[k] = v
        return run

    main_grads = []  # fp32 main_grad accumulators of the accumulate row (allocated on its first call: 9.7 GB at 235B)

    def layer_once(wgrad_dtype=torch.bfloat16, main_grad=False):
        _, zl = sm90.moe_forward(x, idx, w, w13, w2, r, None, "bf16")
        # bf16 weight gradients, as the bench and the autograd op with bf16 weights (before session 27 this row
        # took the fp32 default: its older logs time fp32 dW1 / dW2); main_grad: added into fp32 accumulators
        if main_grad:
            if not main_grads:
                main_grads.extend((torch.zeros(E, 2 * I, H, device=dev), torch.zeros(E, H, I, device=dev)))
            sm90.moe_backward(dy, x, idx, w, w13, w2, r, zl, None, "bf16", grad_acc_w13=main_grads[0],
                              grad_acc_w2=main_grads[1])
        else:
            sm90.moe_backward(dy, x, idx, w, w13, w2, r, zl, None, "bf16", wgrad_dtype=wgrad_dtype)

    def layer(settings):
        """The whole layer (forward + backward, bf16 weight gradients) with PK_SM90_VARIANT_<OP> settings."""
        return with_env({f"PK_SM90_VARIANT_{k}": v for k, v in settings.items()}, layer_once)
    # session 10's starting defaults: GEMM 2 / dX staged cooperative 128 x 256 with wait_group 0 and TMA stores
    start10 = {"GEMM2": "99", "DX": "99"}
    # session 11's: every group n-block fastest; at H >= 3072 GEMM 1 without the TMA store, dX staged cooperative
    big = H >= 3072
    run2_11 = {f"PK_SM90_VARIANT_{k}": v for k, v in ({"GEMM1": "4", "DX": "99"} if big else {}).items()}
    start11 = {**run2_11, "PK_SM90_TILE_ORDER": "n"}

    def gemm1(v):
        return lambda: lib.call("pk_sm90_moe_gemm1_swiglu", ptr(x), ctypes.c_int64(T), ctypes.c_int(H),
                                ctypes.c_int(K), ptr(sp), ptr(off), ctypes.c_int(E), ptr(w13), ctypes.c_int(I),
                                ptr(zz), ptr(h), ctypes.c_float(0.0), ctypes.c_int(v), s)
    defaults = {"GEMM 1": (gemm1(0), 2 * f), "GEMM 2": (a_load("tma", gemm2(0)), f), "dX": (a_load("tma", dx(0)), 2 * f),
                "dH": (dh(0), f)}
    # each group's tiles m-tile / n-block fastest, forced (the default picks by the n-block count: launch.cuh)
    orders = {o: {"PK_SM90_TILE_ORDER": o[0]} for o in ("m-fastest", "n-fastest")}

    def layer_fwd():
        sm90.moe_forward(x, idx, w, w13, w2, deep_gemm.moe_routing(idx, E, validate=False), None, "bf16")

    # GEMM 1 and dH on copies of x / dy already in sorted order, run as K = 1 with the identity as the row
    # list: the same kernels and the same gather code, reading consecutive rows instead of random tokens' rows
    # (what the random rows cost over the gather itself)
    ident = torch.arange(n, dtype=torch.int32, device=dev)
    tws = tw.flatten().index_select(0, sp.clamp(min=0).long()).contiguous()
    sorted_rows = {
        "GEMM 1, pre-gathered x, consecutive rows": (lambda: lib.call(
            "pk_sm90_moe_gemm1_swiglu", ptr(xg), ctypes.c_int64(n), ctypes.c_int(H), ctypes.c_int(1), ptr(ident),
            ptr(off), ctypes.c_int(E), ptr(w13), ctypes.c_int(I), ptr(zz), ptr(h), ctypes.c_float(0.0),
            ctypes.c_int(0), s), 2 * f),
        "dH, pre-gathered dy, consecutive rows": (lambda: lib.call(
            "pk_sm90_moe_dh_swiglu_bwd", ptr(dyg), ctypes.c_int64(n), ctypes.c_int(H), ctypes.c_int(1), ptr(ident),
            ptr(off), ctypes.c_int(E), ptr(w2), ctypes.c_int(I), ptr(z), ptr(tws), ptr(dz), ptr(hw), ptr(part),
            ctypes.c_float(0.0), ctypes.c_int(0), s), f)}
    # GEMM 1's product (no SwiGLU: z only) through the plain m-grouped kernel: x gathered by cp.async, or the
    # pre-gathered copy with A by cp.async or by TMA, cooperative 128 x 256 (1) or ping-pong 128 x 192 (4): what
    # the A-load mechanism costs at GEMM 1's shape (K = H, N = 2I)
    def gemm1_product(a, a_index, topk, v):
        return lambda: sm90._m_grouped(lib, a, H, a_index, topk, w13, 0, E, 2 * I, H, 0, off, 0, n, zz, 2 * I, dev,
                                       ctypes.c_int(v))
    def dh_product(v):  # dH's product (dA only: no SwiGLU backward) through the plain m-grouped kernel, dy gathered
        return lambda: sm90._m_grouped(lib, dy, H, sp, K, w2, 1, E, I, H, 0, off, 0, n, hw, I, dev, ctypes.c_int(v))
    gemm1_plain = {
        "GEMM 1 product, plain m-grouped, x gathered by cp.async, cooperative 128x256": (gemm1_product(x, sp, K, 1), 2 * f),
        "GEMM 1 product, plain m-grouped, x gathered by cp.async, ping-pong 128x192": (gemm1_product(x, sp, K, 4), 2 * f),
        "dH product, plain m-grouped, dy gathered by cp.async, cooperative 128x256": (dh_product(1), f),
        "dH product, plain m-grouped, dy gathered by cp.async, ping-pong 128x192": (dh_product(4), f),
        **{f"GEMM 1 product, plain m-grouped, pre-gathered x, A by {mode}, {form}": (
            a_load(mode.replace(".", "_"), gemm1_product(xg, None, 1, v)), 2 * f)
           for mode in ("cp.async", "tma") for form, v in (("cooperative 128x256", 1), ("ping-pong 128x192", 4))}}
    return {**{f"{k} default": v for k, v in defaults.items()}, **sorted_rows, **gemm1_plain,
            **gather_patterns(x, xg, off, n, T, H, I, gemm1_product, f),
            # the forward's combine on GEMM 2's rows (TFLOP/s column: meaningless)
            "combine default": (lambda: lib.call("pk_sm90_token_combine", ptr(o), ctypes.c_int(H), ctypes.c_int64(T),
                                                 ctypes.c_int(K), ptr(r.pair_to_sorted), ptr(tw), ptr(yc), ptr(None),
                                                 ctypes.c_int(0), ptr(None), s), 1),
            **ceilings(xg, dyg, w13, w2, dz, hw, o, off, T, K, H, I, f),
            # routing alone (TFLOP/s column: meaningless) and the forward with it, as a step calls them
            "routing": (lambda: deep_gemm.moe_routing(idx, E, validate=False), 1),
            # what a pre-gathered dy (for dH and dW2 by TMA) would cost to make: the rows copied into sorted order
            # (TFLOP/s column: meaningless)
            "dy gather copy, torch index_select": (lambda: torch.index_select(dy, 0, tok.long(), out=dyg), 1),
            "layer fwd (routing + forward) default": (layer_fwd, 3 * f),
            **{f"{k} default, {o} tile order": (with_env(env, fn), fl)
               for k, (fn, fl) in defaults.items() for o, env in orders.items()},
            **{f"layer fwd+bwd, {o} tile order": (with_env(env, layer_once), 9 * f) for o, env in orders.items()},
            # the persistent grids capped below the SM count (PK_SM90_MAX_CTAS): does a less loaded L2 make up for
            # the missing SMs?
            **{f"{k} default, {n} CTAs": (with_env({"PK_SM90_MAX_CTAS": str(n)}, fn), fl)
               for k, (fn, fl) in defaults.items() for n in (124, 116, 100)},
            "layer fwd+bwd default": (layer({}), 9 * f),
            # fp32 weight gradients (fp32 parameters: the autograd op's gradients in their dtype)
            "layer fwd+bwd, fp32 weight gradients": (lambda: layer_once(torch.float32), 9 * f),
            # the weight gradients added into fp32 main_grad accumulators (dW1 there in 4-CTA clusters, session 32)
            "layer fwd+bwd, fp32 main_grad accumulate": (lambda: layer_once(main_grad=True), 9 * f),
            # the same two in pipeline 19, session 38's fp32 defaults (session 39 moved plain fp32 and dW2's
            # accumulate to 28; 19 forced keeps dW1's accumulate in its 4-CTA clusters)
            "layer fwd+bwd, fp32 weight gradients, wgrad 19": (
                with_env({"PK_SM90_VARIANT_WGRAD": "19"}, lambda: layer_once(torch.float32)), 9 * f),
            "layer fwd+bwd, fp32 main_grad accumulate, wgrad 19": (
                with_env({"PK_SM90_VARIANT_WGRAD": "19"}, lambda: layer_once(main_grad=True)), 9 * f),
            "layer fwd+bwd, session 10 start defaults": (layer(start10), 9 * f),
            "layer fwd+bwd, session 11 start defaults": (with_env(start11, layer_once), 9 * f),
            "layer fwd+bwd, session 11 run 2 defaults": (with_env(run2_11, layer_once), 9 * f),
            # the weight tile multicast to 2-CTA pairs: fewer L2 -> SM bytes (energy at the power cap)
            "layer fwd+bwd, 2-CTA multicast GEMM 1 / GEMM 2 / dX": (layer({"GEMM1": "20", "GEMM2": "19", "DX": "19"}), 9 * f),
            "layer fwd+bwd, GEMM 1 cooperative 128x256": (layer({"GEMM1": "1"}), 9 * f),
            # dX in the staged cooperative 128 x 256 form releasing stages after wait_group 0 (the default before
            # session 10), without and with TMA stores (session 34 run 1 read it 12 % under the default at 30B)
            "layer fwd+bwd, dX staged, A by TMA, wait0": (layer({"DX": "35"}), 9 * f),
            "layer fwd+bwd, dX staged, A by TMA, wait0, TMA store": (layer({"DX": "99"}), 9 * f),
            # dX's ping-pong 128 x 192 form forced (the default on six HBM stacks, H200; 99 on an H100 since session 34)
            "layer fwd+bwd, dX ping-pong 128x192": (layer({"DX": "4"}), 9 * f),
            # the weight gradients' 128 x 384 tiles (the bf16 default since session 38) and the default before them
            "layer fwd+bwd, wgrad 128x384 (28)": (layer({"WGRAD": "28"}), 9 * f),
            "layer fwd+bwd, wgrad defer tail (21)": (layer({"WGRAD": "21"}), 9 * f),
            "GEMM 1 cooperative 128x256, 2-CTA B multicast": (gemm1(17), 2 * f),
            "GEMM 1 cooperative 128x256": (gemm1(1), 2 * f),
            "GEMM 1 staged 128x192, 4 stages": (gemm1(4), 2 * f),
            # ping-pong 128 x 192 (192 accumulators a thread, 4 stages), stored through per-warp staging rows
            # (the defaults at 30B; GEMM 2 also at 235B)
            "GEMM 2 ping-pong 128x192, A by TMA": (a_load("tma", gemm2(4)), f),
            "dX ping-pong 128x192, A by TMA": (a_load("tma", dx(4)), 2 * f),
            "GEMM 2, A by TMA": (a_load("tma", gemm2()), f), "GEMM 2, A by cp.async": (a_load("cp_async", gemm2()), f),
            "GEMM 2 ping-pong, A by TMA": (a_load("tma", gemm2(2)), f),
            "GEMM 2 staged, A by TMA": (a_load("tma", gemm2(3)), f),
            "dX, A by TMA": (a_load("tma", dx()), 2 * f), "dX, A by cp.async": (a_load("cp_async", dx()), 2 * f),
            "dX ping-pong, A by TMA": (a_load("tma", dx(2)), 2 * f),
            "dX staged, A by TMA": (a_load("tma", dx(3)), 2 * f),
            "dH coop 128x128": (dh(1), f), "dH ping-pong": (dh(2), f), "dH coop 128x256": (dh(3), f),
            "dH epilogue warps 128x256": (dh(4), f),
            "dH 2 epilogue warps 128x256": (dh(5), f),
            # + 32: consumers release each stage after wgmma.wait_group 0
            "dH epilogue warps 128x256, wait0": (dh(36), f),
            "dH 2 epilogue warps 128x256, wait0": (dh(37), f),
            "dH epilogue warps 128x256, wait0, z L1 prefetch": (dh(40), f),
            "dH 2 epilogue warps 128x256, wait0, z L1 prefetch": (dh(41), f),
            # the defaults before session 15 (8 + 32 at H < 3072, 9 + 32 above; now 10 + 32: a fourth warpgroup of
            # epilogue warps, the whole producer warpgroup gathering)
            "layer fwd+bwd, session 14 dH": (layer({"DH": "41" if big else "40"}), 9 * f),
            "layer fwd+bwd, session 14 defaults": (layer({"DH": "41" if big else "40", "GEMM1": "68"}), 9 * f),
            "layer fwd, session 14 defaults": (with_env({"PK_SM90_VARIANT_GEMM1": "68"}, layer_fwd), 3 * f),
            # 5: the same tiles with the SwiGLU and the z / h stores in a fourth warpgroup of epilogue warps
            "GEMM 1 epilogue warpgroup 128x192": (gemm1(5), 2 * f),
            "layer fwd+bwd, GEMM 1 epilogue warpgroup": (layer({"GEMM1": "5"}), 9 * f),
            "layer fwd, GEMM 1 epilogue warpgroup": (with_env({"PK_SM90_VARIANT_GEMM1": "5"}, layer_fwd), 3 * f),
            "GEMM 1 staged 128x192, wait0": (gemm1(36), 2 * f),
            "GEMM 1 staged 128x192, TMA store": (gemm1(68), 2 * f),
            "GEMM 2 staged, A by TMA, wait0": (a_load("tma", gemm2(35)), f),
            "dX, A by TMA, wait0": (a_load("tma", dx(33)), 2 * f),
            "dX staged, A by TMA, wait0": (a_load("tma", dx(35)), 2 * f),
            # 3 + 64: full tiles leave by TMA tensor stores
            "GEMM 2 staged, A by TMA, TMA store": (a_load("tma", gemm2(67)), f),
            "GEMM 2 staged, A by TMA, wait0, TMA store": (a_load("tma", gemm2(99)), f),
            "dX staged, A by TMA, TMA store": (a_load("tma", dx(67)), 2 * f),
            "dX staged, A by TMA, wait0, TMA store": (a_load("tma", dx(99)), 2 * f),
            # + 16: the same with 2-CTA clusters multicasting the weight tile
            "dH coop 128x256, 2-CTA B multicast": (dh(19), f),
            "GEMM 1 staged 128x192, 2-CTA B multicast": (gemm1(20), 2 * f),
            "GEMM 2 staged, 2-CTA B multicast": (a_load("tma", gemm2(19)), f),
            "dX, 2-CTA B multicast": (a_load("tma", dx(17)), 2 * f),
            "dX staged, 2-CTA B multicast": (a_load("tma", dx(19)), 2 * f),
            "dW2 fp32 out": (wgrad(torch.float32, "dW2"), f), "dW2 bf16 out": (wgrad(torch.bfloat16, "dW2"), f),
            "dW1 fp32 out": (wgrad(torch.float32, "dW1"), 2 * f),
            "dW1 bf16 out": (wgrad(torch.bfloat16, "dW1"), 2 * f),
            **{f"{which} {dn} out, wgrad variant {name}": (wgrad(dt, which, v), f * (1 if which == "dW2" else 2))
               for name, v in VARIANTS.items() if v >= 8
               for which in ("dW2", "dW1") for dn, dt in (("bf16", torch.bfloat16), ("fp32", torch.float32))},
            **{f"{which} fp32 accumulate, wgrad variant {name}": (wgrad(torch.float32, which, v, accumulate=True),
                                                                 f * (1 if which == "dW2" else 2))
               for name, v in VARIANTS.items() if v in (8, 12, 13) or v >= 16 for which in ("dW2", "dW1")},
            # pipeline 28's 128 x 384 tiles (session 38) taken apart like the default, and with each bf16 pass waiting
            # for the last one's reads (debug bit 14) instead of the one before
            **{f"{which} bf16 out, wide_bk64 (28), {form}": (wgrad(torch.bfloat16, which, 28, dbg),
                                                            f * (1 if which == "dW2" else 2))
               for which in ("dW2", "dW1")
               for form, dbg in (("without the epilogue stores", 1), ("MMAs only", 65), ("loads only", 3),
                                 ("one pass in flight (debug bit 14)", 16384))},
            # its non-transposed fp32 outs (dW2: 32-column passes alternating staging halves, session 39) without the
            # alternation (the transposed dW1 tiles do not alternate: results/session39/trans32.patch, even)
            **{f"dW2 fp32 {kind}, wide_bk64 (28), one pass in flight (debug bit 14)": (
                wgrad(torch.float32, "dW2", 28, 16384, kind == "accumulate"), f) for kind in ("out", "accumulate")},
            "dW1 bf16 out, 2-CTA pairs sharing dz (debug bit 9)": (wgrad(torch.bfloat16, "dW1", 0, 512), 2 * f),
            # the default swaps dW1's operands for a bf16 out (x gathered on the 128-wide side, dz shared by 2-CTA
            # pairs, tiles stored transposed; fp32 outs too, in pipeline 19); debug bit 10 keeps dz as A
            "dW1 bf16 out, caller's orientation (debug bit 10)": (wgrad(torch.bfloat16, "dW1", 0, 1024), 2 * f),
            "dW1 fp32 out, caller's orientation (debug bit 10)": (wgrad(torch.float32, "dW1", 0, 1024), 2 * f),
            # the caller's orientation taken apart like the swapped form (session 36: whose epilogue costs what)
            **{f"dW1 bf16 out, caller's orientation, {form}": (wgrad(torch.bfloat16, "dW1", 0, 1024 + dbg), 2 * f)
               for form, dbg in (("without the epilogue stores", 1), ("stores into one L2-resident tile a CTA", 8192),
                                 ("MMAs and epilogue, no loads", 64), ("MMAs only", 65), ("loads only", 3))},
            "dW1 fp32 accumulate": (wgrad(torch.float32, "dW1", 0, 0, True), 2 * f),
            # the swapped form with dz shared by 4-CTA clusters (debug bit 11) or pairs (bit 12) (session 32: the
            # default is 4 for an fp32 accumulate, else pairs), and what bounds the 4-CTA form: its loads, its MMAs
            "dW1 bf16 out, 4-CTA clusters (debug bit 11)": (wgrad(torch.bfloat16, "dW1", 0, 2048), 2 * f),
            "dW1 fp32 out, 4-CTA clusters (debug bit 11)": (wgrad(torch.float32, "dW1", 0, 2048), 2 * f),
            "dW1 fp32 accumulate, 4-CTA clusters (debug bit 11)": (wgrad(torch.float32, "dW1", 0, 2048, True), 2 * f),
            "dW1 fp32 accumulate, pairs (debug bit 12)": (wgrad(torch.float32, "dW1", 0, 4096, True), 2 * f),
            "dW1 bf16 out, 4-CTA clusters, loads only": (wgrad(torch.bfloat16, "dW1", 0, 2048 | 3), 2 * f),
            "dW1 bf16 out, 4-CTA clusters, MMAs only": (wgrad(torch.bfloat16, "dW1", 0, 2048 | 65), 2 * f),
            "dW1 fp32 accumulate, caller's orientation (debug bit 10)": (
                wgrad(torch.float32, "dW1", 0, 1024, True), 2 * f),
            "dW2 fp32 accumulate": (wgrad(torch.float32, "dW2", 0, 0, True), f),
            "dW2 bf16 out, no 2-CTA pairs (debug bit 2)": (wgrad(torch.bfloat16, "dW2", 0, 4), f),
            "dW2 fp32 accumulate, no 2-CTA pairs (debug bit 2)": (wgrad(torch.float32, "dW2", 0, 4, True), f),
            # Diagnostics (bf16 out, default pipeline): the same products from pre-gathered copies (both
            # operands contiguous: TMA / identity), against torch._grouped_mm on those copies; and the
            # kernel with its loads only (debug 3) or its MMAs only (debug 65: no loads, no stores).
            **{f"{which} bf16 out, {form}": (fn, f * (1 if which == "dW2" else 2))
               for which in ("dW2", "dW1") for form, fn in wgrad_diagnostics(which).items()},
            "dW1 fp32 out, 2-CTA pairs sharing dz (debug bit 9)": (wgrad(torch.float32, "dW1", 0, 512), 2 * f)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", default="30b,235b")
    ap.add_argument("--tokens", type=int, default=16384)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0, help="seed of the rounds' random orders")
    ap.add_argument("--only", default="", help="comma-separated substrings: time only variants whose name "
                                                "contains one of them (e.g. 'GEMM 2,dX')")
    ap.add_argument("--sustained", type=float, default=0.0,
                    help="then run each variant back to back for this many seconds, sampling the SM clock and power "
                         "(which kernels the 700 W cap slows, and by how much)")
    ap.add_argument("--routing", default="uniform", choices=("uniform", "balanced"),
                    help="uniform random top-K (the benchmark's) or every expert exactly T*K/E pairs")
    ap.add_argument("--match", default="", help="regular expression: time only variants whose name it matches "
                                                 "(re.search; names contain commas, which --only splits on)")
    a = ap.parse_args()
    keep = [t.strip() for t in a.only.split(",") if t.strip()]
    pattern = re.compile(a.match) if a.match else None
    print(f"GPU: {torch.cuda.get_device_name()}  torch {torch.__version__}")
    for shape in a.shapes.split(","):
        vs = {k: v for k, v in variants(shape, a.tokens, 128, 8, a.routing).items()
              if (not keep or any(t in k for t in keep)) and (pattern is None or pattern.search(k))}
        times = {k: [] for k in vs}
        keys = list(vs)
        order = random.Random(a.seed)
        for _ in range(a.rounds):
            # Each round in a fresh random order: at the power cap a kernel's clock depends on what ran
            # just before it. In a fixed order one kernel measured 2.74 and 3.37 ms as the first and the
            # third entry of the same rounds (results/session7/run1, 235B dW2); rotating the order kept
            # each entry's predecessor and flipped a 5-12 % "gain" into a 2-4 % loss (runs 3-5).
            order.shuffle(keys)
            for k in keys:
                times[k].append(cuda_time_ms(vs[k][0], reps=a.reps, warmup=1))
        print(f"\n{shape}, {a.routing} routing: median of {a.rounds} interleaved rounds (each a median of {a.reps})")
        print("| variant | ms | TFLOP/s | min-max ms |\n|---|---|---|---|")
        for k, (fn, flops) in vs.items():
            m = statistics.median(times[k])
            print(f"| {k} | {m:.3f} | {flops / m / 1e9:.0f} | {min(times[k]):.3f}-{max(times[k]):.3f} |")
        if a.sustained > 0:
            print(f"\n{shape}: each variant back to back for {a.sustained:g} s")
            print("| variant | ms | TFLOP/s | SM clock median (min) MHz | power max W |\n|---|---|---|---|---|")
            for k, (fn, flops) in vs.items():
                ms, smin, smed, pmax = clocks(fn, a.sustained)
                print(f"| {k} | {ms:.3f} | {flops / ms / 1e9:.0f} | {smed:.0f} ({smin:.0f}) | {pmax:.0f} |", flush=True)


if __name__ == "__main__":
    main()
