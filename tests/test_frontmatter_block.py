"""The frontmatter fast path: whatever it returns is exactly what YAML returns."""

from __future__ import annotations

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from memfs.frontmatter_block import _Loader, parse_simple_mapping, parse_yaml_mapping

KEYS = ["name", "description", "metadata", "type", "recorded", "node_type", "originSessionId",
        "on", "Yes", "null", "1", "a-b", "_x", "k k", "<<", "~"]  # fmt: skip
VALUES = [
    "user-role", "The user is a process engineer", "良率的權威資料來源是 MES", "2026-09-28",
    "2026-13-45", "1", "1.5", "-1", "+1", ".5", "0x1F", "1e3", "1_000", "yes", "No", "ON", "off",
    "null", "~", "=", "true", "yEs", '"quoted"', "'single'", '"a\\"b"', "'it''s'", '"a\\tb"',
    "a: b", "a #c", "a#b", "- x", "[[link]]", "a [[link]]", "{x: 1}", "&a", "*a", "!tag", "|",
    ">", "%x", "@x", "`x`", "?x", ":x", "x:", "x ", " x", "a\tb", "\u3000全形空白", "a\u2028b",
    "\u0085", "http://x/y", "C:\\path", "", "<tag>", "é", "😀",
]  # fmt: skip

line = st.one_of(
    st.builds(lambda k, v: f"{k}: {v}", st.sampled_from(KEYS), st.sampled_from(VALUES)),
    st.builds(lambda k: f"{k}:", st.sampled_from(KEYS)),
    st.builds(lambda k, v: f"  {k}: {v}", st.sampled_from(KEYS), st.sampled_from(VALUES)),
    st.builds(lambda k, v: f"   {k}: {v}", st.sampled_from(KEYS), st.sampled_from(VALUES)),
    st.sampled_from(["", "# comment", "- item", "metadata: {type: user}", "k: v\r", "  "]),
    st.text(max_size=12),
)


def _yaml(text: str):  # type: ignore[no-untyped-def]
    return yaml.load(text, Loader=_Loader)


@settings(max_examples=3000, deadline=None)
@given(st.lists(line, min_size=1, max_size=8))
def test_fast_path_agrees_with_yaml_whenever_it_answers(lines: list[str]) -> None:
    text = "\n".join(lines) + "\n"
    fast = parse_simple_mapping(text)
    if fast is not None:
        assert fast == _yaml(text), text


def test_memory_shaped_frontmatter_takes_the_fast_path() -> None:
    head = (
        "name: feedback_index_not_column\n"
        'description: "user 要的是索引而非欄位"\n'
        "metadata:\n  type: feedback\n  recorded: 2026-07-26\n"
        "node_type: memory\noriginSessionId: 3f2a-77\n"
    )
    fast = parse_simple_mapping(head)
    assert fast == _yaml(head)
    assert fast is not None and fast["metadata"] == {"type": "feedback", "recorded": "2026-07-26"}
    assert parse_yaml_mapping(head) == fast


def test_anything_outside_the_subset_goes_to_yaml() -> None:
    for head in ["count: 3\n", "a: b # c\n", "k: 'it''s'\n", "m:\n    deep: x\n", "on: x\n"]:
        assert parse_simple_mapping(head) is None, head
    assert parse_yaml_mapping("count: 3\n") == {"count": 3}
