"""Every ```python block of docs/API.md runs (in order, one namespace) on this machine."""
import re
from pathlib import Path

import torch

DOC = Path(__file__).resolve().parents[1] / "docs" / "API.md"


def test_api_examples_run():
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
    assert len(blocks) >= 8
    ns = {}
    try:
        _run(blocks, ns)
    finally:
        import deep_gemm.gemm
        deep_gemm.gemm._num_sms = None
        deep_gemm.gemm._mk_alignment = 128
    assert isinstance(ns["y"], torch.Tensor)


def _run(blocks, ns):
    for i, code in enumerate(blocks):
        try:
            exec(compile(code, f"docs/API.md block {i}", "exec"), ns)
        except Exception as e:  # pragma: no cover - the message names the block
            raise AssertionError(f"docs/API.md python block {i} failed: {e!r}\n{code}") from e
