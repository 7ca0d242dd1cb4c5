"""Hopper (sm_90a) native implementations: ctypes calls into libprime_kernels_sm90.so.

See deep_gemm/kernels/__init__.py for the rule: same names and signatures as deep_gemm.reference.

MoE layer (bf16), kernels in csrc/sm90/ (one persistent warp-specialized wgmma kernel family,
csrc/sm90/grouped_gemm.cuh), entry points csrc/api/sm90_moe.cu and sm90_grouped_gemm.cu:

  forward   1. GEMM 1: x rows gathered by cp.async in the A load, . W13[e]^T, SwiGLU epilogue
               -> z_sorted [T*K, 2I] (saved) and h [T*K, I] (transient)
            2. GEMM 2: h . W2[e]^T -> o [T*K, H] (transient, bf16, contiguous sorted rows)
            3. combine: y[t] = sum_k w[t,k] o[pos(t,k)]   (gather-and-sum, fixed order)
            (opt-in, PK_MOE_COMBINE=scatter: 2+3 as one GEMM 2 whose epilogue adds w * row into an
             fp32 y32 [T, H] zeroed first, with red.global.add.v4.f32, then y = bf16(y32); not
             bitwise deterministic: the order of the atomics varies. Default PK_MOE_COMBINE=gather.)
  backward  1. dy rows gathered . W2[e] (W2 read MN-major), SwiGLU-backward epilogue reloading z
               -> dz [T*K, 2I] (weight folded in), h*w [T*K, I], partial <dA, h> [T*K, I/128]
            2. dX: dz . W13[e] (MN-major) -> [T*K, H], then gather-sum to tokens + d(topk_weights)
            3. dW2 = sum dy[tok]^T (h w), dW1 = sum dz^T x[tok]: k-grouped GEMMs gathering rows
               (kernels/sm90_kgrouped.py), written as fp32, as bf16 (wgrad_dtype: the parameters'
               dtype, no fp32 copy and no cast pass) or added into fp32 accumulators in place;
               a torch fallback when that kernel cannot take a case.
               PK_MOE_WGRAD=grouped_mm uses torch._grouped_mm on gathered copies instead (measured
               slower on the H200: 30B backward 8.3 vs 7.3 ms), PK_MOE_WGRAD=torch a per-expert loop.
Nothing reads routing counts on the host: the layer is CUDA-graph capturable.
"""
from __future__ import annotations

import ctypes
import os

import torch

from .._backend import backend_for, on_device, ptr, stream_of
from . import NotSupportedHere
from .sm90_kgrouped import balanced_walk, group_order_by_rows, k_grouped_bf16_gemm_tn_contiguous  # noqa: F401

_BF16 = torch.bfloat16


def _lib(device: torch.device, entry: str):
    b = backend_for(device)
    if not b.has(entry):
        raise NotSupportedHere(f"backend {b.name} for {device} has no {entry}")
    return b.lib


def _clamp_arg(activation_clamp) -> ctypes.c_float:
    """The kernels take c <= 0 as 'no clamp'; a non-positive clamp is not theirs to compute."""
    if activation_clamp is None:
        return ctypes.c_float(0.0)
    c = float(activation_clamp)
    if not c > 0.0:
        raise NotSupportedHere(f"activation_clamp must be positive (got {activation_clamp!r})")
    return ctypes.c_float(c)


def _check_moe(x, topk_idx, topk_weights, w13, w2, precision):
    if precision != "bf16":
        raise NotSupportedHere(f"precision={precision!r}: the sm90 MoE kernels are bf16 only so far")
    if x.device.type != "cuda":
        raise NotSupportedHere("CPU tensors")
    if x.dtype != _BF16 or w13.dtype != _BF16 or w2.dtype != _BF16:
        raise NotSupportedHere("x, w13 and w2 must be bfloat16")
    if x.dim() != 2 or w13.dim() != 3 or w2.dim() != 3 or topk_idx.dim() != 2:
        raise NotSupportedHere("unexpected ranks")
    T, H = x.shape
    K = topk_idx.shape[1]
    E, I2, H1 = w13.shape
    I = I2 // 2
    if H1 != H or tuple(w2.shape) != (E, H, I):
        raise NotSupportedHere("shape mismatch between x, w13 and w2")
    if H % 64 or I % 128:
        raise NotSupportedHere(f"needs H % 64 == 0 and I % 128 == 0 (H={H}, I={I})")
    if not (1 <= K <= 64) or E > 1024:
        raise NotSupportedHere(f"needs 1 <= K <= 64 and E <= 1024 (K={K}, E={E})")
    if T * K >= 2**31:
        raise NotSupportedHere("too many pairs")
    return T, H, K, E, I


def _variant(op: str) -> ctypes.c_int:
    """Kernel variant per op (0 = the library's default, 1 = cooperative, 2 = ping-pong, 3 = cooperative
    with the staged epilogue: output tile through shared memory + bulk-copy stores overlapping the next
    tile's MMAs, for GEMM2 / DX / GEMM; for DH, 3 = cooperative 128 x 256 tiles with z loaded in the
    epilogue, 4 / 5 = 128 x 256 with the SwiGLU backward in three / two epilogue warps of the producer
    warpgroup overlapping the next tile's MMAs (dA through shared memory as bf16), 8 / 9 = 4 / 5 with z
    prefetched into L1, 10 (+ 32 only; the default where I % 256 == 0) = 8 with a fourth warpgroup of
    epilogue warps and the whole producer warpgroup gathering; for GEMM1, 4 = staged with 128 x (96 + 96) tiles
    (+ 64, z's full tiles stored by TMA), 5 = the same tiles with the SwiGLU and the z / h stores in a fourth
    warpgroup of epilogue warps (the default where I % 96 == 0); for GEMM2 / DX / GEMM, 4 = ping-pong
    128 x 192 staged per warp (the default for the contiguous layout at N >= 1536; with MN-major B, as DX, on a
    card with five HBM stacks (H100) 3 + 32 + 64 instead); + 16 on a cooperative or
    staged variant: the same in 2-CTA clusters (pairs of m-tiles sharing the weight tile by multicast, an odd last
    m-tile split over two n-blocks), measured slower, opt-in; + 32
    (GEMM1 4, DH 4/5/8/9/10, GEMM2/DX/GEMM 1/3 with TMA-loaded A): the consumers release each stage after
    wgmma.wait_group 0 (the default form for DH and DX); for WGRAD, the k-grouped pipeline ids of
    sm90_kgrouped.VARIANTS), overridable for benchmarking with PK_SM90_VARIANT_<OP> (OP in GEMM1, GEMM2,
    DH, DX, GEMM, WGRAD)."""
    return ctypes.c_int(int(os.environ.get(f"PK_SM90_VARIANT_{op}", "0")))


def _combine_mode() -> str:
    """How GEMM 2's rows reach y: "gather" (default; contiguous o + deterministic gather-sum kernel) or
    "scatter" (GEMM 2's epilogue adds w * row into an fp32 y with atomics; see moe_forward)."""
    mode = os.environ.get("PK_MOE_COMBINE", "gather").strip().lower() or "gather"
    if mode not in ("gather", "scatter"):
        raise ValueError(f"PK_MOE_COMBINE must be 'gather' or 'scatter', got {mode!r}")
    return mode


def _a_tma() -> ctypes.c_int:
    """How the m-grouped GEMM loads contiguous A rows: PK_SM90_A_LOAD=tma (default: one TMA box per
    tile when A is dense and aligned) or cp_async (128 producer threads, the gather path; for A/B)."""
    mode = os.environ.get("PK_SM90_A_LOAD", "tma").strip().lower() or "tma"
    if mode not in ("tma", "cp_async"):
        raise ValueError(f"PK_SM90_A_LOAD must be 'tma' or 'cp_async', got {mode!r}")
    return ctypes.c_int(int(mode == "tma"))


def _c(t: torch.Tensor) -> torch.Tensor:
    return t if t.is_contiguous() else t.contiguous()


def _m_grouped(lib, a, lda, a_index, topk, b, b_mn_major, num_groups, n, k, group_mode, sizes, max_m,
               max_rows, out, ld_out, dev, variant=None, out_rows=None):
    lib.call("pk_sm90_m_grouped_gemm_bf16", ptr(a), ctypes.c_int64(lda), ptr(a_index), ctypes.c_int(topk),
             ptr(b), ctypes.c_int(b_mn_major), ctypes.c_int(num_groups), ctypes.c_int(n), ctypes.c_int(k),
             ctypes.c_int(group_mode), ptr(sizes), ctypes.c_int(max_m), ctypes.c_int64(max_rows), ptr(out),
             ctypes.c_int64(ld_out), ptr(out_rows), variant if variant is not None else _variant("GEMM"),
             _a_tma(), stream_of(dev))


def moe_forward(x, topk_idx, topk_weights, w13, w2, routing, activation_clamp, precision):
    T, H, K, E, I = _check_moe(x, topk_idx, topk_weights, w13, w2, precision)
    dev = x.device
    _, offsets, sorted_pair, pair_to_sorted = routing
    n = T * K
    z = torch.empty(n, 2 * I, dtype=_BF16, device=dev)
    if n == 0:
        return torch.empty(T, H, dtype=_BF16, device=dev), z
    lib = _lib(dev, "pk_sm90_moe_gemm1_swiglu")
    scatter = _combine_mode() == "scatter"
    if scatter:
        _lib(dev, "pk_sm90_moe_gemm2_scatter")  # an older library without it: say so, do not fall back
    x, w13, w2 = _c(x), _c(w13), _c(w2)
    h = torch.empty(n, I, dtype=_BF16, device=dev)
    with on_device(dev):
        s = stream_of(dev)
        # GEMM 1 goes first; what only GEMM 2 and the combine need (y included) is prepared while it runs
        # (the routing kernel before it takes ~15 µs, so host work here is GPU idle time).
        lib.call("pk_sm90_moe_gemm1_swiglu", ptr(x), ctypes.c_int64(T), ctypes.c_int(H), ctypes.c_int(K),
                 ptr(sorted_pair), ptr(offsets), ctypes.c_int(E), ptr(w13), ctypes.c_int(I), ptr(z), ptr(h),
                 _clamp_arg(activation_clamp), _variant("GEMM1"), s)
        y = torch.empty(T, H, dtype=_BF16, device=dev)
        tw = _c(topk_weights.to(torch.float32))
        o = None if scatter else torch.empty(n, H, dtype=_BF16, device=dev)
        if scatter:
            # GEMM 2 adds w * row straight into the token's fp32 row (atomics), then one rounding to bf16.
            y32 = torch.zeros(T, H, dtype=torch.float32, device=dev)
            lib.call("pk_sm90_moe_gemm2_scatter", ptr(h), ctypes.c_int64(T), ctypes.c_int(H), ctypes.c_int(K),
                     ptr(sorted_pair), ptr(offsets), ctypes.c_int(E), ptr(w2), ctypes.c_int(I), ptr(tw), ptr(y32),
                     _variant("GEMM2"), s)
            y.copy_(y32)
        else:
            _m_grouped(lib, h, I, None, 1, w2, 0, E, H, I, 0, offsets, 0, n, o, H, dev, _variant("GEMM2"))
            lib.call("pk_sm90_token_combine", ptr(o), ctypes.c_int(H), ctypes.c_int64(T), ctypes.c_int(K),
                     ptr(pair_to_sorted), ptr(tw), ptr(y), ptr(None), ctypes.c_int(0), ptr(None), s)
    return y, z


def _wgrad_torch(a, a_rows, b, b_rows, offsets, out):
    """Fallback k-grouped weight gradient (host-synchronising loop): out[g] = sum a[ra]^T b[rb] (fp32)."""
    off = [int(v) for v in offsets.tolist()]
    out.zero_()
    for g in range(len(off) - 1):
        lo, hi = off[g], off[g + 1]
        if lo == hi:
            continue
        aa = a[a_rows[lo:hi].long()] if a_rows is not None else a[lo:hi]
        bb = b[b_rows[lo:hi].long()] if b_rows is not None else b[lo:hi]
        out[g] = aa.float().T @ bb.float()
    return out


def _wgrad_grouped_mm(a, a_rows, b, b_rows, offsets, out):
    """torch._grouped_mm k-grouped form (rows gathered into copies first): out[g] = A_g^T B_g (fp32)."""
    aa = a[a_rows.clamp(min=0).long()] if a_rows is not None else a
    bb = b[b_rows.clamp(min=0).long()] if b_rows is not None else b
    offs = offsets[1:]
    try:
        res = torch._grouped_mm(aa.t(), bb, offs=offs, out_dtype=torch.float32)
    except (RuntimeError, TypeError):
        res = torch._grouped_mm(aa.t(), bb, offs=offs).float()
    out.copy_(res)
    return out


def _wgrad(a, a_rows, b, b_rows, offsets, out, accumulate=False, group_order=None):
    """out (fp32 or bf16) (+)= the k-grouped weight gradient; the native kernel writes either dtype
    and accumulates in place (its tiles walked in a balanced order given group_order, see
    k_grouped_wgrad); the fallbacks go through an fp32 temporary."""
    mode = os.environ.get("PK_MOE_WGRAD", "native")
    if mode not in ("grouped_mm", "torch"):
        try:
            from .sm90_kgrouped import k_grouped_wgrad
            return k_grouped_wgrad(a, a_rows, b, b_rows, offsets, out, accumulate=accumulate,
                                   _variant=_variant("WGRAD").value, _group_order=group_order)
        except (ImportError, NotSupportedHere):
            pass
    tmp = torch.empty(out.shape, dtype=torch.float32, device=out.device)
    if mode == "grouped_mm" and hasattr(torch, "_grouped_mm"):
        _wgrad_grouped_mm(a, a_rows, b, b_rows, offsets, tmp)
    else:
        _wgrad_torch(a, a_rows, b, b_rows, offsets, tmp)
    return out.add_(tmp) if accumulate else out.copy_(tmp)


def _wgrad_target(shape, wgrad_dtype, acc, name, dev):
    """(function giving the tensor the weight gradient goes to, accumulate?): the fp32 accumulator when
    given, else a new fp32 (wgrad_dtype None) or bf16 tensor, allocated only when the function is called
    (just before its kernel: see moe_backward). Bad arguments raise here, before any launch."""
    if acc is not None:
        if acc.dtype != torch.float32 or tuple(acc.shape) != shape or not acc.is_contiguous() or acc.device != dev:
            raise NotSupportedHere(f"{name} must be a contiguous float32 {list(shape)} tensor on {dev}")
        return (lambda: acc), True
    if wgrad_dtype not in (None, torch.float32, _BF16):
        raise NotSupportedHere(f"wgrad_dtype {wgrad_dtype}: the kernels write float32 or bfloat16")
    return (lambda: torch.empty(shape, dtype=wgrad_dtype or torch.float32, device=dev)), False


def moe_backward(dy, x, topk_idx, topk_weights, w13, w2, routing, z_sorted, activation_clamp, precision,
                 wgrad_dtype=None, grad_acc_w13=None, grad_acc_w2=None):
    """dH (+ SwiGLU backward), dX, the combine (dx, d(topk_weights)), dW1, dW2. Each temporary is dropped
    once its last reader is queued, and each weight gradient is allocated just before its kernel, so the
    peak holds dz, hw and dx_sorted or the gradients, never all of them (the caching allocator reuses
    the memory in stream order): 235B bf16, ~1.5 GiB less than allocating everything up front."""
    T, H, K, E, I = _check_moe(x, topk_idx, topk_weights, w13, w2, precision)
    dev = x.device
    _, offsets, sorted_pair, pair_to_sorted = routing
    n = T * K
    f32 = dict(dtype=torch.float32, device=dev)
    new_dw13, acc13 = _wgrad_target((E, 2 * I, H), wgrad_dtype, grad_acc_w13, "grad_acc_w13", dev)
    new_dw2, acc2 = _wgrad_target((E, H, I), wgrad_dtype, grad_acc_w2, "grad_acc_w2", dev)
    dx = torch.empty(T, H, dtype=_BF16, device=dev)
    dtw = torch.empty(T, K, **f32)
    if n == 0:
        dw13, dw2 = new_dw13(), new_dw2()
        return dx, dw13 if acc13 else dw13.zero_(), dw2 if acc2 else dw2.zero_(), dtw
    if dy.dtype != _BF16:
        raise NotSupportedHere("dy must be bfloat16")
    lib = _lib(dev, "pk_sm90_moe_dh_swiglu_bwd")
    dy, x, w13, w2, z_sorted = _c(dy), _c(x), _c(w13), _c(w2), _c(z_sorted)
    tw = _c(topk_weights.to(torch.float32))
    dz = torch.empty(n, 2 * I, dtype=_BF16, device=dev)
    hw = torch.empty(n, I, dtype=_BF16, device=dev)
    parts = I // 128
    part = torch.empty(n, parts, **f32)
    with on_device(dev):
        s = stream_of(dev)
        lib.call("pk_sm90_moe_dh_swiglu_bwd", ptr(dy), ctypes.c_int64(T), ctypes.c_int(H), ctypes.c_int(K),
                 ptr(sorted_pair), ptr(offsets), ctypes.c_int(E), ptr(w2), ctypes.c_int(I), ptr(z_sorted),
                 ptr(tw), ptr(dz), ptr(hw), ptr(part), _clamp_arg(activation_clamp), _variant("DH"), s)
        dxs = torch.empty(n, H, dtype=_BF16, device=dev)
        _m_grouped(lib, dz, 2 * I, None, 1, w13, 1, E, H, 2 * I, 0, offsets, 0, n, dxs, H, dev, _variant("DX"))
        lib.call("pk_sm90_token_combine", ptr(dxs), ctypes.c_int(H), ctypes.c_int64(T), ctypes.c_int(K),
                 ptr(pair_to_sorted), ptr(None), ptr(dx), ptr(part), ctypes.c_int(parts), ptr(dtw), s)
    del dxs, part
    tok = torch.div(sorted_pair, K, rounding_mode="floor").to(torch.int32)
    order = group_order_by_rows(offsets) if balanced_walk() else None
    dw13 = new_dw13()
    _wgrad(dz, None, x, tok, offsets, dw13, acc13, order)
    del dz
    dw2 = new_dw2()
    _wgrad(dy, tok, hw, None, offsets, dw2, acc2, order)
    return dx, dw13, dw2, dtw


# ---- public bf16 m-grouped GEMMs (DeepGEMM names; semantics in deep_gemm/reference/gemm.py) --------

def _gemm_lib(a: torch.Tensor):
    if a.device.type != "cuda":
        raise NotSupportedHere("CPU tensors")
    return _lib(a.device, "pk_sm90_m_grouped_gemm_bf16")


_MAX_GROUPS = 1024  # scheduler's shared-memory tables (csrc/sm90/scheduler.cuh kMaxGroups)


def _check_gemm_dims(d, k: int, n: int, mn_major: bool, groups: int = 1):
    if groups > _MAX_GROUPS:
        raise NotSupportedHere(f"more than {_MAX_GROUPS} groups ({groups})")
    if d.dtype != _BF16:
        raise NotSupportedHere("the sm90 grouped GEMM writes bf16 d only (fp32 d: reference)")
    if k % 64 or k == 0:
        raise NotSupportedHere(f"K must be a positive multiple of 64, got {k}")
    if n % (64 if mn_major else 8) or n == 0:
        raise NotSupportedHere(f"N must be a multiple of {64 if mn_major else 8}, got {n}")


def _m_contiguous(a, b, d, grouped_layout, use_psum_layout, mn_major: bool):
    lib = _gemm_lib(a)
    M, K = a.shape
    G = b.shape[0]
    N = b.shape[2] if mn_major else b.shape[1]
    _check_gemm_dims(d, K, N, mn_major, G)
    if not (a.is_contiguous() and b.is_contiguous() and d.is_contiguous()):
        raise NotSupportedHere("non-contiguous operands")
    if M == 0:
        return
    dev = a.device
    with on_device(dev):
        if use_psum_layout:
            from ..reference.gemm import _mk_alignment
            _m_grouped(lib, a, K, None, 1, b, int(mn_major), G, N, K, 2, grouped_layout, int(_mk_alignment()), M,
                       d, N, dev)
        else:
            # m_indices (group of each row, -1 = padding): sort rows by group on the GPU (the MoE
            # routing kernel with K = 1), gather A rows in the load and scatter D rows in the store.
            from ..routing import moe_routing
            r = moe_routing(grouped_layout.view(M, 1), G, validate=False)
            _m_grouped(lib, a, K, r.sorted_pair, 1, b, int(mn_major), G, N, K, 0, r.offsets, 0, M, d, N, dev,
                       out_rows=r.sorted_pair)


def m_grouped_bf16_gemm_nt_contiguous(a, b, d, grouped_layout, compiled_dims="nk", use_psum_layout=False,
                                      ensure_zero_padding=True, expected_m_for_psum_layout=None):
    _m_contiguous(a, b, d, grouped_layout, use_psum_layout, mn_major=False)


def m_grouped_bf16_gemm_nn_contiguous(a, b, d, grouped_layout, compiled_dims="nk", use_psum_layout=False,
                                      ensure_zero_padding=True):
    _m_contiguous(a, b, d, grouped_layout, use_psum_layout, mn_major=True)


def m_grouped_bf16_gemm_nt_masked(a, b, d, masked_m, expected_m, compiled_dims="nk"):
    lib = _gemm_lib(a)
    G, M, K = a.shape
    N = b.shape[1]
    _check_gemm_dims(d, K, N, False, G)
    if not (a.is_contiguous() and b.is_contiguous() and d.is_contiguous()):
        raise NotSupportedHere("non-contiguous operands")
    if M == 0:
        return
    with on_device(a.device):
        _m_grouped(lib, a, K, None, 1, b, 0, G, N, K, 1, masked_m, M, G * M, d, N, a.device)
