"""The write stamp cannot be dodged, and the reader never trusts a future date.

Every new memory written either stores a file whose date — as the staleness reminder reads it —
is the write date, or is refused with an error that says how to write the frontmatter. Nothing a
writer puts in the frontmatter keeps a date of its own, past or future: flow style,
``recorded`` given twice, YAML anchors and aliases, merge keys, a multi-line value, quoted or
complex keys, one byte that is not UTF-8. Only a migration keeps a file's own date, and never
one in the future.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from memfs import InMemoryFileStore, MemFS
from memfs.frontmatter_block import (
    FrontmatterStampError,
    claims_date,
    read_frontmatter,
    recorded_date_of,
    split_frontmatter,
    stamp_recorded,
    with_recorded,
)
from memfs.layout import Layout
from memfs.staleness import decorate, reminder_text
from memfs.tools import FileToolExecutor

from tests.conftest import TODAY

FUTURE = "2999-01-01"
PATH = "memory/a.md"


def _fs() -> MemFS:
    return MemFS(InMemoryFileStore(), clock=lambda: TODAY, credential_guard=False)


def _write(data: bytes) -> bytes | FrontmatterStampError:
    fs = _fs()
    try:
        fs.pipe_file(PATH, data)
    except FrontmatterStampError as e:
        assert not fs.exists(PATH)  # nothing was stored
        return e
    return fs.raw.cat_file(PATH)


# Each of these is stamped today; most of them kept 2999-01-01 through a write before.
STAMPED = {
    "recorded twice": f"metadata:\n  recorded: {FUTURE}\n  type: user\n  recorded: {FUTURE}\n",
    "future, then past": f"metadata:\n  recorded: {FUTURE}\n  recorded: 2020-01-01\n",
    "past, then future": f"metadata:\n  recorded: 2020-01-01\n  recorded: {FUTURE}\n",
    "quoted key beside": f"metadata:\n  'recorded': 2020-01-01\n  recorded: {FUTURE}\n",
    "behind a scalar alias": f"day: &d {FUTURE}\nmetadata:\n  recorded: *d\n",
    "under a merge key": f"base: &b {{recorded: {FUTURE}}}\nmetadata:\n  <<: *b\n  type: user\n",
    "multi-line value": f"metadata:\n  recorded:\n    {FUTURE}\nname: x\n",
    "block scalar": f"metadata:\n  recorded: |\n    {FUTURE}\n  type: user\n",
    "space before the colon": f"metadata :\n  recorded: {FUTURE}\n",
    "quoted metadata key": f'"metadata":\n  recorded: {FUTURE}\n',
    "complex key": f"metadata:\n  ? recorded\n  : {FUTURE}\n  type: user\n",
    "explicit tag": f"metadata:\n  recorded: !!str {FUTURE}\n",
    "comment after it": f"metadata:\n  # when\n  recorded: {FUTURE} # trust me\n  type: user\n",
    "not YAML elsewhere": f"description: Cover letter: NYC\nmetadata:\n  recorded: {FUTURE}\n",
    # A value continued on the next line: the continuation is part of the old value, so it goes.
    "value continued": f"name: x\nmetadata:\n  recorded: {FUTURE}\n    continued\n  type: user\n",
    "continued, not YAML elsewhere": (
        f"description: Cover letter: NYC\nmetadata:\n  recorded: {FUTURE}\n   more\n  type: user\n"
    ),
    "null metadata": "metadata: ~\nname: x\n",
}
REFUSED = {
    "flow style": f"name: x\nmetadata: {{type: user, recorded: {FUTURE}}}\n",
    "flow frontmatter": f"{{metadata: {{recorded: {FUTURE}}}}}\n",
    "metadata is an alias": f"base: &b\n  recorded: {FUTURE}\nmetadata: *b\n",
    "anchor on the date, used elsewhere": f"metadata:\n  recorded: &d {FUTURE}\ncreated: *d\n",
    "metadata twice": f"metadata:\n  type: user\nmetadata:\n  recorded: {FUTURE}\n",
    # Dated today in both blocks: not "already dated, kept as written", as readers disagree.
    "metadata twice, each dated today": (
        "metadata:\n  recorded: 2026-12-01\n  type: user\nmetadata:\n  recorded: 2026-12-01\n"
    ),
    "metadata is a list": f"metadata:\n  - recorded: {FUTURE}\n",
    "a line no reader can use": f"name: [unclosed\nmetadata:\n  recorded: {FUTURE}\n",
}


def _file(head: str, body: bytes = b"body\n") -> bytes:
    return b"---\n" + head.encode() + b"---\n" + body


@pytest.mark.parametrize("name", sorted(STAMPED))
def test_every_way_of_hiding_a_future_date_is_stamped(name: str) -> None:
    stored = _write(_file(STAMPED[name]))
    assert isinstance(stored, bytes), stored
    assert recorded_date_of(stored, TODAY) == TODAY
    assert recorded_date_of(stored) == TODAY  # without a clock too: nothing else wins
    assert stored.count(b"recorded: 2026-12-01") == 1 and stored.endswith(b"---\nbody\n")
    head = stored.decode().split("---\n")[1]
    # One metadata block with one recorded in it: no reader can pick another.
    assert len(re.findall(r"""(?m)^["']?metadata["']?[ \t]*:""", head)) == 1, head
    assert len(re.findall(r"""(?m)^[ \t]+(?:\?[ \t]*)?["']?recorded\b""", head)) == 1, head
    assert with_recorded(stored.decode(), TODAY) == stored.decode()  # idempotent


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_what_the_stamp_cannot_edit_is_refused_with_how_to_fix_it(name: str) -> None:
    err = _write(_file(REFUSED[name]))
    assert isinstance(err, FrontmatterStampError), err
    message = str(err)
    assert message.startswith(f"Refused to write {PATH!r}: ")
    assert "Nothing was written." in message
    assert "metadata:\n  type: ...\n  recorded: 2026-12-01\n---" in message
    assert isinstance(err, ValueError)


def test_refusals_say_what_is_wrong() -> None:
    def why(head: str) -> str:
        err = _write(_file(head))
        assert isinstance(err, FrontmatterStampError)
        return err.why

    assert "flow style" in why(REFUSED["flow style"])
    assert "alias" in why(REFUSED["metadata is an alias"])
    assert "appears 2 times" in why(REFUSED["metadata twice"])
    assert "appears 2 times" in why(REFUSED["metadata twice, each dated today"])
    assert "a list" in why(REFUSED["metadata is a list"])
    assert "line(s) 1" in why(REFUSED["a line no reader can use"])


def test_one_invalid_byte_in_the_body_no_longer_skips_the_stamp() -> None:
    stored = _write(_file(f"name: x\nmetadata:\n  recorded: {FUTURE}\n", b"caf\xe9 \xff\n"))
    assert isinstance(stored, bytes)
    assert stored == _file("name: x\nmetadata:\n  recorded: 2026-12-01\n", b"caf\xe9 \xff\n")


def test_an_invalid_byte_in_the_frontmatter_is_refused_when_it_claims_a_date() -> None:
    err = _write(b"---\nname: caf\xe9\nmetadata:\n  recorded: 2999-01-01\n---\nbody\n")
    assert isinstance(err, FrontmatterStampError)
    assert "not UTF-8 text (byte 0xE9 on line 2)" in str(err)
    undated = _file("name: x\n").replace(b"x", b"\xe9")
    assert _write(undated) == undated  # no date claimed: stored as written, no reminder


def test_files_that_claim_no_date_are_still_stored_as_written() -> None:
    for data in (
        b"no frontmatter at all\n",
        b"---\nname: [broken\n---\nbody\n",
        b"---\nmetadata: {type: user}\n---\nflow style is left alone\n",
    ):
        assert _write(data) == data
        assert recorded_date_of(data, TODAY) is None


def test_a_valid_past_date_the_writer_gave_is_replaced_by_the_write_date() -> None:
    data = _file("name: x\nmetadata:\n  type: user\n  recorded: 2026-09-28  # kept\n")
    assert _write(data) == _file("name: x\nmetadata:\n  type: user\n  recorded: 2026-12-01\n")
    today = _file("name: x\nmetadata:\n  type: user\n  recorded: 2026-12-01  # today\n")
    assert _write(today) == today  # already the write date: kept byte for byte


def _migrate(data: bytes) -> bytes | FrontmatterStampError:
    fs = _fs()
    try:
        fs.migrating().pipe_file(PATH, data)
    except FrontmatterStampError as e:
        assert not fs.exists(PATH)
        return e
    return fs.raw.cat_file(PATH)


def test_a_migration_keeps_a_past_date_and_clamps_every_hidden_future_one() -> None:
    past = _file("name: x\nmetadata:\n  type: user\n  recorded: 2026-09-28  # kept\n")
    assert _migrate(past) == past
    for name, head in STAMPED.items():
        stored = _migrate(_file(head))
        assert isinstance(stored, bytes), (name, stored)
        date = recorded_date_of(stored)  # without a clock: a date after today would win
        assert date is None or date <= TODAY, (name, stored)
    for name, head in REFUSED.items():
        stored = _migrate(_file(head))
        date = None if isinstance(stored, FrontmatterStampError) else recorded_date_of(stored)
        assert date is None or date <= TODAY, (name, stored)


def test_every_surface_refuses_the_same_way() -> None:
    fs = _fs()
    head = REFUSED["flow style"]
    out = FileToolExecutor(fs).execute(
        "write_file", {"path": PATH, "content": f"---\n{head}---\nb"}
    )
    assert out.startswith("Error: ") and f"Refused to write {PATH!r}" in out
    with pytest.raises(FrontmatterStampError), fs.open(PATH, "wb") as f:
        f.write(_file(head))
    assert not fs.exists(PATH)


# -- the reader ---------------------------------------------------------------------------------


def test_the_reminder_never_trusts_a_future_date() -> None:
    stored_elsewhere = _file(f"metadata:\n  recorded: {FUTURE}\ncreated: 2026-09-28\n")
    assert decorate(stored_elsewhere, TODAY).startswith(reminder_text(64).encode() + b"\n")
    only_future = _file(f"metadata:\n  recorded: {FUTURE}\n")
    assert decorate(only_future, TODAY) == only_future  # no date it can trust: no reminder


# -- the whole class, generated ------------------------------------------------------------------

_KEYS = st.sampled_from(["recorded", "'recorded'", '"recorded"', "created", "modified", "type"])
_DATES = st.sampled_from([FUTURE, "2020-01-01", "2026-12-01", "nope", "2999-01-01T00:00:00Z"])
_VALUES = st.one_of(
    _DATES,
    _DATES.map(lambda d: f"&a {d}"),
    st.just("*a"),
    _DATES.map(lambda d: f"!!str {d}"),
    _DATES.map(lambda d: f"\n    {d}"),
    _DATES.map(lambda d: f"|\n    {d}"),
    _DATES.map(lambda d: f"{d}  # note"),
)
_CHILD = st.tuples(_KEYS, _VALUES).map(lambda kv: f"  {kv[0]}: {kv[1]}\n")
_METADATA = st.one_of(
    st.lists(_CHILD, min_size=1, max_size=4).map(lambda cs: "metadata:\n" + "".join(cs)),
    st.lists(st.tuples(_KEYS, _DATES), min_size=1, max_size=3).map(
        lambda kvs: "metadata: {" + ", ".join(f"{k}: {v}" for k, v in kvs) + "}\n"
    ),
    st.just("metadata:\n"),
    st.just("metadata: ~\n"),
)
_TOP = st.sampled_from(
    [
        "name: x\n",
        "description: a: b\n",
        "created: 2999-01-01\n",
        "base: &b {recorded: 2999-01-01}\n",
        "other: *a\n",
        "modified: 2020-01-01\n",
        "name: [open\n",
    ]
)
_HEADS = st.lists(st.one_of(_TOP, _METADATA), min_size=1, max_size=4).map("".join)
_BODIES = st.sampled_from([b"body\n", b"caf\xe9\n", b"", b"\xff\xfe"])


@settings(max_examples=400, deadline=None)
@given(head=_HEADS, body=_BODIES, crlf=st.booleans())
def test_no_write_keeps_a_date_the_workspace_did_not_vouch_for(
    head: str, body: bytes, crlf: bool
) -> None:
    if crlf:
        head = head.replace("\n", "\r\n")
    data = b"---\n" + head.encode() + b"---\n" + body
    stored = _write(data)
    if isinstance(stored, FrontmatterStampError):
        assert claims_date(head)
        return
    assert stored.endswith(b"---\n" + body) or stored.endswith(b"---\r\n" + body)
    date = recorded_date_of(stored, TODAY)
    parts = split_frontmatter(stored.decode("utf-8", "replace"))
    assert parts is not None
    if claims_date(parts[1]) or stored != data:
        # The reminder's date is metadata.recorded, and it is today or kept from the file.
        assert date is not None and date <= TODAY
        read = read_frontmatter(parts[1])
        assert read.dated is not None
        assert read.dated["metadata"]["recorded"] is not None
        assert date == TODAY  # never a date the writer gave
    # Stamping again changes nothing.
    assert stamp_recorded(stored, TODAY) == stored


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_refusal_in_a_claude_code_store_shows_that_layouts_date_key(name: str) -> None:
    layout = Layout.claude_code(".claude/memory")
    fs = MemFS(InMemoryFileStore(), clock=lambda: TODAY, credential_guard=False, layout=layout)
    with pytest.raises(FrontmatterStampError) as caught:
        fs.pipe_file(".claude/memory/a.md", _file(REFUSED[name]))
    message = str(caught.value)
    assert "A memory file's date is metadata.modified," in message
    assert "metadata:\n  type: ...\n  modified: 2026-12-01T00:00:00.000Z\n---" in message
    assert "recorded" not in message.split("Nothing was written.")[1]
    assert not fs.exists(".claude/memory/a.md")
