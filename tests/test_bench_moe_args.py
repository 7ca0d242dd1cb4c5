"""benchmarks/bench_moe.py's arguments: the routings (uniform as before, skewed with lognormal expert loads, bad
arguments named) and the --variants settings."""
import importlib.util
import pathlib

import pytest
import torch

_dir = pathlib.Path(__file__).resolve().parents[1] / "benchmarks"
_spec = importlib.util.spec_from_file_location("bench_moe", _dir / "bench_moe.py")
bench_moe = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_moe)

T, E, K = 4096, 128, 8


def routing(kind, skew=0.5, seed=0):
    g = torch.Generator().manual_seed(seed)
    return bench_moe.expert_scores(T, E, kind, skew, g).topk(K, dim=-1).indices


def test_uniform_is_the_old_draw():
    # the benchmark's uniform routing before --routing existed: topk of one rand(T, E) draw from the seeded generator
    g = torch.Generator().manual_seed(0)
    assert torch.equal(routing("uniform"), torch.rand(T, E, generator=g).topk(K, dim=-1).indices)


def test_skew_zero_is_uniform():
    assert torch.equal(routing("skewed", 0.0), routing("uniform"))


@pytest.mark.parametrize("skew, lo, hi", [(0.5, 2.5, 4.5), (1.0, 5.0, 11.0)])
def test_skewed_loads(skew, lo, hi):
    idx = routing("skewed", skew)
    # every token still picks K distinct experts
    assert all(len(set(r.tolist())) == K for r in idx)
    busiest, empty = bench_moe.load_stats(idx, E)
    uniform_busiest, _ = bench_moe.load_stats(routing("uniform"), E)
    assert uniform_busiest < 1.3
    assert lo < busiest < hi
    assert empty == 0  # 32768 pairs: even the idlest expert gets some at these skews
    # the same seed gives the same routing; another seed another one
    assert torch.equal(idx, routing("skewed", skew))
    assert not torch.equal(idx, routing("skewed", skew, seed=1))


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="routing"):
        routing("zipf")
    with pytest.raises(ValueError, match="skew"):
        routing("skewed", -1.0)
    with pytest.raises(ValueError, match="skew"):
        routing("skewed", float("nan"))


def test_variant_settings(monkeypatch):
    for env in ("PK_SM90_VARIANT_WGRAD", "PK_SM90_WGRAD_WALK", "PK_MOE_COMBINE", "PK_SM90_A_LOAD"):
        monkeypatch.delenv(env, raising=False)
    got = bench_moe.parse_variant("WGRAD=21+walk=Plain+COMBINE=scatter")
    assert got == {"WGRAD": "21", "WALK": "plain", "COMBINE": "scatter"}
    monkeypatch.setenv("PK_SM90_A_LOAD", "cp_async")  # a setting not listed is cleared
    bench_moe.set_variant_env(got)
    import os
    assert os.environ["PK_SM90_VARIANT_WGRAD"] == "21" and os.environ["PK_SM90_WGRAD_WALK"] == "plain"
    assert os.environ["PK_MOE_COMBINE"] == "scatter" and "PK_SM90_A_LOAD" not in os.environ
    assert bench_moe.parse_variant("staged") == {"GEMM1": "4", "GEMM2": "3", "DX": "3"}


@pytest.mark.parametrize("spec", ["WALK=sideways", "GEMM9=1", "DX=fast", "A_LOAD"])
def test_bad_variant_settings_named(spec):
    with pytest.raises(SystemExit, match="bad --variants entry"):
        bench_moe.parse_variant(spec)
