"""Memory records: tolerant parsing, findings, wikilinks, byte-stable round trips."""

from __future__ import annotations

import datetime as dt

from hypothesis import given, settings
from hypothesis import strategies as st
from memfs.records import (
    MemoryRecord,
    extract_wikilinks,
    name_style,
    parse_memory,
    worth_writing,
)

SPEC = """---
name: user-role
description: "The user is a process engineer; skip SPC basics"
metadata:
  type: user
  recorded: 2026-10-01
  source: chat
node_type: memory
originSessionId: 3f2a
---
The user is a process engineer. See [[yield-source]] and [[not-yet-written|later]].
"""


def test_parses_the_spec_format_and_keeps_unknown_keys():
    r = parse_memory(SPEC, "memory/user-role.md")
    assert (r.name, r.type, r.recorded) == ("user-role", "user", dt.date(2026, 10, 1))
    assert r.description == "The user is a process engineer; skip SPC basics"
    assert r.extra == {"node_type": "memory", "originSessionId": "3f2a"}
    assert r.metadata_extra == {"source": "chat"}
    assert r.body.startswith("The user is a process engineer.")
    assert r.links == ["yield-source", "not-yet-written"]
    assert r.findings == []
    assert r.has_frontmatter and r.known_type
    assert r.age_days(dt.date(2026, 10, 31)) == 30


def test_unchanged_record_dumps_byte_identical():
    for text in (
        SPEC,
        "no frontmatter at all\n",
        "---\nname: [broken\n---\nbody\n",
        "\ufeff" + SPEC,
    ):
        assert parse_memory(text).dumps() == text
    raw = SPEC.encode()
    assert parse_memory(raw).dumps().encode() == raw


def test_changed_record_keeps_key_order_and_unknown_keys():
    r = parse_memory(SPEC, "memory/user-role.md")
    r.description = "Process engineer"
    out = parse_memory(r.dumps(), "memory/user-role.md")
    assert out.description == "Process engineer"
    assert out.extra == r.extra and out.metadata_extra == r.metadata_extra
    assert (out.type, out.recorded, out.body) == (r.type, r.recorded, r.body)
    assert r.dumps().splitlines()[1] == "name: user-role"


def test_snake_name_missing_description_older_top_level_type():
    r = parse_memory(
        "---\nname: feedback_index_not_column\ntype: feedback\n---\nbody\n",
        "memory/feedback_index_not_column.md",
    )
    assert r.name_style == "snake"
    assert r.type == "feedback"
    assert r.description is None
    assert any("no description" in f for f in r.findings)
    assert any("older format" in f for f in r.findings)
    r.body = "changed\n"
    assert parse_memory(r.dumps()).type == "feedback"
    assert "type: feedback" in r.dumps() and "metadata" not in r.dumps()


def test_drift_is_reported_never_raised():
    cases = {
        "plain text, no frontmatter\n": "no YAML frontmatter",
        "---\nname: [unclosed\n---\nx": "not a valid YAML mapping",
        "---\n- a list\n---\nx": "not a valid YAML mapping",
        "---\nname: x\ndescription: d\nmetadata:\n  type: opinion\n---\n": "unknown type 'opinion'",
        "---\nname: x\ndescription: d\n---\n": "no metadata.type",
        "---\nname: x\ndescription: d\nmetadata:\n  type: user\n  recorded: soon\n---\n": (
            "is not a date"
        ),
        "---\nname: Mixed Case\ndescription: d\nmetadata:\n  type: user\n---\n": "neither kebab",
        "---\ndescription: d\nmetadata: 3\n---\n": "'metadata' is not a mapping",
    }
    for text, finding in cases.items():
        r = parse_memory(text, "memory/some-file.md")
        assert any(finding in f for f in r.findings), (text, r.findings)
        assert all(f.startswith("memory/some-file.md: ") for f in r.findings)
    assert parse_memory("plain\n", "memory/some-file.md").name == "some-file"
    bad = parse_memory(b"---\nname: x\n---\n\xff\xfe", "memory/x.md")
    assert any("UTF-8" in f for f in bad.findings)


def test_bad_recorded_date_survives_a_round_trip():
    text = "---\nname: x\ndescription: d\nmetadata:\n  type: user\n  recorded: soon\n---\nb\n"
    r = parse_memory(text)
    r.body = "c\n"
    assert "recorded: soon" in r.dumps()


def test_name_styles_and_wikilinks():
    assert name_style("user-role") == "kebab"
    assert name_style("notes") == "kebab"
    assert name_style("feedback_index_not_column") == "snake"
    assert name_style("UserRole") == "other"
    assert name_style("a-b_c") == "other"
    assert extract_wikilinks("[[a]] [[b|label]] [[c#part]] [[a]] [[]] [x](y)") == ["a", "b", "c"]


def test_links_to_missing_names_are_worth_writing():
    a = parse_memory("---\nname: a\n---\nsee [[b]] and [[c]]\n", "memory/a.md")
    b = parse_memory("---\nname: b\n---\nsee [[a]] and [[c]]\n", "memory/b.md")
    (only,) = worth_writing([a, b])
    assert only.name == "c"
    assert only.linked_from == ["memory/a.md", "memory/b.md"]


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(), st.binary()))
def test_fuzz_parse_never_raises(data):
    r = parse_memory(data, "memory/fuzz.md")
    assert isinstance(r, MemoryRecord)
    if isinstance(data, str):
        assert r.dumps() == data


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["name", "description", "metadata", "type", "node_type", "x"]),
        st.one_of(st.text(max_size=20), st.integers(), st.none(), st.dates()),
        max_size=5,
    ),
    st.text(max_size=60),
)
def test_fuzz_frontmatter_shapes(fm, body):
    import yaml

    head = yaml.safe_dump(fm, allow_unicode=True) if fm else ""
    r = parse_memory(f"---\n{head}---\n{body}", "memory/f.md")
    r.body = body + "!"
    again = parse_memory(r.dumps(), "memory/f.md")
    assert again.type == r.type
    assert again.description == r.description
