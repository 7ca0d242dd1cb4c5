"""The differentiable Mega MoE layer: `mega_moe(...)` and the `MegaMoE` module.

Path of one call: mega_moe (argument checks) -> moe_routing ->
prime_kernels::mega_moe_forward (custom op; fake impl; autograd registered) ->
kernels.call("moe_forward") = the arch's native kernel when the device has one, else
deep_gemm.reference.moe_forward. Backward: prime_kernels::mega_moe_backward ->
kernels.call("moe_backward"). Semantics: deep_gemm/reference/moe.py.
Eager calls (not torch.compile / export) run the same functions through _MegaMoEEager, a plain
autograd.Function: the custom ops' dispatch costs tens of µs of CPU per call, forward and backward.

Saved for backward: x, z_sorted (GEMM 1 pre-activation, [T*K, 2I]), topk_idx, topk_weights, the
routing metadata and the weights (parameters, no copy). y and h are never saved; the backward
recomputes h from z.
"""
from __future__ import annotations

from typing import Optional

import torch
from torch import nn

from . import kernels
from ._backend import backend_for
from ._checks import check_tensor, is_tracing
from .config import MOE_DIM_MULTIPLE, PRECISIONS, MoEDispatchConfig
from .routing import MoERouting, moe_routing

_REFERENCE_ONLY_DTYPES = (torch.float32, torch.float64)


def _dt(d: torch.dtype) -> str:
    return str(d).replace("torch.", "")


@torch.compiler.assume_constant_result
def _gpu_info(index: int) -> tuple:
    """(major, minor, description) of cuda:index; a constant to torch.compile (no graph break)."""
    major, minor = torch.cuda.get_device_capability(index)
    return major, minor, f"{torch.cuda.get_device_name(index)} (cuda:{index}, compute capability {major}.{minor})"


def check_precision(precision, device: torch.device) -> None:
    """ValueError when `precision` is unknown or the GPU of `device` cannot run it."""
    if not isinstance(precision, str) or precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(map(repr, PRECISIONS))}; got {precision!r}")
    if device.type != "cuda" or precision == "bf16":
        return
    index = device.index if device.index is not None else torch.cuda.current_device()
    major, _, gpu = _gpu_info(index)
    if precision == "mxfp8" and major != 10:
        raise ValueError(f"precision='mxfp8' (1x32 UE8M0 blocks) needs a Blackwell GPU (compute capability "
                         f"10.x); {gpu} cannot run it. Use precision='fp8' (Hopper blockwise FP8) or 'bf16'.")
    if precision in ("fp8", "fp8_bwd") and major not in (9, 10):
        raise ValueError(f"precision={precision!r} needs a Hopper or Blackwell GPU (compute capability 9.x "
                         f"or 10.x); {gpu} cannot run it. Use precision='bf16'.")


def _check_clamp(activation_clamp):
    if activation_clamp is None:
        return None
    if isinstance(activation_clamp, bool) or not isinstance(activation_clamp, (int, float)) \
            or not 0 < activation_clamp < float("inf"):   # (no math.isfinite: traced by torch.compile)
        raise ValueError(f"activation_clamp must be None or a positive finite number; got {activation_clamp!r}")
    return float(activation_clamp)


def check_moe_args(x, topk_idx, topk_weights, w13, w2, precision, activation_clamp):
    """All argument checks of mega_moe (no host reads of tensor data). Returns (T, K, E, H, I)."""
    check_tensor("x", x, ndim=2)
    dev = x.device
    ref_only = x.dtype in _REFERENCE_ONLY_DTYPES
    if x.dtype != torch.bfloat16:
        if not ref_only:
            check_tensor("x", x, dtypes=(torch.bfloat16,))
        if backend_for(dev).is_native:
            raise TypeError(f"x must have dtype bfloat16 on {dev} (the {backend_for(dev).name} kernels); "
                            f"got {_dt(x.dtype)} (float32/float64 run only on the reference backend)")
    T, H = x.shape
    check_tensor("topk_idx", topk_idx, dtypes=(torch.int64, torch.int32), ndim=2, device=dev)
    if topk_idx.shape[0] != T:
        raise ValueError(f"topk_idx must have shape [T, K] with T = x.shape[0] = {T}; got {list(topk_idx.shape)}")
    K = topk_idx.shape[1]
    tw_dtypes = (torch.float32, torch.float64) if x.dtype == torch.float64 else (torch.float32,)
    check_tensor("topk_weights", topk_weights, dtypes=tw_dtypes, shape=(T, K), device=dev)
    w_dtypes = (x.dtype, torch.float32) if x.dtype == torch.bfloat16 else (x.dtype,)
    check_tensor("w13", w13, dtypes=w_dtypes, ndim=3, device=dev)
    E, I2, H_ = w13.shape
    if H_ != H or I2 % 2:
        raise ValueError(f"w13 (gate_up_proj) must have shape [E, 2I, H] with H = x.shape[1] = {H}; "
                         f"got {list(w13.shape)}")
    if E == 0:
        raise ValueError("w13 must hold at least one expert (E = w13.shape[0] > 0)")
    I = I2 // 2
    check_tensor("w2", w2, dtypes=(w13.dtype,), shape=(E, H, I), device=dev)
    if not ref_only:
        m = MOE_DIM_MULTIPLE
        if H % m:
            raise ValueError(f"hidden size H = {H} (x.shape[1]) must be a multiple of {m} for the MoE kernels")
        if I % m:
            raise ValueError(f"intermediate size I = {I} (w2.shape[2], w13.shape[1] / 2) must be a multiple "
                             f"of {m} for the MoE kernels")
    check_precision(precision, dev)
    _check_clamp(activation_clamp)
    return T, K, E, H, I


# ---- custom ops -----------------------------------------------------------------------------

def _forward_call(x, topk_idx, topk_weights, w13, w2, counts, offsets, sorted_pair, pair_to_sorted,
                  activation_clamp, precision):
    routing = MoERouting(counts, offsets, sorted_pair, pair_to_sorted)
    return kernels.call("moe_forward", x.device, x, topk_idx, topk_weights, w13.to(x.dtype), w2.to(x.dtype),
                        routing, activation_clamp, precision)


@torch.library.custom_op("prime_kernels::mega_moe_forward", mutates_args=())
def _mega_moe_forward(x: torch.Tensor, topk_idx: torch.Tensor, topk_weights: torch.Tensor,
                      w13: torch.Tensor, w2: torch.Tensor, counts: torch.Tensor, offsets: torch.Tensor,
                      sorted_pair: torch.Tensor, pair_to_sorted: torch.Tensor,
                      activation_clamp: Optional[float], precision: str,
                      grad_acc_w13: Optional[torch.Tensor] = None,
                      grad_acc_w2: Optional[torch.Tensor] = None) -> tuple[torch.Tensor, torch.Tensor]:
    return _forward_call(x, topk_idx, topk_weights, w13, w2, counts, offsets, sorted_pair, pair_to_sorted,
                         activation_clamp, precision)


@_mega_moe_forward.register_fake
def _(x, topk_idx, topk_weights, w13, w2, counts, offsets, sorted_pair, pair_to_sorted,
      activation_clamp, precision, grad_acc_w13=None, grad_acc_w2=None):
    T, H = x.shape
    return x.new_empty(T, H), x.new_empty(T * topk_idx.shape[1], w13.shape[1])


_WGRAD_DTYPES = {"bfloat16": torch.bfloat16, "float32": torch.float32, "float64": torch.float64}


def _backward_call(dy, x, topk_idx, topk_weights, w13, w2, counts, offsets, sorted_pair, pair_to_sorted, z_sorted,
                   activation_clamp, precision, wgrad_dtype, grad_acc_w13=None, grad_acc_w2=None):
    routing = MoERouting(counts, offsets, sorted_pair, pair_to_sorted)
    return kernels.call("moe_backward", x.device, dy, x, topk_idx, topk_weights, w13.to(x.dtype), w2.to(x.dtype),
                        routing, z_sorted, activation_clamp, precision, _WGRAD_DTYPES[wgrad_dtype],
                        grad_acc_w13, grad_acc_w2)


@torch.library.custom_op("prime_kernels::mega_moe_backward", mutates_args=())
def _mega_moe_backward(dy: torch.Tensor, x: torch.Tensor, topk_idx: torch.Tensor, topk_weights: torch.Tensor,
                       w13: torch.Tensor, w2: torch.Tensor, counts: torch.Tensor, offsets: torch.Tensor,
                       sorted_pair: torch.Tensor, pair_to_sorted: torch.Tensor, z_sorted: torch.Tensor,
                       activation_clamp: Optional[float], precision: str, wgrad_dtype: str = "float32"
                       ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """(dx, dw13, dw2, dtopk_weights); the weight gradients in wgrad_dtype (the parameters' dtype:
    written so by the kernel, no fp32 copy and no cast pass)."""
    return tuple(_backward_call(dy, x, topk_idx, topk_weights, w13, w2, counts, offsets, sorted_pair,
                                pair_to_sorted, z_sorted, activation_clamp, precision, wgrad_dtype))


@_mega_moe_backward.register_fake
def _(dy, x, topk_idx, topk_weights, w13, w2, counts, offsets, sorted_pair, pair_to_sorted, z_sorted,
      activation_clamp, precision, wgrad_dtype="float32"):
    acc = torch.float64 if x.dtype == torch.float64 else torch.float32
    wd = _WGRAD_DTYPES[wgrad_dtype]
    E, I2, H = w13.shape
    return (torch.empty_like(x), x.new_empty(E, I2, H, dtype=wd), x.new_empty(E, H, I2 // 2, dtype=wd),
            x.new_empty(topk_idx.shape, dtype=acc))


@torch.library.custom_op("prime_kernels::mega_moe_backward_accumulate", mutates_args=("grad_acc_w13", "grad_acc_w2"))
def _mega_moe_backward_accumulate(dy: torch.Tensor, x: torch.Tensor, topk_idx: torch.Tensor,
                                  topk_weights: torch.Tensor, w13: torch.Tensor, w2: torch.Tensor,
                                  counts: torch.Tensor, offsets: torch.Tensor, sorted_pair: torch.Tensor,
                                  pair_to_sorted: torch.Tensor, z_sorted: torch.Tensor,
                                  activation_clamp: Optional[float], precision: str, grad_acc_w13: torch.Tensor,
                                  grad_acc_w2: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(dx, dtopk_weights); the weight gradients are added in place into the fp32 accumulators (by the
    kernel itself on the GPU: no fp32 temporary and no add pass)."""
    dx, _, _, dtw = _backward_call(dy, x, topk_idx, topk_weights, w13, w2, counts, offsets, sorted_pair,
                                   pair_to_sorted, z_sorted, activation_clamp, precision, "float32",
                                   grad_acc_w13, grad_acc_w2)
    return dx, dtw


@_mega_moe_backward_accumulate.register_fake
def _(dy, x, topk_idx, topk_weights, w13, w2, counts, offsets, sorted_pair, pair_to_sorted, z_sorted,
      activation_clamp, precision, grad_acc_w13, grad_acc_w2):
    acc = torch.float64 if x.dtype == torch.float64 else torch.float32
    return torch.empty_like(x), x.new_empty(topk_idx.shape, dtype=acc)


def _setup_context(ctx, inputs, output):
    (x, topk_idx, topk_weights, w13, w2, counts, offsets, sorted_pair, pair_to_sorted,
     activation_clamp, precision, acc13, acc2) = inputs
    _, z_sorted = output
    # z_sorted is an output only so that the backward can have it; nothing downstream uses it, so its
    # gradient stays None (autograd would otherwise pass a zero-filled [T*K, 2I] tensor each backward).
    ctx.set_materialize_grads(False)
    ctx.save_for_backward(x, topk_idx, topk_weights, w13, w2, counts, offsets, sorted_pair,
                          pair_to_sorted, z_sorted)
    ctx.activation_clamp, ctx.precision = activation_clamp, precision
    ctx.accumulators = (acc13, acc2)


def _backward(ctx, dy, _dz):
    x, topk_idx, topk_weights, w13, w2, counts, offsets, sorted_pair, pair_to_sorted, z_sorted = ctx.saved_tensors
    if dy is None:
        dy = torch.zeros_like(x)
    acc13, acc2 = ctx.accumulators
    args = (dy.contiguous(), x, topk_idx, topk_weights, w13, w2, counts, offsets, sorted_pair, pair_to_sorted,
            z_sorted, ctx.activation_clamp, ctx.precision)
    wgrad_dtype = str(w13.dtype).removeprefix("torch.")
    if not ctx.custom_ops:  # eager (_MegaMoEEager): the same functions without the ops' dispatch
        dx, dw13, dw2, dtw = _backward_call(*args, "float32" if acc13 is not None else wgrad_dtype, acc13, acc2)
        if acc13 is not None:
            dw13 = dw2 = None
    elif acc13 is not None:  # fp32 main_grad accumulators (both or neither: mega_moe's argument)
        dx, dtw = _mega_moe_backward_accumulate(*args, acc13, acc2)
        dw13 = dw2 = None
    else:
        # in the parameters' dtype (bf16 parameters: bf16, rounded once from the fp32 accumulation)
        dx, dw13, dw2, dtw = _mega_moe_backward(*args, wgrad_dtype)
    return dx, None, dtw, dw13, dw2, None, None, None, None, None, None, None, None


def _setup_context_ops(ctx, inputs, output):
    _setup_context(ctx, inputs, output)
    ctx.custom_ops = True


_mega_moe_forward.register_autograd(_backward, setup_context=_setup_context_ops)


class _MegaMoEEager(torch.autograd.Function):
    """mega_moe in eager mode: the custom op's forward, setup and backward without its dispatch."""

    @staticmethod
    def forward(ctx, *inputs):
        y, z = _forward_call(*inputs[:11])
        _setup_context(ctx, inputs, (y, z))
        ctx.custom_ops = False
        ctx.mark_non_differentiable(z)
        return y, z

    @staticmethod
    def backward(ctx, dy, dz):
        return _backward(ctx, dy, dz)


# ---- public entry -----------------------------------------------------------------------------

def mega_moe(x: torch.Tensor, topk_idx: torch.Tensor, topk_weights: torch.Tensor, w13: torch.Tensor,
             w2: torch.Tensor, *, precision: str = "bf16", activation_clamp: float | None = None,
             routing: MoERouting | None = None, grad_accumulators: tuple | None = None,
             validate: bool = True) -> torch.Tensor:
    """y [T, H] = sum_k topk_weights[t,k] * W2[e] (silu(g) * u), g, u = split(W1[e] x[t]), e = topk_idx[t,k].

    x: bf16 [T, H] (float32/float64 accepted on the reference backend, for testing).
    topk_idx: int64 or int32 [T, K], -1 = masked slot. topk_weights: fp32 [T, K].
    w13: gate_up_proj [E, 2I, H] (gate rows then up rows), w2: down_proj [E, H, I], dtype of x, or fp32
        with bf16 x (fp32 master weights: the kernels get a bf16 copy made inside the op, and the
        weight gradients reach the fp32 parameters unrounded).
    precision: "bf16" | "fp8" (Hopper blockwise) | "mxfp8" (Blackwell 1x32) | "fp8_bwd" (bf16 fwd, fp8 bwd).
    activation_clamp: c clamps g to <= c and u to [-c, c] before silu(g) * u.
    routing: precomputed deep_gemm.moe_routing(topk_idx, E) (computed here when None).
    grad_accumulators: (acc_w13, acc_w2), fp32 tensors shaped like w13 and w2: the backward adds the
        fp32 weight gradients into them in place and leaves w13.grad / w2.grad untouched
        (Megatron-style `main_grad`; eager mode only: torch.compile cannot trace an in-place update
        in the backward). Without it, .grad has the parameter's dtype (fp32 for fp32 parameters).
    validate: check topk_idx is in [-1, E) (one host read; skipped under torch.compile / graph capture).

    Differentiable w.r.t. x, topk_weights, w13 and w2.
    """
    T, K, E, H, I = check_moe_args(x, topk_idx, topk_weights, w13, w2, precision, activation_clamp)
    activation_clamp = _check_clamp(activation_clamp)
    if grad_accumulators is not None:
        if not isinstance(grad_accumulators, (tuple, list)) or len(grad_accumulators) != 2:
            raise TypeError("grad_accumulators must be a pair (acc_w13, acc_w2) of fp32 tensors")
        acc_dt = (torch.float64,) if x.dtype == torch.float64 else (torch.float32,)
        check_tensor("grad_accumulators[0]", grad_accumulators[0], dtypes=acc_dt, shape=tuple(w13.shape),
                     device=x.device)
        check_tensor("grad_accumulators[1]", grad_accumulators[1], dtypes=acc_dt, shape=tuple(w2.shape),
                     device=x.device)
        acc13, acc2 = grad_accumulators
    else:
        acc13 = acc2 = None
    if routing is None:
        routing = moe_routing(topk_idx, E, validate=validate)
    else:
        if not isinstance(routing, tuple) or len(routing) != 4:
            raise TypeError("routing must be the MoERouting returned by deep_gemm.moe_routing(topk_idx, E)")
        n = topk_idx.numel()
        for name, t, size in zip(MoERouting._fields, routing, (E, E + 1, n, n)):
            check_tensor(f"routing.{name}", t, dtypes=(torch.int32,), shape=(size,), device=x.device)
    op = _mega_moe_forward if is_tracing(x) else _MegaMoEEager.apply
    y, _ = op(x, topk_idx, topk_weights, w13, w2, *routing, activation_clamp, precision, acc13, acc2)
    return y


class MegaMoE(nn.Module):
    """The routed experts of an MoE layer, computed by mega_moe.

    Parameters: gate_up_proj [E, 2I, H] (gate rows, then up rows: the Hugging Face transformers v5 /
    prime-rl layout) and down_proj [E, H, I]. forward(x [..., H], topk_idx [..., K], topk_weights [..., K])
    with N = x.numel() // H returns y shaped like x. The router stays outside (the model's own).

    fp32_grad_accumulation=True: the backward adds fp32 weight gradients into
    `gate_up_proj.main_grad` / `down_proj.main_grad` (fp32, created zeroed on first use; zero them
    after each optimizer step) instead of writing .grad.
    """

    def __init__(self, num_experts: int, hidden_size: int, intermediate_size: int, *,
                 precision: str = "bf16", activation_clamp: float | None = None,
                 fp32_grad_accumulation: bool = False, validate_routing: bool = True,
                 device=None, dtype: torch.dtype = torch.bfloat16):
        super().__init__()
        for name, v in (("num_experts", num_experts), ("hidden_size", hidden_size),
                        ("intermediate_size", intermediate_size)):
            if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
                raise ValueError(f"{name} must be a positive int; got {v!r}")
        MoEDispatchConfig(precision=precision, activation_clamp=activation_clamp)  # validates both
        self.num_experts, self.hidden_size, self.intermediate_size = num_experts, hidden_size, intermediate_size
        self.precision = precision
        self.activation_clamp = _check_clamp(activation_clamp)
        self.fp32_grad_accumulation = fp32_grad_accumulation
        self.validate_routing = validate_routing
        kw = dict(device=device, dtype=dtype)
        self.gate_up_proj = nn.Parameter(torch.empty(num_experts, 2 * intermediate_size, hidden_size, **kw))
        self.down_proj = nn.Parameter(torch.empty(num_experts, hidden_size, intermediate_size, **kw))
        self.reset_parameters()

    @classmethod
    def from_config(cls, config: MoEDispatchConfig, num_experts: int, hidden_size: int,
                    intermediate_size: int, **kwargs) -> "MegaMoE":
        """Build from a MoEDispatchConfig; config.num_sms, when set, is applied with set_num_sms."""
        if config.num_sms is not None:
            from .gemm import set_num_sms
            set_num_sms(config.num_sms)
        return cls(num_experts, hidden_size, intermediate_size, precision=config.precision,
                   activation_clamp=config.activation_clamp,
                   fp32_grad_accumulation=config.fp32_grad_accumulation,
                   validate_routing=config.validate_routing, **kwargs)

    def reset_parameters(self) -> None:
        with torch.no_grad():
            nn.init.normal_(self.gate_up_proj, std=self.hidden_size ** -0.5)
            nn.init.normal_(self.down_proj, std=self.intermediate_size ** -0.5)

    def extra_repr(self) -> str:
        return (f"num_experts={self.num_experts}, hidden_size={self.hidden_size}, "
                f"intermediate_size={self.intermediate_size}, precision={self.precision!r}, "
                f"activation_clamp={self.activation_clamp}")

    def _accumulators(self):
        if not self.fp32_grad_accumulation:
            return None
        accs = []
        for p in (self.gate_up_proj, self.down_proj):
            mg = getattr(p, "main_grad", None)
            if mg is None or mg.shape != p.shape or mg.device != p.device:
                p.main_grad = torch.zeros(p.shape, dtype=torch.float32, device=p.device)
            accs.append(p.main_grad)
        return tuple(accs)

    def forward(self, x: torch.Tensor, topk_idx: torch.Tensor, topk_weights: torch.Tensor) -> torch.Tensor:
        shape = x.shape
        k = topk_idx.shape[-1]
        y = mega_moe(x.reshape(-1, self.hidden_size).contiguous(), topk_idx.reshape(-1, k).contiguous(),
                     topk_weights.reshape(-1, k).contiguous(), self.gate_up_proj, self.down_proj,
                     precision=self.precision, activation_clamp=self.activation_clamp,
                     grad_accumulators=self._accumulators(), validate=self.validate_routing)
        return y.reshape(shape)
