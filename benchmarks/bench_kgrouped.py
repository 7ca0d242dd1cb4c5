"""Benchmark: Hopper k-grouped weight-gradient GEMM (gathering rows on the fly) vs torch.

    PYTHONPATH=. PK_LIBRARY_PATH=build/kg python benchmarks/bench_kgrouped.py
    ... --sanitize     one small case (both gathers, accumulate), for compute-sanitizer

Setup: T = 16384 tokens, top-8, 128 experts, uniform random routing, BF16 inputs.
  dW2[e] [H, I]  = sum_r dy[token(r)] (x) hw[r]   (a gathered by token)
  dW1[e] [2I, H] = sum_r dz[r] (x) x[token(r)]     (b gathered by token)
FLOPs 2 * T*K * M * N. Baseline: materialize the gathered copy (index_select), then
torch._grouped_mm k-grouped (offs = group ends); timed separately and together.
"""
from __future__ import annotations

import argparse
import sys

import torch

from deep_gemm.kernels.sm90_kgrouped import VARIANTS, k_grouped_wgrad
from deep_gemm.testing import cuda_time_ms


def routed(T, K, E, dev, gen):
    idx = torch.argsort(torch.rand(T, E, generator=gen, device=dev), dim=1)[:, :K]
    flat = idx.reshape(-1)
    order = torch.argsort(flat, stable=True)
    tokens = (order // K).to(torch.int32)
    counts = torch.bincount(flat, minlength=E)
    offsets = torch.zeros(E + 1, dtype=torch.int32, device=dev)
    offsets[1:] = torch.cumsum(counts, 0)
    return tokens, offsets


def time_ms(fn, warmup=3, reps=10):
    return cuda_time_ms(fn, reps=reps, warmup=warmup, spread=True)


def torch_grouped(A_t, B, offs_end):
    """k-grouped torch._grouped_mm, trying the layouts/out dtypes this torch accepts.
    Returns (description, f) with f(A_t, B) -> [G, M, N], or (reason, None)."""
    errs = []
    forms = (
        ("fp32 out, A^T view", lambda x, y: torch._grouped_mm(x, y, offs=offs_end, out_dtype=torch.float32)),
        ("bf16 out, A^T view", lambda x, y: torch._grouped_mm(x, y, offs=offs_end)),
        ("bf16 out, A^T contiguous", lambda x, y: torch._grouped_mm(x.contiguous(), y, offs=offs_end)),
    )
    for desc, f in forms:
        try:
            f(A_t, B)
            torch.cuda.synchronize()
            return desc, f
        except Exception as e:  # noqa: BLE001 - report and try the next form
            errs.append(f"{desc}: {str(e).splitlines()[0][:150]}")
    return "unavailable: " + " | ".join(errs), None


def check_groups(out, a, a_rows, b, b_rows, offsets_h, groups):
    worst = 0.0
    for g in groups:
        s, e = offsets_h[g], offsets_h[g + 1]
        r = torch.arange(s, e, device=a.device)
        ia = a_rows[s:e].long() if a_rows is not None else r
        ib = b_rows[s:e].long() if b_rows is not None else r
        ref = a[ia].double().t() @ b[ib].double()
        err = ((out[g].double() - ref).norm() / ref.norm().clamp_min(1e-30)).item()
        worst = max(worst, err)
    return worst


def bench_case(name, which, H, I, T, K, E, gen, rows):
    dev = torch.device("cuda")
    R = T * K
    tokens, offsets = routed(T, K, E, dev, gen)
    if which == "dW2":
        a = torch.randn(T, H, generator=gen, device=dev).to(torch.bfloat16)
        b = torch.randn(R, I, generator=gen, device=dev).to(torch.bfloat16)
        a_rows, b_rows, M, N = tokens, None, H, I
    else:
        a = torch.randn(R, 2 * I, generator=gen, device=dev).to(torch.bfloat16)
        b = torch.randn(T, H, generator=gen, device=dev).to(torch.bfloat16)
        a_rows, b_rows, M, N = None, tokens, 2 * I, H
    flops = 2.0 * R * M * N
    out = torch.full((E, M, N), float("nan"), device=dev)
    k_grouped_wgrad(a, a_rows, b, b_rows, offsets, out)
    torch.cuda.synchronize()
    offsets_h = offsets.tolist()
    finite = bool(torch.isfinite(out).all())
    err = check_groups(out, a, a_rows, b, b_rows, offsets_h, [0, E // 2, E - 1])

    # Variants (kwargs of k_grouped_wgrad). debug bit 0: no epilogue stores, bit 1: no wgmma.
    variants = {
        "ours": {},
        "no_mc": {"_debug": 4},
        "a_pair256": {"_debug": 256},
        "no_fence": {"_debug": 32},
        "acc": {"accumulate": True},
        "no_epi": {"_debug": 1},
        "loads": {"_debug": 3},
        "mma_only": {"_debug": 65},
        "mma_nofence": {"_debug": 97},
        "mma_no_mc": {"_debug": 69},
        "mma_bn128": {"_debug": 65, "_block_n": 128},
        "mma_256x128": {"_debug": 65 | 256 | 4},
        "bn128": {"_block_n": 128},
    }
    # Pipeline variants (notes/sm90_kgrouped.md, "v6 variants"): each full, wgmma only
    # (no loads, no epilogue) and loads only. "v5" = the pipeline that was the default.
    for pname, vid in VARIANTS.items():
        variants[pname] = {"_variant": vid}
        variants["mma_" + pname] = {"_variant": vid, "_debug": 65}
        variants["loads_" + pname] = {"_variant": vid, "_debug": 3}
    verr = {}
    for pname, vid in VARIANTS.items():  # sampled correctness of every pipeline variant
        out.fill_(float("nan"))
        k_grouped_wgrad(a, a_rows, b, b_rows, offsets, out, _variant=vid)
        torch.cuda.synchronize()
        verr[pname] = (bool(torch.isfinite(out).all()),
                       check_groups(out, a, a_rows, b, b_rows, offsets_h, [0, E // 2, E - 1]))
    vt = {}
    for vname, kw in variants.items():
        vt[vname] = time_ms(lambda: k_grouped_wgrad(a, a_rows, b, b_rows, offsets, out, **kw))
    ours, ours_acc, ours_bn128 = vt["ours"], vt["acc"], vt["bn128"]
    # the same sizes with both operands contiguous (no gather): identity rows
    ac = a if a_rows is None else torch.randn(R, M, generator=gen, device=dev).to(torch.bfloat16)
    bc = b if b_rows is None else torch.randn(R, N, generator=gen, device=dev).to(torch.bfloat16)
    vt["nogather"] = time_ms(lambda: k_grouped_wgrad(ac, None, bc, None, offsets, out))
    del ac, bc
    del out
    torch.cuda.empty_cache()

    # torch: gather into a contiguous copy, then k-grouped _grouped_mm
    def gather():
        ga = a.index_select(0, a_rows.long()) if a_rows is not None else a
        gb = b.index_select(0, b_rows.long()) if b_rows is not None else b
        return ga, gb
    ga, gb = gather()
    offs_end = offsets[1:].contiguous()
    desc, tfn = torch_grouped(ga.t(), gb, offs_end)
    t_gather = time_ms(gather)
    if tfn is not None:
        gat, gbt = ga.t(), gb
        t_torch = time_ms(lambda: tfn(gat, gbt))

        def gather_then_gemm():
            x, y = gather()
            return tfn(x.t(), y)
        t_torch_all = time_ms(gather_then_gemm)
    else:
        t_torch = t_torch_all = (float("nan"),) * 3
    del ga, gb
    torch.cuda.empty_cache()
    tf = lambda ms: flops / (ms * 1e-3) / 1e12  # noqa: E731
    rows.append(dict(case=name, M=M, N=N, ours_ms=ours[0], ours_tf=tf(ours[0]),
                     ours_min_ms=ours[1], acc_ms=ours_acc[0], acc_tf=tf(ours_acc[0]),
                     bn128_ms=ours_bn128[0], bn128_tf=tf(ours_bn128[0]),
                     torch_ms=t_torch[0], torch_tf=tf(t_torch[0]), gather_ms=t_gather[0],
                     torch_all_ms=t_torch_all[0], torch_all_tf=tf(t_torch_all[0]),
                     err=err, finite=finite, torch_form=desc, variant_err=verr,
                     variants={k: v[0] for k, v in vt.items()}))
    print(f"{name}: ours {ours[0]:.3f} ms ({tf(ours[0]):.0f} TFLOP/s, min {ours[1]:.3f} max {ours[2]:.3f}); "
          f"accumulate {ours_acc[0]:.3f} ms; BN=128 {ours_bn128[0]:.3f} ms ({tf(ours_bn128[0]):.0f}); "
          f"torch grouped_mm [{desc}] {t_torch[0]:.3f} ms ({tf(t_torch[0]):.0f}), gather {t_gather[0]:.3f} ms, "
          f"gather+gemm {t_torch_all[0]:.3f} ms; sampled rel err {err:.2e}, finite {finite}", flush=True)
    print("  pipeline variants: " + ", ".join(
        f"{k} {vt[k][0]:.3f} ms ({tf(vt[k][0]):.0f}; mma {vt['mma_' + k][0]:.3f}, loads {vt['loads_' + k][0]:.3f}; "
        f"err {verr[k][1]:.1e}{'' if verr[k][0] else ' NONFINITE'})" for k in VARIANTS), flush=True)


def dense_ceiling():
    x = torch.randn(8192, 8192, device="cuda").to(torch.bfloat16)
    y = torch.randn(8192, 8192, device="cuda").to(torch.bfloat16)
    ms = time_ms(lambda: x @ y, warmup=5, reps=20)[0]
    return 2 * 8192**3 / (ms * 1e-3) / 1e12


def sanitize_case():
    gen = torch.Generator(device="cuda").manual_seed(1)
    dev = torch.device("cuda")
    counts = [0, 1, 63, 65, 130, 0, 7, 128]
    offs = [0]
    for c in counts:
        offs.append(offs[-1] + c)
    R = offs[-1] + 9
    # (M, N, accumulate, which side is identity-indexed): the gather-only, TMA and cluster paths.
    for M, N, acc, ident in ((128, 256, False, ""), (256, 128, True, ""), (128, 384, False, "b"),
                             (256, 256, True, "b"), (256, 256, False, "a")):
        a = torch.randn(50, M, generator=gen, device=dev).to(torch.bfloat16)
        b = torch.randn(40, N, generator=gen, device=dev).to(torch.bfloat16)
        a_rows = torch.randint(0, 50, (R,), generator=gen, device=dev, dtype=torch.int32)
        b_rows = torch.randint(0, 40, (R,), generator=gen, device=dev, dtype=torch.int32)
        a_rows[offs[-1]:] = -1
        b_rows[offs[-1]:] = -1
        if ident == "b":
            b, b_rows = torch.randn(R, N, generator=gen, device=dev).to(torch.bfloat16), None
        if ident == "a":
            a, a_rows = torch.randn(R, M, generator=gen, device=dev).to(torch.bfloat16), None
        off = torch.tensor(offs, dtype=torch.int32, device=dev)
        out_init = torch.randn(len(counts), M, N, generator=gen, device=dev)
        for vid in [0] + sorted(VARIANTS.values()):
            out = out_init.clone()
            out0 = out.clone()
            k_grouped_wgrad(a, a_rows, b, b_rows, off, out, accumulate=acc, _max_ctas=2, _variant=vid)
            torch.cuda.synchronize()
            worst = 0.0
            for g in range(len(counts)):
                s, e = offs[g], offs[g + 1]
                r = torch.arange(s, e, device=dev)
                ia = a_rows[s:e].long() if a_rows is not None else r
                ib = b_rows[s:e].long() if b_rows is not None else r
                ref = (out0[g].double() if acc else 0) + a[ia].double().t() @ b[ib].double()
                if e > s or acc:
                    worst = max(worst, ((out[g].double() - ref).norm() / ref.norm().clamp_min(1e-30)).item())
            print(f"sanitize case M={M} N={N} accumulate={acc} identity={ident or '-'} variant={vid}: "
                  f"worst rel err {worst:.2e}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sanitize", action="store_true")
    ap.add_argument("--T", type=int, default=16384)
    ap.add_argument("--shapes", default="30B,235B", help="comma-separated subset of 30B,235B")
    ap.add_argument("--profile", type=int, default=0,
                    help="run 30B dW2 (1) or dW1 (2) twice, for ncu --launch-skip 1")
    args = ap.parse_args()
    if args.profile:
        gen = torch.Generator(device="cuda").manual_seed(0)
        T, K, E, H, I = args.T, 8, 128, 2048, 768
        R = T * K
        tokens, offsets = routed(T, K, E, torch.device("cuda"), gen)
        if args.profile == 1:
            a = torch.randn(T, H, generator=gen, device="cuda").to(torch.bfloat16)
            b = torch.randn(R, I, generator=gen, device="cuda").to(torch.bfloat16)
            a_rows, b_rows, M, N = tokens, None, H, I
        else:
            a = torch.randn(R, 2 * I, generator=gen, device="cuda").to(torch.bfloat16)
            b = torch.randn(T, H, generator=gen, device="cuda").to(torch.bfloat16)
            a_rows, b_rows, M, N = None, tokens, 2 * I, H
        out = torch.empty(E, M, N, device="cuda")
        for _ in range(2):
            k_grouped_wgrad(a, a_rows, b, b_rows, offsets, out)
        torch.cuda.synchronize()
        return
    if args.sanitize:
        sanitize_case()
        return
    print(torch.cuda.get_device_name(), "torch", torch.__version__)
    gen = torch.Generator(device="cuda").manual_seed(torch.randint(0, 2**31 - 1, ()).item())
    rows = []
    T, K, E = args.T, 8, 128
    for shape, H, I in (("30B", 2048, 768), ("235B", 4096, 1536)):
        if shape not in args.shapes.split(","):
            continue
        for which in ("dW2", "dW1"):
            bench_case(f"{shape} {which}", which, H, I, T, K, E, gen, rows)
    ceil = dense_ceiling()
    print(f"\ndense bf16 8192^3 ceiling: {ceil:.0f} TFLOP/s")
    print(f"{'case':<10} {'M':>5} {'N':>5} {'ours ms':>8} {'TF/s':>5} {'acc TF':>6} {'BN128':>6} "
          f"{'torch ms':>8} {'TF/s':>5} {'gath ms':>7} {'g+t TF':>6} {'err':>8}")
    for r in rows:
        print(f"{r['case']:<10} {r['M']:>5} {r['N']:>5} {r['ours_ms']:>8.3f} {r['ours_tf']:>5.0f} "
              f"{r['acc_tf']:>6.0f} {r['bn128_tf']:>6.0f} {r['torch_ms']:>8.3f} {r['torch_tf']:>5.0f} "
              f"{r['gather_ms']:>7.3f} {r['torch_all_tf']:>6.0f} {r['err']:>8.1e}")
    print("torch form:", rows[0]["torch_form"])
    names = list(rows[0]["variants"])
    print("variants, ms (TFLOP/s): " + ", ".join(names))
    for r in rows:
        fl = 2.0 * args.T * 8 * r["M"] * r["N"]
        print(f"{r['case']:<10} " + " ".join(f"{r['variants'][k]:.3f}({fl / r['variants'][k] / 1e9:.0f})" for k in names))
    print("pipeline variants, ms full / wgmma-only / loads-only (TFLOP/s of full), sampled err, per case: "
          + ", ".join(r["case"] for r in rows))
    for k in VARIANTS:
        cells = []
        for r in rows:
            fl = 2.0 * args.T * 8 * r["M"] * r["N"]
            v = r["variants"]
            fin, e = r["variant_err"][k]
            cells.append(f"{v[k]:.3f}/{v['mma_' + k]:.3f}/{v['loads_' + k]:.3f} ({fl / v[k] / 1e9:.0f}) "
                         f"err {e:.0e}{'' if fin else ' NONFINITE'}")
        print(f"  {k:<18} " + " | ".join(cells))
    ok = all(r["finite"] and r["err"] <= 1e-2 for r in rows)
    ok = ok and all(fin and e <= 1e-2 for r in rows for fin, e in r["variant_err"].values())
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
