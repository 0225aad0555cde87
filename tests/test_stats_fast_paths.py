"""The shortcuts a stats pass takes, each against the plain formulation it stands for: the
wikilink scan that jumps from ``[[`` to ``[[`` against ``WIKILINK.findall``, and the plain-shape
reader (which returns its mapping as built when no key was left without children) against the
same reader with the copy that turns each such key into null."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from memfs import frontmatter_block as fb
from memfs.records import WIKILINK, extract_wikilinks

from tests.test_frontmatter_block import KEYS, VALUES, line


def _findall_wikilinks(text: str) -> list[str]:
    seen: dict[str, None] = {}
    for target, _label in WIKILINK.findall(text):
        target = target.strip()
        if target:
            seen[target] = None
    return list(seen)


_WIKI_PIECES = ["[[", "]]", "[", "]", "|", "#", "\n", " ", "\u3000", "a", "b-c", "x.md", "名"]


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(_WIKI_PIECES) | st.text(max_size=4), max_size=24))
def test_the_wikilink_scan_finds_what_findall_finds(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert extract_wikilinks(text) == _findall_wikilinks(text), text


def test_the_wikilink_scan_on_overlapping_brackets() -> None:
    for text in ["[[[a]]", "[[a]][[b]]", "[[a|[[b]]", "[[ a ]] [[a]] [[ ]]", "[[x#h|l]]]]"]:
        assert extract_wikilinks(text) == _findall_wikilinks(text), text


def _with_nulls(mapping: dict[str, Any] | None) -> dict[str, Any] | None:
    """The reader's mapping as the copy at its end made it: a key with no children is null."""
    if mapping is None:
        return None
    return {k: (v if v != {} else None) for k, v in mapping.items()}


_PARENT = st.builds(lambda k: f"{k}:", st.sampled_from(KEYS))
_CHILD = st.builds(lambda k, v: f"  {k}: {v}", st.sampled_from(KEYS), st.sampled_from(VALUES))


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.one_of(line, _PARENT, _CHILD), min_size=1, max_size=8))
def test_the_plain_shape_needs_no_copy_when_every_key_has_children(lines: list[str]) -> None:
    text = "\n".join(lines) + "\n"
    fast = fb.parse_simple_mapping(text)
    assert fast == _with_nulls(fast)  # no {} is ever left in the mapping
    if fast is not None:
        assert fast == fb.yaml.load(text, Loader=fb._Loader), text
