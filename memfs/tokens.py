"""CJK-aware token estimate (seed §4.4b): what injected memory costs, without a tokenizer."""

from __future__ import annotations

import math
import re

DEFAULT_MARGIN_RATIO = 0.1
"""Budget headroom for callers: the estimate can be off against a real tokenizer."""

CHARS_PER_TOKEN = 4.0
"""Non-CJK text: characters per token (calibrated against a real tokenizer; see benchmarks)."""

_CJK = re.compile(
    "[\u2e80-\u2fdf\u3000-\u303f\u3040-\u30ff\u3100-\u312f\u3130-\u318f\u31a0-\u31ff"
    "\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]"
)


def estimate_tokens(text: str) -> int:
    """Estimated tokens of ``text``: one per CJK character, other text by characters per token."""
    if not text:
        return 0
    cjk = len(_CJK.findall(text))
    return cjk + math.ceil((len(text) - cjk) / CHARS_PER_TOKEN)


def with_margin(tokens: int, margin: float = DEFAULT_MARGIN_RATIO) -> int:
    """``tokens`` plus the safety margin, for callers that budget against a hard window."""
    return math.ceil(tokens * (1 + margin))
