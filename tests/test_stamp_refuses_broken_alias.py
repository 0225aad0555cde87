"""The write stamp (memfs.frontmatter_block) refuses a change whose date key carries an anchor
another key aliases: setting it would drop the anchor and leave the alias dangling. And the
plain-mapping reader takes a long key that no YAML type can start as text."""

from __future__ import annotations

import datetime as dt

import pytest
from memfs.errors import FrontmatterStampError
from memfs.frontmatter_block import stamp_date, stamp_recorded
from memfs.layout import Layout

TODAY = dt.date(2026, 12, 1)
ANCHORED = b"---\ntags: [q]\nmetadata:\n  recorded: &d 2026-01-01\nother: *d\n---\nb\n"


@pytest.mark.parametrize("layout", [Layout.platform(), Layout.claude_code(".claude/memory")])
def test_a_date_key_whose_value_another_key_aliases_is_refused(layout: Layout) -> None:
    with pytest.raises(FrontmatterStampError) as caught:
        stamp_date(ANCHORED, TODAY, TODAY, "memory/a.md", date_key=layout.date_key)
    assert str(caught.value).startswith("Refused to write 'memory/a.md': ")
    assert "Nothing was written." in str(caught.value)


def test_the_same_file_without_the_alias_is_stamped() -> None:
    plain = ANCHORED.replace(b" &d", b"").replace(b"other: *d\n", b"")
    assert stamp_recorded(plain, TODAY) == plain.replace(b"2026-01-01", b"2026-12-01")


def test_a_long_plain_key_starting_with_an_untyped_letter_is_text() -> None:
    from memfs.frontmatter_block import parse_simple_mapping

    key = "h" * 200  # past the memoised length, and no YAML type starts with 'h'
    assert parse_simple_mapping(f"{key}: v\n") == {key: "v"}


def test_claude_codes_top_level_created_is_the_date_a_change_sets_in_either_reading() -> None:
    key = Layout.claude_code(".claude/memory").date_key
    plain = b"---\nname: a\ncreated: 2026-01-01\n---\nbody\n"
    assert stamp_date(plain, TODAY, TODAY, date_key=key) == plain.replace(b"01-01", b"12-01")
    flow = b"---\nname: a\ntags: [x, y]\ncreated: 2026-01-01\n---\nbody\n"  # read as YAML
    assert stamp_date(flow, TODAY, TODAY, date_key=key) == flow.replace(b"01-01", b"12-01")
