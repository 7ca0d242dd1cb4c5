"""MoEDispatchConfig: the trainer's [trainer.model.moe.dispatch] section, loaded from TOML."""
import pytest

import deep_gemm
from deep_gemm import MoEDispatchConfig

RL_TOML = """
[trainer.model]
name = "Qwen/Qwen3-30B-A3B"

[trainer.model.moe.dispatch]
type = "mega_moe"
precision = "fp8"
activation_clamp = 10
num_sms = 100
"""


def test_from_toml_text_and_file(tmp_path):
    cfg = MoEDispatchConfig.from_toml(RL_TOML)
    assert (cfg.type, cfg.precision, cfg.activation_clamp, cfg.num_sms) == ("mega_moe", "fp8", 10.0, 100)
    assert cfg.fp32_grad_accumulation is False and cfg.validate_routing is True
    # a trainer-only file ([model.moe.dispatch]) and a path
    p = tmp_path / "trainer.toml"
    p.write_text('[model.moe.dispatch]\ntype = "mega_moe"\nprecision = "fp8_bwd"\n')
    assert MoEDispatchConfig.from_toml(p).precision == "fp8_bwd"
    assert MoEDispatchConfig.from_toml(str(p)).precision == "fp8_bwd"
    # a file that is just the section
    assert MoEDispatchConfig.from_toml('type = "mega_moe"\nprecision = "mxfp8"\n').precision == "mxfp8"


@pytest.mark.parametrize("precision", ["bf16", "fp8", "mxfp8", "fp8_bwd"])
def test_roundtrip(precision):
    cfg = MoEDispatchConfig(precision=precision, activation_clamp=7.5, fp32_grad_accumulation=True)
    assert MoEDispatchConfig.from_toml(cfg.to_toml()) == cfg
    assert "[trainer.model.moe.dispatch]" in cfg.to_toml()


def test_unknown_keys():
    cfg = MoEDispatchConfig.from_dict({"type": "mega_moe", "future_option": 3})
    assert cfg.extra == {"future_option": 3}
    with pytest.raises(ValueError, match="unknown dispatch option"):
        MoEDispatchConfig.from_dict({"type": "mega_moe", "future_option": 3}, strict=True)


def test_builds_module():
    cfg = MoEDispatchConfig.from_toml('[trainer.model.moe.dispatch]\ntype = "mega_moe"\nprecision = "fp8"\n'
                                      'activation_clamp = 4.0\n')
    m = deep_gemm.MegaMoE.from_config(cfg, 4, 128, 128)
    assert m.precision == "fp8" and m.activation_clamp == 4.0


@pytest.mark.parametrize("kw,exc,match", [
    (dict(type="deepep"), ValueError, r"dispatch.type must be one of 'mega_moe'"),
    (dict(precision="fp16"), ValueError, "dispatch.precision must be one of"),
    (dict(activation_clamp=0), ValueError, "dispatch.activation_clamp must be a positive finite number"),
    (dict(activation_clamp=float("nan")), ValueError, "dispatch.activation_clamp"),
    (dict(num_sms=-3), ValueError, "dispatch.num_sms must be a positive int"),
    (dict(validate_routing="yes"), TypeError, "dispatch.validate_routing must be true or false"),
])
def test_errors(kw, exc, match):
    with pytest.raises(exc, match=match):
        MoEDispatchConfig(**kw)


def test_missing_section():
    with pytest.raises(ValueError, match=r"no \[trainer.model.moe.dispatch\] section"):
        MoEDispatchConfig.from_toml('[trainer.model]\nname = "x"\n')
