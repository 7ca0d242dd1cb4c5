"""Hugging Face transformers drop-in: replace the sparse MoE blocks of a Qwen3-MoE model with MegaMoE.

    from deep_gemm.integrations.transformers import replace_qwen3_moe_blocks
    model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen3-30B-A3B", dtype=torch.bfloat16)
    replace_qwen3_moe_blocks(model, precision="bf16")     # before building the optimizer

Two block layouts are handled:
  * transformers v5 (fused experts): `block.gate` is a Qwen3MoeTopKRouter returning
    (router_logits, top-k weights, top-k indices) and `block.experts` holds `gate_up_proj` [E, 2I, H]
    (gate rows, then up rows) and `down_proj` [E, H, I]. The same Parameter objects are moved into
    the MegaMoE module (no copy) and the router module is kept as is, so router-logit recording
    (output_router_logits / the aux loss) keeps working.
  * older transformers (per-expert modules): `block.gate` is an nn.Linear(H, E), `block.experts` an
    nn.ModuleList of MLPs with gate_proj / up_proj / down_proj, and the block returns
    (hidden_states, router_logits). The expert weights are copied into fused parameters (the
    per-expert Linear modules are dropped), the router is kept and the return value is the same.

Parameter names do not change (`...mlp.gate.weight`, `...mlp.experts.gate_up_proj`,
`...mlp.experts.down_proj`), so state dicts of the fused layout load either way.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from ..config import MoEDispatchConfig
from ..moe import MegaMoE


class MegaMoESparseMoeBlock(nn.Module):
    """A Qwen3-MoE sparse block whose routed experts run through deep_gemm.mega_moe."""

    def __init__(self, gate: nn.Module, experts: MegaMoE, *, top_k: int, norm_topk_prob: bool,
                 legacy_router: bool):
        super().__init__()
        self.gate = gate
        self.experts = experts
        self.top_k = top_k
        self.norm_topk_prob = norm_topk_prob
        self.legacy_router = legacy_router

    def _route(self, h: torch.Tensor):
        if not self.legacy_router:
            logits, weights, idx = self.gate(h)
            return logits, weights, idx
        logits = self.gate(h)
        probs = F.softmax(logits, dim=-1, dtype=torch.float)
        weights, idx = torch.topk(probs, self.top_k, dim=-1)
        if self.norm_topk_prob:
            weights = weights / weights.sum(dim=-1, keepdim=True)
        return logits, weights.to(h.dtype), idx

    def forward(self, hidden_states: torch.Tensor):
        shape = hidden_states.shape
        h = hidden_states.reshape(-1, shape[-1])
        logits, weights, idx = self._route(h)
        # the router hands its weights over in the model dtype (as the HF experts use them)
        y = self.experts(h, idx, weights.float()).reshape(shape)
        return (y, logits) if self.legacy_router else y


def _is_qwen3_moe_block(m: nn.Module) -> bool:
    return type(m).__name__.endswith("SparseMoeBlock") and hasattr(m, "gate") and hasattr(m, "experts")


def _hidden_act(block: nn.Module, default: str = "silu") -> str:
    act = getattr(block.experts, "act_fn", None)
    if act is None and isinstance(block.experts, nn.ModuleList) and len(block.experts):
        act = getattr(block.experts[0], "act_fn", None)
    if act is None:
        return default
    return "silu" if isinstance(act, nn.SiLU) or type(act).__name__ in ("SiLU", "SiLUActivation") else type(act).__name__


def convert_block(block: nn.Module, config: MoEDispatchConfig) -> MegaMoESparseMoeBlock:
    """One Qwen3MoeSparseMoeBlock (either layout) -> MegaMoESparseMoeBlock with the same weights."""
    act = _hidden_act(block)
    if act != "silu":
        raise ValueError(f"{type(block).__name__} uses activation {act}; MegaMoE computes SwiGLU (silu) only")
    experts, gate = block.experts, block.gate
    if isinstance(experts, nn.ModuleList):   # per-expert modules
        w1 = torch.stack([torch.cat([e.gate_proj.weight, e.up_proj.weight], 0) for e in experts]).detach()
        w2 = torch.stack([e.down_proj.weight for e in experts]).detach()
        top_k = getattr(block, "top_k", None) or getattr(block, "num_experts_per_tok", None)
        norm = bool(getattr(block, "norm_topk_prob", False))
        legacy, params = True, (nn.Parameter(w1.clone()), nn.Parameter(w2.clone()))
    elif hasattr(experts, "gate_up_proj") and hasattr(experts, "down_proj"):
        top_k, norm = gate.top_k, bool(gate.norm_topk_prob)
        legacy, params = False, (experts.gate_up_proj, experts.down_proj)
    else:
        raise ValueError(f"{type(block).__name__}: experts of type {type(experts).__name__} have neither "
                         "gate_up_proj/down_proj nor a ModuleList of gate_proj/up_proj/down_proj MLPs")
    if not isinstance(top_k, int):
        raise ValueError(f"{type(block).__name__}: could not find the router's top_k")
    E, I2, H = params[0].shape
    dev, dt = params[0].device, params[0].dtype
    mm = MegaMoE(E, H, I2 // 2, precision=config.precision, activation_clamp=config.activation_clamp,
                 fp32_grad_accumulation=config.fp32_grad_accumulation,
                 validate_routing=config.validate_routing, device="meta", dtype=dt)
    mm.gate_up_proj, mm.down_proj = params   # same Parameter objects (fused) or the stacked copies
    mm.to(dev)
    return MegaMoESparseMoeBlock(gate, mm, top_k=top_k, norm_topk_prob=norm, legacy_router=legacy)


def replace_qwen3_moe_blocks(model: nn.Module, config: MoEDispatchConfig | None = None, *,
                             precision: str | None = None, activation_clamp: float | None = None) -> list[str]:
    """Replace every Qwen3-MoE sparse block of `model` in place; returns the replaced module names.

    config: a MoEDispatchConfig (e.g. MoEDispatchConfig.from_toml("rl.toml")); precision /
    activation_clamp override it. Build the optimizer after this call.
    """
    cfg = MoEDispatchConfig(**(config.to_dict() if config is not None else {}))
    if precision is not None:
        cfg.precision = precision
    if activation_clamp is not None:
        cfg.activation_clamp = activation_clamp
    cfg.validate()
    if cfg.num_sms is not None:
        from ..gemm import set_num_sms
        set_num_sms(cfg.num_sms)
    names = [n for n, m in model.named_modules() if _is_qwen3_moe_block(m)]
    for name in names:
        parent_name, _, child = name.rpartition(".")
        parent = model.get_submodule(parent_name) if parent_name else model
        setattr(parent, child, convert_block(getattr(parent, child), cfg))
    return names


replace_moe_blocks = replace_qwen3_moe_blocks
