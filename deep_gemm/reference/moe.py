"""Reference Mega MoE forward and backward: the contract the fused kernels are tested against.

Shapes: T tokens, K slots per token, E experts, H hidden, I intermediate. x [T, H];
topk_idx [T, K] (int64/int32, -1 = masked slot); topk_weights [T, K] fp32; w13 = gate_up_proj
[E, 2I, H] (rows 0..I-1 = gate, rows I..2I-1 = up); w2 = down_proj [E, H, I]; routing = the four
tensors of deep_gemm.moe_routing (counts, offsets, sorted_pair, pair_to_sorted), any 4-sequence.

Forward, for each valid pair p = t*K + k with e = topk_idx[t, k] (in expert-sorted order):

    z_p = x[t] @ W1[e]^T                      fp32 accumulation, stored rounded to x.dtype in z_sorted
    g, u = z_p[:I], z_p[I:]                   (read back from the rounded z)
    g = min(g, c); u = clamp(u, -c, c)         only when activation_clamp c is not None
    h_p = silu(g) * u                         fp32
    o_p = op(h_p) @ W2[e]^T                   fp32 accumulation
    y[t] = round(sum_k topk_weights[t, k] * o_p)    (fp32 sum, rounded once to x.dtype)

op(v) is the GEMM operand: round to x.dtype in bf16 mode, the FP8 quantize-dequantize of
deep_gemm.reference.quant in fp8/mxfp8 mode (quantized from the fp32 value).

Backward (dy [T, H]; everything recomputed from z_sorted, nothing else is saved):

    dh_raw_p = op(dy[t]) @ op(W2[e])          [I], reduction over H
    dtopk_weights[t, k] = <dh_raw_p, round(h_p)>   (round = to x.dtype)
    dh_p  = topk_weights[t, k] * dh_raw_p
    dg = dh * u * silu'(g) * [g_raw <= c];  du = dh * silu(g) * [|u_raw| <= c]   (g, u clamped)
    dz_p  = [dg, du]                           fp32
    dx[t] = round(sum_k op(dz_p) @ op(W1[e]))  reduction over 2I
    dW1[e] = sum_p op_tok(dz_p)^T op_tok(x[t])               fp32
    dW2[e] = sum_p op_tok(dy[t])^T op_tok(topk_weights[t,k] * h_p)   fp32

op_tok quantizes along the token (reduction) dimension in blocks that start at each expert's first
row (fp8: 128x1, mxfp8: 32x1); in bf16 mode it rounds to x.dtype. Masked slots contribute nothing
and get dtopk_weights = 0; experts with no tokens get zero weight gradients.

Precision -> quantization of the GEMM operands (see deep_gemm.reference.quant for the arithmetic):

    bf16     none (operands rounded to x.dtype, fp32 accumulation)
    fp8      forward and backward: activations / gradients 1x128 (fp32 scales) along the reduction
             dim, weights 128x128 blocks (fp32 scales), token-dim operands 128x1 per expert group
    mxfp8    forward and backward: every operand 1x32 along its reduction dim, UE8M0 scales
    fp8_bwd  forward as bf16, backward as fp8

float32/float64 inputs are accepted (reference only) and then everything is computed in float64
for float64 inputs, which is what torch.autograd.gradcheck uses.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F

from .quant import qdq

PRECISIONS = ("bf16", "fp8", "mxfp8", "fp8_bwd")


def _acc(x: torch.Tensor) -> torch.dtype:
    return torch.float64 if x.dtype == torch.float64 else torch.float32


def _scheme(precision: str, phase: str) -> str | None:
    """None (plain), 'fp8' (blockwise, fp32 scales) or 'mx' (1x32 UE8M0) for a phase."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}; got {precision!r}")
    if precision == "mxfp8":
        return "mx"
    if precision == "fp8" or (precision == "fp8_bwd" and phase == "bwd"):
        return "fp8"
    return None


def op_act(t: torch.Tensor, scheme: str | None, dtype: torch.dtype, acc: torch.dtype) -> torch.Tensor:
    """Operand whose reduction dim is its last dim (activations, gradients): per-token blocks."""
    if scheme is None:
        return t.to(dtype).to(acc)
    return qdq(t, 1, 128 if scheme == "fp8" else 32, scheme == "mx").to(acc)


def op_weight(w: torch.Tensor, scheme: str | None, reduce_dim: int, acc: torch.dtype) -> torch.Tensor:
    """A weight [E, R, C] reduced over dim reduce_dim (-1 or -2). fp8: 128x128 blocks either way;
    mx: 1x32 blocks along the reduction dim."""
    if scheme is None:
        return w.to(acc)
    if scheme == "fp8":
        return qdq(w, 128, 128, False).to(acc)
    return (qdq(w, 1, 32, True) if reduce_dim == -1 else qdq(w, 32, 1, True)).to(acc)


def op_tok(t: torch.Tensor, scheme: str | None, dtype: torch.dtype, acc: torch.dtype) -> torch.Tensor:
    """Operand reduced over its rows (tokens of one expert group): blocks run down the rows."""
    if scheme is None:
        return t.to(dtype).to(acc)
    return qdq(t, 128 if scheme == "fp8" else 32, 1, scheme == "mx").to(acc)


def swiglu(z: torch.Tensor, activation_clamp: float | None):
    """z [n, 2I] -> (h, g_clamped, u_clamped, g_ok, u_ok) in z's dtype."""
    i = z.shape[-1] // 2
    g, u = z[..., :i], z[..., i:]
    if activation_clamp is None:
        g_ok = u_ok = None
    else:
        c = float(activation_clamp)
        g_ok, u_ok = g <= c, u.abs() <= c
        g, u = g.clamp(max=c), u.clamp(-c, c)
    return F.silu(g) * u, g, u, g_ok, u_ok


def _unpack(routing):
    counts, offsets, sorted_pair, pair_to_sorted = routing
    return counts, offsets, sorted_pair, pair_to_sorted


def _bounds(offsets: torch.Tensor) -> list[int]:
    return [int(v) for v in offsets.tolist()]


def _per_expert_matmul(rows: torch.Tensor, weights: torch.Tensor, off: list[int], out_cols: int,
                       transpose: bool) -> torch.Tensor:
    """out[off[e]:off[e+1]] = rows[...] @ (weights[e].T if transpose else weights[e]) per expert."""
    out = torch.empty(rows.shape[0], out_cols, dtype=rows.dtype, device=rows.device)
    for e in range(len(off) - 1):
        a, b = off[e], off[e + 1]
        if a < b:
            out[a:b] = rows[a:b] @ (weights[e].T if transpose else weights[e])
    return out


def moe_forward(x, topk_idx, topk_weights, w13, w2, routing, activation_clamp, precision):
    """Returns (y [T, H] x.dtype, z_sorted [T*K, 2I] x.dtype); see the module docstring."""
    T, H = x.shape
    K = topk_idx.shape[1]
    E, I2, _ = w13.shape
    acc = _acc(x)
    _, offsets, sorted_pair, _ = _unpack(routing)
    off = _bounds(offsets)
    n = off[E]
    z_sorted = x.new_zeros(T * K, I2)
    y = torch.zeros(T, H, dtype=acc, device=x.device)
    if n == 0:
        return y.to(x.dtype), z_sorted
    s = _scheme(precision, "fwd")
    pairs = sorted_pair[:n].long()
    tok = pairs // K
    xs = op_act(x, s, x.dtype, acc)[tok]
    w13o = op_weight(w13, s, -1, acc)
    z = _per_expert_matmul(xs, w13o, off, I2, transpose=True)
    z_sorted[:n] = z.to(x.dtype)
    h = swiglu(z_sorted[:n].to(acc), activation_clamp)[0]
    hs = op_act(h, s, x.dtype, acc)
    w2o = op_weight(w2, s, -1, acc)
    o = _per_expert_matmul(hs, w2o, off, H, transpose=True)
    w = topk_weights.reshape(-1)[pairs].to(acc)
    y.index_add_(0, tok, o * w[:, None])
    return y.to(x.dtype), z_sorted


def _weight_grads_out(dw13, dw2, wgrad_dtype, grad_acc_w13, grad_acc_w2):
    """How the weight gradients leave moe_backward (both backends): added in place into the fp32
    accumulators when given (those are returned), else rounded once to wgrad_dtype (None: as computed)."""
    out = []
    for dw, acc in ((dw13, grad_acc_w13), (dw2, grad_acc_w2)):
        if acc is not None:
            out.append(acc.add_(dw.to(acc.dtype)))
        else:
            out.append(dw if wgrad_dtype is None else dw.to(wgrad_dtype))
    return out


def moe_backward(dy, x, topk_idx, topk_weights, w13, w2, routing, z_sorted, activation_clamp, precision,
                 wgrad_dtype=None, grad_acc_w13=None, grad_acc_w2=None):
    """Returns (dx [T, H] x.dtype, dw13 [E, 2I, H], dw2 [E, H, I], dtopk_weights [T, K] fp32)
    (float64 everywhere for float64 inputs); see the module docstring. The weight gradients are
    computed in fp32 and returned as fp32 (wgrad_dtype None), rounded once to wgrad_dtype (e.g. the
    bf16 parameters' dtype), or added into grad_acc_w13 / grad_acc_w2 (fp32, in place; then those
    are what is returned)."""
    T, H = x.shape
    K = topk_idx.shape[1]
    E, I2, _ = w13.shape
    acc = _acc(x)
    dev = x.device
    _, offsets, sorted_pair, _ = _unpack(routing)
    off = _bounds(offsets)
    n = off[E]
    dx = torch.zeros(T, H, dtype=acc, device=dev)
    dw13 = torch.zeros(E, I2, H, dtype=acc, device=dev)
    dw2 = torch.zeros(E, H, I2 // 2, dtype=acc, device=dev)
    dtw = torch.zeros(T * K, dtype=acc, device=dev)
    if n == 0:
        return (dx.to(x.dtype), *_weight_grads_out(dw13, dw2, wgrad_dtype, grad_acc_w13, grad_acc_w2),
                dtw.view(T, K))
    s = _scheme(precision, "bwd")
    pairs = sorted_pair[:n].long()
    tok = pairs // K
    w = topk_weights.reshape(-1)[pairs].to(acc)

    h, g, u, g_ok, u_ok = swiglu(z_sorted[:n].to(acc), activation_clamp)
    h_r = h.to(x.dtype).to(acc)
    dy_op = op_act(dy, s, x.dtype, acc)[tok]
    w2o = op_weight(w2, s, -2, acc)
    dh_raw = _per_expert_matmul(dy_op, w2o, off, I2 // 2, transpose=False)
    dtw[pairs] = (dh_raw * h_r).sum(-1)
    dh = dh_raw * w[:, None]
    sig = torch.sigmoid(g)
    dg = dh * u * (sig * (1 + g * (1 - sig)))
    du = dh * (g * sig)
    if g_ok is not None:
        dg = dg * g_ok
        du = du * u_ok
    dz = torch.cat([dg, du], dim=-1)

    dz_op = op_act(dz, s, x.dtype, acc)
    w13o = op_weight(w13, s, -2, acc)
    dxs = torch.empty(n, H, dtype=acc, device=dev)
    xs = x[tok]
    dys = dy[tok]
    hw = h * w[:, None]
    for e in range(E):
        a, b = off[e], off[e + 1]
        if a == b:
            continue
        dxs[a:b] = dz_op[a:b] @ w13o[e]
        dw13[e] = op_tok(dz[a:b], s, x.dtype, acc).T @ op_tok(xs[a:b], s, x.dtype, acc)
        dw2[e] = op_tok(dys[a:b], s, x.dtype, acc).T @ op_tok(hw[a:b], s, x.dtype, acc)
    dx.index_add_(0, tok, dxs)
    return (dx.to(x.dtype), *_weight_grads_out(dw13, dw2, wgrad_dtype, grad_acc_w13, grad_acc_w2),
            dtw.view(T, K))


def moe_forward_simple(x, topk_idx, topk_weights, w13, w2, activation_clamp=None, z_dtype=None):
    """The textbook definition (per-slot loop, float64), independent of routing metadata: used by
    the tests as ground truth. Returns y in float64. z_dtype: round the GEMM-1 output to this dtype
    (as z_sorted is stored) before the activation; differentiable (the rounding passes gradients)."""
    x64, tw = x.double(), topk_weights.double()
    w13, w2 = w13.double(), w2.double()
    T, H = x.shape
    y = torch.zeros(T, H, dtype=torch.float64, device=x.device)
    E = w13.shape[0]
    for k in range(topk_idx.shape[1]):
        e_k = topk_idx[:, k].long()
        for e in range(E):
            sel = (e_k == e).nonzero().flatten()
            if sel.numel() == 0:
                continue
            z = x64[sel] @ w13[e].T
            if z_dtype is not None:
                z = z.to(z_dtype).double()
            h = swiglu(z, activation_clamp)[0]
            y.index_add_(0, sel, (h @ w2[e].T) * tw[sel, k, None])
    return y
