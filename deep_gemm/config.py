"""Kernel shape constants and the MoE dispatch config (the trainer's `[trainer.model.moe.dispatch]`).

    [trainer.model.moe.dispatch]
    type = "mega_moe"
    precision = "fp8"            # "bf16" | "fp8" | "mxfp8" | "fp8_bwd"
    activation_clamp = 10.0      # optional: SwiGLU clamp (DeepSeek-V4 style); omit for none
    num_sms = 120                # optional: SMs the kernels may use (default: all)
    fp32_grad_accumulation = false
    validate_routing = true

    cfg = MoEDispatchConfig.from_toml("trainer.toml")
"""
from __future__ import annotations

import dataclasses
import math
import os
import sys
from dataclasses import dataclass, field
from typing import Any

# The one place the kernels' shape requirements live: H (hidden) and I (intermediate) of the
# MoE layer must be multiples of this for bf16 inputs, in every precision (the kernels tile H and I
# by 128 and FP8 scales are per 128 elements; MXFP8's 32-element blocks divide it).
MOE_DIM_MULTIPLE = 128
# Grouped GEMMs: N and K of the fp8 grouped GEMMs must be multiples of the FP8 block (128).
FP8_BLOCK = 128
MXFP8_BLOCK = 32

PRECISIONS = ("bf16", "fp8", "mxfp8", "fp8_bwd")
DISPATCH_TYPES = ("mega_moe",)
DEFAULT_SECTION = "trainer.model.moe.dispatch"


def _load_toml_text(text: str) -> dict:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    return tomllib.loads(text)


@dataclass
class MoEDispatchConfig:
    """Options of the Mega MoE dispatch backend; field names are the TOML keys."""

    type: str = "mega_moe"
    precision: str = "bf16"
    activation_clamp: float | None = None
    num_sms: int | None = None
    fp32_grad_accumulation: bool = False
    validate_routing: bool = True
    extra: dict = field(default_factory=dict, repr=False)   # keys this version does not know (kept, ignored)

    def __post_init__(self):
        self.validate()

    def validate(self) -> "MoEDispatchConfig":
        if self.type not in DISPATCH_TYPES:
            raise ValueError(f"dispatch.type must be one of {', '.join(map(repr, DISPATCH_TYPES))}; "
                             f"got {self.type!r}")
        if self.precision not in PRECISIONS:
            raise ValueError(f"dispatch.precision must be one of {', '.join(map(repr, PRECISIONS))}; "
                             f"got {self.precision!r}")
        c = self.activation_clamp
        if c is not None:
            if isinstance(c, bool) or not isinstance(c, (int, float)) or not math.isfinite(c) or c <= 0:
                raise ValueError(f"dispatch.activation_clamp must be a positive finite number or absent; got {c!r}")
            self.activation_clamp = float(c)
        n = self.num_sms
        if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n <= 0):
            raise ValueError(f"dispatch.num_sms must be a positive int or absent; got {n!r}")
        for name in ("fp32_grad_accumulation", "validate_routing"):
            if not isinstance(getattr(self, name), bool):
                raise TypeError(f"dispatch.{name} must be true or false; got {getattr(self, name)!r}")
        return self

    # ---- loading ------------------------------------------------------------------------------

    @classmethod
    def from_dict(cls, d: dict[str, Any], *, strict: bool = False) -> "MoEDispatchConfig":
        """Keys not known here raise (strict=True) or are kept in .extra."""
        if not isinstance(d, dict):
            raise TypeError(f"dispatch config must be a table/dict; got {type(d).__name__}")
        known = {f.name for f in dataclasses.fields(cls)} - {"extra"}
        unknown = {k: v for k, v in d.items() if k not in known}
        if unknown and strict:
            raise ValueError(f"unknown dispatch option(s): {', '.join(sorted(unknown))} "
                             f"(known: {', '.join(sorted(known))})")
        return cls(**{k: v for k, v in d.items() if k in known}, extra=unknown)

    @classmethod
    def from_toml(cls, source: str | os.PathLike, *, section: str = DEFAULT_SECTION,
                  strict: bool = False) -> "MoEDispatchConfig":
        """Load from a TOML file path or TOML text. The section is looked up as given
        (`trainer.model.moe.dispatch`) and, failing that, by its shorter suffixes
        (`model.moe.dispatch`, `moe.dispatch`, `dispatch`), so a full rl.toml, a trainer-only toml or
        a file holding just the section all work. A file whose top level is the section itself
        (it has a `type` key) is accepted too."""
        text = None
        if isinstance(source, os.PathLike) or (isinstance(source, str) and "\n" not in source
                                               and "=" not in source and "[" not in source):
            with open(source, "rb") as f:
                text = f.read().decode()
        else:
            text = source
        data = _load_toml_text(text)
        parts = section.split(".")
        for i in range(len(parts)):
            node: Any = data
            for p in parts[i:]:
                node = node.get(p) if isinstance(node, dict) else None
                if node is None:
                    break
            if isinstance(node, dict):
                return cls.from_dict(node, strict=strict)
        if "type" in data:
            return cls.from_dict(data, strict=strict)
        raise ValueError(f"no [{section}] section (or a suffix of it) in the TOML source")

    def to_dict(self) -> dict[str, Any]:
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "extra"}
        return {k: v for k, v in d.items() if v is not None}

    def to_toml(self, section: str = DEFAULT_SECTION) -> str:
        lines = [f"[{section}]"]
        for k, v in self.to_dict().items():
            lines.append(f"{k} = " + ("true" if v is True else "false" if v is False
                                      else f'"{v}"' if isinstance(v, str) else repr(v)))
        return "\n".join(lines) + "\n"


MegaMoEConfig = MoEDispatchConfig
