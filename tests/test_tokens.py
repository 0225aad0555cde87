"""The CJK-aware token estimate: its rules, and its error against a real offline tokenizer."""

from __future__ import annotations

import importlib.util
import os
import re
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from memfs import InMemoryFileStore, MemFS
from memfs.generator import generate_workspace
from memfs.tokens import (
    DEFAULT_MARGIN_RATIO,
    char_classes,
    estimate_tokens,
    letter_digit_switches,
    with_margin,
)

from tests.conftest import TODAY


def test_empty_is_zero_and_anything_else_costs_something():
    assert estimate_tokens("") == 0
    assert estimate_tokens(" ") == 1
    assert estimate_tokens("a") == 1


def test_cjk_costs_about_one_token_a_character():
    assert estimate_tokens("記憶就是檔案") == 6
    assert estimate_tokens("記憶" * 500) == 1000
    assert estimate_tokens("メモリ") == 3  # kana
    assert estimate_tokens("기억") == 2  # hangul
    assert estimate_tokens("，。「」（）") == 6  # CJK and full-width punctuation


def test_other_text_is_cheaper_per_character():
    english = "Memories are point-in-time observations, not live state. " * 20
    assert len(english) / 6 < estimate_tokens(english) < len(english) / 3


def test_character_classes():
    assert char_classes("ab 1,\n記—é\u3000") == (2, 3, 1, 2, 2)


def test_margin():
    assert DEFAULT_MARGIN_RATIO == 0.1
    assert with_margin(100) == 110
    assert with_margin(0) == 0
    assert with_margin(5860) == 6446


@given(st.text(), st.text())
def test_fuzz_never_raises_and_roughly_additive(a, b):
    ea, eb, eab = estimate_tokens(a), estimate_tokens(b), estimate_tokens(a + b)
    assert ea >= 0 and eb >= 0
    assert eab <= ea + eb + 1
    assert eab >= max(ea, eb) - 1


def _o200k():
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("litellm extra not installed: no offline tokenizer cache")
    cache = Path(next(iter(spec.submodule_search_locations))) / "litellm_core_utils" / "tokenizers"
    os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(cache))
    tiktoken = pytest.importorskip("tiktoken")
    try:
        return tiktoken.get_encoding("o200k_base")
    except Exception as e:  # offline and not cached
        pytest.skip(f"o200k_base not available offline: {e}")


def test_within_margin_of_a_real_tokenizer_on_memory_text():
    """The generated store (Chinese/English mix) and the live check's Chinese scenarios."""
    enc = _o200k()
    fs = MemFS(InMemoryFileStore(), clock=lambda: TODAY)
    gen = generate_workspace(fs, 60)
    texts = [fs.raw.cat_file("MEMORY.md").decode()]
    texts += [fs.raw.cat_file(p).decode() for p in gen.memory_paths]
    scenarios = Path(__file__).resolve().parents[1] / "adapters" / "memfs_eval" / "scenarios"
    texts += [p.read_text(encoding="utf-8") for p in sorted(scenarios.glob("*-zh.yaml"))]
    real = sum(len(enc.encode(t, disallowed_special=())) for t in texts)
    est = sum(estimate_tokens(t) for t in texts)
    assert abs(est - real) / real <= DEFAULT_MARGIN_RATIO, (est, real)
    for t in texts:
        r = len(enc.encode(t, disallowed_special=()))
        assert abs(estimate_tokens(t) - r) / r <= 0.2, t[:80]


def test_letter_digit_switches_cost_extra():
    """Hex-like strings break into many BPE pieces: each letter/digit switch adds to the count."""
    assert estimate_tokens("9f8a7b6c5d4e3f21") > estimate_tokens("abcdefghijklmnop")
    assert estimate_tokens("a中1中" * 20) == estimate_tokens("a中b中" * 20)  # never adjacent


@example("a0a0")
@example("a\u00e91 \ud800b2 \uff11a x?1 \u00b2a")
@given(st.text(alphabet=st.sampled_from("ab09 ?-\u00e9\u00b2\uff11\u4e2d\ud800")))
def test_switches_are_the_letter_digit_pairs_a_regular_expression_finds(text: str) -> None:
    """Counted over bytes, not by a pattern tried at every position: the same count, with
    characters that are not ASCII (digits and letters elsewhere in Unicode among them) never
    one of a pair."""
    assert letter_digit_switches(text) == len(re.findall(r"(?=[A-Za-z][0-9]|[0-9][A-Za-z])", text))
