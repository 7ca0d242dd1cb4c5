"""transformers drop-in: a tiny random Qwen3-MoE gives the same logits and gradients with MegaMoE."""
import copy

import pytest
import torch
from torch import nn

import deep_gemm
from deep_gemm.integrations import replace_qwen3_moe_blocks

transformers = pytest.importorskip("transformers")
from transformers import Qwen3MoeConfig, Qwen3MoeForCausalLM  # noqa: E402


def tiny_model(dtype, seed, mlp_only_layers=()):
    cfg = Qwen3MoeConfig(mlp_only_layers=list(mlp_only_layers), vocab_size=96, hidden_size=128, intermediate_size=256, moe_intermediate_size=128,
                         num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, head_dim=32,
                         num_experts=8, num_experts_per_tok=2, decoder_sparse_step=1, norm_topk_prob=True,
                         max_position_embeddings=64, initializer_range=0.1, output_router_logits=True,
                         router_aux_loss_coef=0.01)
    torch.manual_seed(seed)
    return Qwen3MoeForCausalLM(cfg).to(dtype)


def run(model, ids):
    model.zero_grad()
    out = model(input_ids=ids, labels=ids)
    out.loss.backward()
    grads = {n: p.grad.detach().clone() for n, p in model.named_parameters() if p.grad is not None}
    return out, grads


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
def test_qwen3_moe_drop_in(dtype, rng):
    seed = int(torch.randint(0, 2**31 - 1, (), generator=rng))
    # bf16: a dense first layer, so that the MoE layer's router sees bit-identical inputs in both models
    # (behind a first MoE layer, bf16 rounding differences can flip a near-tie top-k choice of the
    # second router, which changes that token's output by design). fp32: two MoE layers.
    dense_first = dtype == torch.bfloat16
    base = tiny_model(dtype, seed, mlp_only_layers=[0] if dense_first else [])
    ours = copy.deepcopy(base)
    names = replace_qwen3_moe_blocks(ours)
    assert names == (["model.layers.1.mlp"] if dense_first else ["model.layers.0.mlp", "model.layers.1.mlp"])
    assert isinstance(ours.model.layers[1].mlp.experts, deep_gemm.MegaMoE)
    ids = torch.randint(0, 96, (2, 13), generator=rng)
    out_b, g_b = run(base, ids)
    out_o, g_o = run(ours, ids)
    assert set(g_b) == set(g_o)   # same parameter names, all get gradients
    tol = dict(rtol=3e-2, atol=3e-2) if dtype == torch.bfloat16 else dict(rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(out_o.logits.float(), out_b.logits.float(), **tol)
    torch.testing.assert_close(out_o.loss.float(), out_b.loss.float(), **tol)
    assert out_o.aux_loss is not None
    torch.testing.assert_close(out_o.aux_loss.float(), out_b.aux_loss.float(), **tol)
    limit = 2e-3 if dtype == torch.bfloat16 else 1e-7
    for n in g_b:
        assert deep_gemm.calc_diff(g_o[n], g_b[n]) < limit, n


def test_weights_are_shared_not_copied(rng):
    m = tiny_model(torch.bfloat16, 0)
    before = m.model.layers[0].mlp.experts.gate_up_proj
    replace_qwen3_moe_blocks(m, deep_gemm.MoEDispatchConfig(precision="fp8_bwd"))
    mm = m.model.layers[0].mlp.experts
    assert mm.gate_up_proj is before and mm.precision == "fp8_bwd"


class LegacyMLP(nn.Module):
    def __init__(self, H, I):
        super().__init__()
        self.gate_proj, self.up_proj = nn.Linear(H, I, bias=False), nn.Linear(H, I, bias=False)
        self.down_proj = nn.Linear(I, H, bias=False)
        self.act_fn = nn.SiLU()

    def forward(self, x):
        return self.down_proj(self.act_fn(self.gate_proj(x)) * self.up_proj(x))


class LegacySparseMoeBlock(nn.Module):
    """The per-expert layout of transformers 4.x (Qwen3MoeSparseMoeBlock before v5)."""

    def __init__(self, H=32, I=16, E=6, K=2):
        super().__init__()
        self.num_experts, self.top_k, self.norm_topk_prob = E, K, True
        self.gate = nn.Linear(H, E, bias=False)
        self.experts = nn.ModuleList([LegacyMLP(H, I) for _ in range(E)])

    def forward(self, hidden_states):
        b, s, h = hidden_states.shape
        x = hidden_states.view(-1, h)
        logits = self.gate(x)
        w = torch.softmax(logits, dim=1, dtype=torch.float)
        w, sel = torch.topk(w, self.top_k, dim=-1)
        w = (w / w.sum(-1, keepdim=True)).to(x.dtype)
        out = torch.zeros_like(x)
        for t in range(x.shape[0]):
            for k in range(self.top_k):
                out[t] += w[t, k] * self.experts[int(sel[t, k])](x[t])
        return out.view(b, s, h), logits


def test_legacy_per_expert_layout(rng):
    torch.manual_seed(int(torch.randint(0, 2**31 - 1, (), generator=rng)))
    model = nn.Sequential(LegacySparseMoeBlock())
    ours = copy.deepcopy(model)
    assert replace_qwen3_moe_blocks(ours) == ["0"]
    x = torch.randn(2, 5, 32, generator=rng)
    (yb, lb), (yo, lo) = model(x), ours(x)
    torch.testing.assert_close(yo, yb, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(lo, lb)
    yb.square().sum().backward()
    yo.square().sum().backward()
    torch.testing.assert_close(ours[0].gate.weight.grad, model[0].gate.weight.grad, rtol=1e-4, atol=1e-5)
    gu = ours[0].experts.gate_up_proj.grad
    for e, mlp in enumerate(model[0].experts):
        torch.testing.assert_close(gu[e, :16], mlp.gate_proj.weight.grad, rtol=1e-4, atol=1e-5)
        torch.testing.assert_close(gu[e, 16:], mlp.up_proj.weight.grad, rtol=1e-4, atol=1e-5)
        torch.testing.assert_close(ours[0].experts.down_proj.grad[e], mlp.down_proj.weight.grad, rtol=1e-4, atol=1e-5)


def test_non_silu_rejected():
    block = LegacySparseMoeBlock()
    for e in block.experts:
        e.act_fn = nn.GELU()
    with pytest.raises(ValueError, match="MegaMoE computes SwiGLU"):
        replace_qwen3_moe_blocks(nn.Sequential(block))
