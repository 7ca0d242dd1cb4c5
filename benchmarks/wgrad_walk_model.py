"""A model of the weight-gradient kernels' static tile walk (CPU only, no GPU): how much more than the mean the
busiest CTA carries, for the plain walk (experts in their own order) and the balanced one (experts by descending row
count, each round of the grid dealt forwards then backwards), at the benchmark's shapes and routings.

A scheduling unit is a 2-CTA pair of 128 x 384 tiles (pipeline 28); it costs its expert's 64-row chunks plus one
chunk's worth for its epilogue. The grid is `--pairs` units a round (66 on a 132-SM H100 / H200).

    python benchmarks/wgrad_walk_model.py [--skews 0,0.5,1] [--pairs 66] [--tokens 16384]
"""
from __future__ import annotations

import argparse
import pathlib
import sys

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from bench_moe import SHAPES, expert_scores  # noqa: E402

E, K = 128, 8


def pair_of(i, n, pairs, zigzag=True):
    """The pair that takes the i-th of n units: round r = i // pairs to pairs 0..P-1, backwards on odd whole
    rounds when zigzag (the kernel's `balanced_unit` in csrc/sm90/kgrouped_walk.cuh; tests/test_sm90_kgrouped.py
    checks the two agree)."""
    r, pos = divmod(i, pairs)
    return pairs - 1 - pos if zigzag and r % 2 and (r + 1) * pairs <= n else pos


def busiest_over_mean(cost, order, pairs, zigzag):
    """cost[u] per unit; units dealt in `order` (see pair_of)."""
    loads = [0.0] * pairs
    for i, u in enumerate(order):
        loads[pair_of(i, len(order), pairs, zigzag)] += cost[u]
    return max(loads) / (sum(cost) / pairs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--skews", default="0,0.5,1", help="comma-separated --skew values of bench_moe.py (0: uniform)")
    ap.add_argument("--pairs", type=int, default=66, help="2-CTA units a round (SMs / 2)")
    ap.add_argument("--tokens", type=int, default=16384)
    a = ap.parse_args()
    if a.pairs < 1 or a.tokens < 1:
        ap.error("--pairs and --tokens must be positive")
    print("| shape | kernel | skew | busiest expert / mean | plain walk | sorted | sorted + zigzag (balanced) |")
    print("|---|---|---|---|---|---|---|")
    for skew in (float(s) for s in a.skews.split(",")):
        g = torch.Generator().manual_seed(1)
        idx = expert_scores(a.tokens, E, "skewed" if skew else "uniform", skew, g).topk(K, dim=-1).indices
        counts = torch.bincount(idx.flatten(), minlength=E).tolist()
        by_rows = sorted(range(E), key=lambda e: -counts[e])
        busiest = max(counts) / (a.tokens * K / E)
        for shape, (H, I) in SHAPES.items():
            # units an expert: (H / 128 / 2 pairs) x (out width / 384); dW1's width 2I, dW2's I
            for kernel, width in (("dW1", 2 * I), ("dW2", I)):
                per = (H // 256) * (width // 384)
                cost = [(counts[u // per] + 63) // 64 + 1.0 for u in range(E * per)]
                plain = list(range(E * per))
                srt = [e * per + j for e in by_rows for j in range(per)]
                print(f"| {shape} | {kernel} | {skew:g} | {busiest:.2f} | {busiest_over_mean(cost, plain, a.pairs, False):.3f} "
                      f"| {busiest_over_mean(cost, srt, a.pairs, False):.3f} "
                      f"| {busiest_over_mean(cost, srt, a.pairs, True):.3f} |")


if __name__ == "__main__":
    main()
