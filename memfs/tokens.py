"""CJK-aware token estimate: what injected memory costs, without a tokenizer.

The estimate is a weighted character count. Each CJK character costs about one token; other text
is split into classes whose cost per character is fairly stable across BPE tokenizers: ASCII
letters and digits merge into word pieces (``CHARS_PER_TOKEN`` of them per token), ASCII
punctuation and symbols mostly stand alone, whitespace mostly merges into the next word, and
other non-ASCII characters (``—``, ``→``, accented letters) cost about a token.

Where ASCII letters and digits alternate (``9f8a7b6c``, ``mes_tok_…``, version strings) BPE
pieces break at each switch, so every switch costs ``SWITCH_TOKENS`` more; without it such
strings were under-counted by a fifth.

The weights were fitted on English memory text and checked on a Chinese, English and mixed
corpus (the project's generated store, documentation and live-check scenarios);
``benchmarks/bench_estimator.py``
measures the error against the real tokenizers that work offline here and writes it to
``benchmarks/results/``. Tokenizer families disagree most on Chinese (per CJK character:
o200k_base ~0.95, DeepSeek-V3 ~0.72, cl100k_base ~1.39), so one CJK weight cannot fit them all;
``DEFAULT_MARGIN_RATIO`` is the headroom for budgets.
"""

from __future__ import annotations

import functools
import math
import re

DEFAULT_MARGIN_RATIO = 0.1
"""Budget headroom for callers: the estimate can be off against a real tokenizer."""

CJK_TOKENS_PER_CHAR = 1.0
"""Tokens per CJK character (Han, kana, hangul, CJK and full-width punctuation)."""

CHARS_PER_TOKEN = 5.4
"""ASCII letters and digits per token (fitted on English memory text; see benchmarks)."""

PUNCT_TOKENS_PER_CHAR = 0.79
"""Tokens per ASCII punctuation or symbol character."""

SPACE_TOKENS_PER_CHAR = 0.27
"""Tokens per whitespace character (most merge into the following word)."""

OTHER_TOKENS_PER_CHAR = 0.46
"""Tokens per non-ASCII, non-CJK character (dashes, arrows, accented letters)."""

SWITCH_TOKENS = 0.5
"""Extra tokens per switch between an ASCII letter and a digit (``a1``, ``9f``)."""


@functools.cache
def _cjk() -> re.Pattern[str]:
    # Compiled on first use (2 ms, the largest pattern a `memfs stats` start-up would compile).
    return re.compile(
        "[\u2e80-\u2fdf\u3000-\u303f\u3040-\u30ff\u3100-\u312f\u3130-\u318f\u31a0-\u31ff"
        "\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef"
        "\U00020000-\U0002fa1f]"
    )


_ALNUM_BYTES = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
_SPACE_BYTES = b" \t\n\r\x0b\x0c"
_LETTER_OR_DIGIT = bytes.maketrans(_ALNUM_BYTES, b"a" * 52 + b"0" * 10)
"""ASCII letters to ``a``, digits to ``0``; any other byte is neither."""


def letter_digit_switches(text: str) -> int:
    """How many times an ASCII letter and an ASCII digit follow one another in ``text``
    (``a1`` and ``9f`` count one each)."""
    # One byte a character (one that is not ASCII becomes "?"), letters marked "a" and digits
    # "0": a switch is an "a0" or a "0a" in the marks, counted in C, instead of a regular
    # expression tried at every position (60 ms on a 700,000-character index). Neither pair
    # can overlap itself, so no switch is missed.
    marks = text.encode("ascii", "replace").translate(_LETTER_OR_DIGIT)
    return marks.count(b"a0") + marks.count(b"0a")


def char_classes(text: str) -> tuple[int, int, int, int, int]:
    """``(cjk, ascii_alnum, ascii_punct, ascii_space, other)`` character counts of ``text``.

    Counted with one regex pass and byte translations, so it stays fast on large indexes.
    """
    rest, cjk = _cjk().subn("", text)
    ascii_only = rest.encode("ascii", "ignore")
    no_alnum = ascii_only.translate(None, _ALNUM_BYTES)
    punct = no_alnum.translate(None, _SPACE_BYTES)
    return (
        cjk,
        len(ascii_only) - len(no_alnum),
        len(punct),
        len(no_alnum) - len(punct),
        len(rest) - len(ascii_only),
    )


def estimate_tokens(text: str) -> int:
    """Estimated tokens of ``text``: CJK about one per character, other text by class weights."""
    if not text:
        return 0
    cjk, alnum, punct, space, other = char_classes(text)
    tokens = (
        cjk * CJK_TOKENS_PER_CHAR
        + alnum / CHARS_PER_TOKEN
        + punct * PUNCT_TOKENS_PER_CHAR
        + space * SPACE_TOKENS_PER_CHAR
        + other * OTHER_TOKENS_PER_CHAR
    )
    if alnum:
        tokens += SWITCH_TOKENS * letter_digit_switches(text)
    return max(1, math.ceil(tokens))


def with_margin(tokens: int, margin: float = DEFAULT_MARGIN_RATIO) -> int:
    """``tokens`` plus the safety margin, for callers that budget against a hard window."""
    # Rounded first so float noise (100 * 1.1 = 110.00000000000001) does not add a token.
    return math.ceil(round(tokens * (1 + margin), 6))
