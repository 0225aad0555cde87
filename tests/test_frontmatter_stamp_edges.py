"""Edge shapes of frontmatter for the write stamp: each is stamped, or refused in one line.

A date key a tag hides from the line editor, a second copy of a key that a tag makes YAML read
last, a metadata key that is an alias of a scalar: refused with the reason. Blank lines and
comments inside a metadata block, an empty head, ``{}``, a head of comments alone and a
``!!binary``-tagged metadata key: stamped, so the reader dates the file the write date.
"""

from __future__ import annotations

import pytest
from memfs.frontmatter_block import FrontmatterStampError, recorded_date_of, stamp_date
from memfs.layout import Layout

from tests.conftest import TODAY
from tests.test_write_stamp import PATH, _write


def _file(head: str, body: bytes = b"body\n") -> bytes:
    return b"---\n" + head.encode() + b"---\n" + body


def _why(head: str) -> str:
    err = _write(_file(head))
    assert isinstance(err, FrontmatterStampError), err
    assert str(err).startswith(f"Refused to write {PATH!r}: ")
    assert "\n" not in err.why  # the reason is one line
    return err.why


# -- refused --------------------------------------------------------------------------------------


def test_a_recorded_key_the_line_editor_cannot_see_is_refused_as_held_twice() -> None:
    # `!!str recorded` is a second `recorded` to YAML, but not a `recorded:` line; the other
    # line is not YAML until the stamp replaces it, so the stamp edits by lines and leaves two.
    head = "metadata:\n  !!str recorded: 2020-01-01\n  recorded: 2999: x\n"
    assert _why(head) == "its frontmatter would still hold metadata.recorded more than once"


def test_metadata_that_is_an_alias_of_a_scalar_is_refused() -> None:
    why = _why("day: &d 2020-01-01\nmetadata: *d\ncreated: 2020-01-01\n")
    assert why.startswith("its metadata is a YAML alias (*name) or is aliased elsewhere")
    assert "write the metadata block out in full" in why
    # A null that is aliased the same way too: setting a child on it would change `x`.
    assert _why("x: &n\nmetadata: *n\ncreated: 2020-01-01\n") == why


def test_a_second_date_key_yaml_reads_last_is_refused_for_the_claude_code_layout() -> None:
    # The layout writes `created` (the key the file uses) and `metadata.recorded` above it; a
    # `!!binary created` after the plain one is still `created` to YAML and keeps its date.
    data = _file(
        "metadata:\n  recorded: 2020-01-01\ncreated: 2020-01-01\n!!binary created: 2020-01-01\n"
    )
    key = Layout.claude_code(".claude/memory").date_key
    with pytest.raises(FrontmatterStampError) as caught:
        stamp_date(data, TODAY, TODAY, PATH, date_key=key)
    assert caught.value.why.startswith("metadata.recorded cannot be set without changing other")


# -- stamped --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "head",
    [
        "metadata:\n\n  recorded: 2020-01-01\n",
        "description: Cover letter: NYC\nmetadata:\n  # when\n\n  recorded: 2020-01-01\n",
    ],
    ids=["blank line", "comment and blank line, not YAML elsewhere"],
)
def test_blank_lines_and_comments_inside_metadata_are_kept(head: str) -> None:
    stored = _write(_file(head))
    assert stored == _file(head.replace("2020-01-01", "2026-12-01"))
    assert recorded_date_of(stored, TODAY) == TODAY


@pytest.mark.parametrize(
    ("head", "stamped"),
    [
        ("", "created: 2026-12-01\n"),
        ("{}\n", "created: 2026-12-01\n"),
        ("# nothing yet\n", "# nothing yet\ncreated: 2026-12-01\n"),
        ("name: x\n", "name: x\ncreated: 2026-12-01\n"),
    ],
    ids=["empty", "empty flow mapping", "comments alone", "plain"],
)
def test_a_top_level_date_key_is_added_to_a_head_without_one(head: str, stamped: str) -> None:
    created = stamp_date(_file(head), TODAY, TODAY, PATH, date_key=lambda present: "created")
    assert created == _file(stamped)
    assert recorded_date_of(created, TODAY) == TODAY


def test_a_binary_tagged_metadata_key_gets_a_metadata_block_the_editor_can_see() -> None:
    # YAML reads `!!binary metadata` as `metadata`, but the editor finds no such key, so the
    # already-dated shortcut does not apply: a plain metadata block is added, and YAML, which
    # takes the last, reads the write date from it.
    head = "!!binary metadata:\n  recorded: 2026-12-01\n"
    stored = _write(_file(head))
    assert stored == _file(head + "metadata:\n  recorded: 2026-12-01\n")
    assert recorded_date_of(stored, TODAY) == TODAY


@pytest.mark.parametrize(
    ("data", "stamped"),
    [
        (b"---\nname: x\n---", b"---\nname: x\nmetadata:\n  recorded: 2026-12-01\n---"),
        (b"---\r\nmetadata:\r\n---", b"---\r\nmetadata:\r\n  recorded: 2026-12-01\r\n---"),
        (b"---\nmetadata: ~\n...", b"---\nmetadata: \n  recorded: 2026-12-01\n..."),
        (
            b"---\nmetadata:\n  type: user\n---",
            b"---\nmetadata:\n  type: user\n  recorded: 2026-12-01\n---",
        ),
    ],
    ids=["plain", "CRLF, null metadata", "null, closed by ...", "metadata block"],
)
def test_a_closing_fence_at_the_end_of_the_file_still_gets_whole_lines(
    data: bytes, stamped: bytes
) -> None:
    # The closing fence always starts a line, so the frontmatter before it ends in a newline
    # and every line the stamp adds is a line of its own.
    assert _write(data) == stamped
    assert recorded_date_of(stamped, TODAY) == TODAY
