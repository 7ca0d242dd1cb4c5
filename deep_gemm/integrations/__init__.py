"""Drop-ins for model libraries. transformers: replace_qwen3_moe_blocks (no import of transformers needed)."""
from .transformers import MegaMoESparseMoeBlock, convert_block, replace_moe_blocks, replace_qwen3_moe_blocks

__all__ = ["MegaMoESparseMoeBlock", "convert_block", "replace_moe_blocks", "replace_qwen3_moe_blocks"]
