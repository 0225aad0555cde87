"""Memory records: tolerant parsing, findings, wikilinks, byte-stable round trips."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from memfs.records import (
    MemoryNames,
    MemoryRecord,
    extract_wikilinks,
    name_keys,
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


# -- Claude Code's files: findings that mean something, dates, names -------------------------------

FIXTURES = Path(__file__).parent / "fixtures" / "claude_code"
TODAY = dt.date(2026, 12, 1)


def test_a_title_as_name_is_a_note_not_drift():
    r = parse_memory(
        "---\nname: Cover letter standards\ndescription: One page\nmetadata:\n  type: user\n---\n",
        "memory/cover.md",
    )
    assert [i.kind for i in r.issues] == ["name-style"]
    assert r.drift == []
    assert any("neither kebab" in f for f in r.findings)  # still said, just not counted
    older = parse_memory("---\nname: x\ndescription: d\ntype: user\n---\n", "memory/x.md")
    assert [i.kind for i in older.issues] == ["top-level-type"] and older.drift == []


def test_frontmatter_that_is_not_yaml_is_read_with_a_finding_not_unparseable():
    text = (
        "---\nname: cover-letter\ndescription: Cover letter standards: NYC, 1 page\n"
        "metadata: \n  type: feedback\n  modified: 2026-09-08T19:29:56.864Z\n---\nbody\n"
    )
    r = parse_memory(text, "memory/cover-letter.md")
    assert (r.name, r.description, r.type) == (
        "cover-letter",
        "Cover letter standards: NYC, 1 page",
        "feedback",
    )
    assert r.frontmatter_read == "lines"
    assert [i.kind for i in r.drift] == ["not-yaml"]
    assert "read line by line" in r.findings[0]
    assert not any("not a valid YAML mapping" in f for f in r.findings)
    assert r.date(TODAY) == ("metadata.modified", dt.date(2026, 9, 8))
    assert r.dumps() == text  # unchanged: the original bytes
    r.description = "Cover letter standards"
    again = parse_memory(r.dumps(), "memory/cover-letter.md")
    assert again.frontmatter_read == "yaml" and again.description == "Cover letter standards"
    assert again.metadata_extra == {"modified": "2026-09-08T19:29:56.864Z"}


def test_a_changed_record_with_unreadable_lines_is_not_written_back():
    text = "---\nname: x\nrelated: [unclosed\ndescription: a: b\n---\nbody\n"
    r = parse_memory(text, "memory/x.md")
    assert r.frontmatter_read == "lines" and r.description == "a: b"
    assert "lines 2 could not be read, so no date is trusted" in r.findings[0]
    assert r.dumps() == text
    r.body = "changed\n"
    with pytest.raises(ValueError, match="lines that could not be read"):
        r.dumps()


def test_dates_by_precedence_and_never_from_the_future():
    r = parse_memory(
        "---\nname: x\ncreated: 2026-05-05\nmetadata:\n  modified: 2027-03-01T00:00:00Z\n---\n",
        "memory/x.md",
    )
    assert list(r.dates) == ["metadata.modified", "created"]
    assert r.date(TODAY) == ("created", dt.date(2026, 5, 5))
    assert r.date() == ("metadata.modified", dt.date(2027, 3, 1))
    assert r.age_days(TODAY) == 210
    bad = parse_memory("---\nname: x\nmetadata:\n  modified: last week\n---\n", "memory/x.md")
    assert bad.dates == {} and [i.kind for i in bad.drift] == [
        "no-description",
        "no-type",
        "bad-date",
    ]


@pytest.mark.parametrize(
    ("link", "target"),
    [
        ("project-contracts", "memory/project_contracts.md"),
        ("contracts", "memory/project_contracts.md"),
        ("Project Contracts", "memory/project_contracts.md"),
        ("project_contracts.md", "memory/project_contracts.md"),
        ("user-role", "memory/user_role.md"),
        ("role", "memory/user_role.md"),
        ("Tests before fixes", "memory/feedback_tests.md"),  # by its name:, a title
        ("feedback-contracts", None),  # a different type prefix is a different memory
        ("ghost", None),
    ],
)
def test_wikilinks_match_across_dashes_underscores_case_and_a_dropped_type_prefix(link, target):
    records = [
        parse_memory("---\nname: project_contracts\n---\n", "memory/project_contracts.md"),
        parse_memory("---\nname: user-role\n---\n", "memory/user_role.md"),
        parse_memory("---\nname: Tests before fixes\n---\n", "memory/feedback_tests.md"),
    ]
    assert MemoryNames(records).find(link) == target
    assert name_keys("Project_Contracts.md") == {"project_contracts", "contracts"}


def test_a_full_spelling_beats_one_with_the_prefix_dropped():
    records = [
        parse_memory("---\nname: a\n---\n", "memory/project_contracts.md"),
        parse_memory("---\nname: b\n---\n", "memory/contracts.md"),
    ]
    names = MemoryNames(records)
    assert names.find("contracts") == "memory/contracts.md"
    assert names.find("project-contracts") == "memory/project_contracts.md"


def test_worth_writing_counts_only_what_no_spelling_finds():
    a = parse_memory("---\nname: a\n---\n[[project-contracts]] [[contracts]] [[todo-x]]\n", "a.md")
    b = parse_memory("---\nname: b\n---\n", "project_contracts.md")
    assert [w.name for w in worth_writing([a, b])] == ["todo-x"]


FRONTMATTER_VARIANTS = {
    # file: (how the frontmatter was read, name, type, description, drift kinds)
    "colon_in_value.md": (
        "lines",
        "cover-letter-standards",
        "feedback",
        "Cover letter standards: one page, no photo, plain PDF",
        ["not-yaml"],
    ),
    "quote_then_more.md": (
        "lines",
        "quote-then-more",
        "project",
        '"Weekly" means Monday to Sunday, not a rolling seven days',
        ["not-yaml"],
    ),
    "flow_c_colon.md": (
        "yaml",
        "flow-c-colon",
        "reference",
        "Tags that libyaml and PyYAML read differently",
        [],
    ),
    "trailing_space_metadata.md": (
        "yaml",
        "trailing-space-metadata",
        "user",
        "Claude Code writes the metadata key with a trailing space after the colon",
        [],
    ),
    "continuation.md": (
        "lines",
        "continuation",
        "project",
        "A description that goes on: over a second line indented under the first",
        ["not-yaml"],
    ),
    "block_scalar.md": (
        "yaml",
        "block-scalar",
        "reference",
        "Folded block scalars are valid YAML and read as one line",
        [],
    ),
    "unreadable_key.md": (
        "lines",
        "unreadable-key",
        "feedback",
        "One key cannot be read: the rest can",
        ["not-yaml"],
    ),
    "unclosed_flow.md": ("none", "unclosed_flow", None, None, ["unparseable", "no-description"]),
    "list_frontmatter.md": (
        "none",
        "list_frontmatter",
        None,
        None,
        ["unparseable", "no-description"],
    ),
    "no_frontmatter.md": (None, "no_frontmatter", None, None, ["no-frontmatter", "no-description"]),
    "crlf.md": ("lines", "crlf", "user", "Windows line endings: still read", ["not-yaml"]),
    "bom.md": ("yaml", "bom", "user", "A byte-order mark before the fence", []),
    "metadata_child_colon.md": (
        "lines",
        "metadata-child-colon",
        "project",
        "The break is inside the metadata block",
        ["not-yaml"],
    ),
}


@pytest.mark.parametrize("name", sorted(FRONTMATTER_VARIANTS))
def test_frontmatter_fixture_variants(name):
    how, rec_name, mtype, description, drift = FRONTMATTER_VARIANTS[name]
    raw = (FIXTURES / "frontmatter" / name).read_bytes()
    r = parse_memory(raw, name)
    assert (r.frontmatter_read, r.name, r.type, r.description) == (
        how,
        rec_name,
        mtype,
        description,
    )
    assert [i.kind for i in r.drift] == drift
    assert r.dumps().encode() == raw


DATE_VARIANTS = {
    "recorded.md": ("metadata.recorded", dt.date(2026, 11, 20)),
    "modified_z.md": ("metadata.modified", dt.date(2026, 10, 2)),
    "updated_top.md": ("updated", dt.date(2026, 9, 30)),
    "created_only.md": ("created", dt.date(2026, 5, 5)),
    "last_accessed_only.md": None,
    "future_modified.md": ("created", dt.date(2026, 5, 5)),
    "future_only.md": None,
    "offset_datetime.md": ("metadata.modified", dt.date(2026, 11, 28)),
    "bad_date.md": ("created", dt.date(2026, 4, 1)),
    "quoted_date.md": ("created", dt.date(2026, 3, 3)),
    "not_yaml_with_date.md": ("metadata.modified", dt.date(2026, 11, 15)),
    "space_datetime.md": ("updated", dt.date(2026, 7, 7)),
}


@pytest.mark.parametrize("name", sorted(DATE_VARIANTS))
def test_date_fixture_variants(name):
    r = parse_memory((FIXTURES / "dates" / name).read_bytes(), name)
    assert r.date(TODAY) == DATE_VARIANTS[name]
    assert ("bad-date" in [i.kind for i in r.issues]) == (name == "bad_date.md")


@settings(max_examples=1000, deadline=None)
@given(st.text(alphabet="aZ09-_ .Mdé/\tİK", max_size=10))
def test_a_plain_name_folds_as_the_general_rule_folds_it(name: str) -> None:
    """Most names (ASCII letters and digits, single - or _ between) skip the general fold
    (casefold, runs of spaces, - and _ to one _) and must give what it gives."""
    base = name.strip().rsplit("/", 1)[-1]
    base = base[:-3] if base[-3:].lower() == ".md" else base
    key = re.sub(r"[\s_-]+", "_", base.casefold()).strip("_")
    want = (
        set()
        if not key
        else {key, key.split("_", 1)[1] or key}
        if key.startswith(("user_", "feedback_", "project_", "reference_"))
        else {key}
    )
    assert name_keys(name) == want
