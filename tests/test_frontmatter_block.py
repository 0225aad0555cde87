"""The frontmatter block: the fast path (exactly what YAML returns), line-by-line reading of
frontmatter that is not YAML, one parse with or without libyaml, dates, the bounded memo."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from memfs import InMemoryFileStore, MemFS, frontmatter_block
from memfs.errors import FrontmatterStampError
from memfs.frontmatter_block import (
    DATE_FIELDS,
    MEMO_ENTRIES,
    MEMO_MAX_TEXT,
    _Loader,
    _read_frontmatter,
    _resolve,
    _untyped,
    coerce_date,
    memory_date,
    memory_dates,
    parse_simple_mapping,
    parse_yaml_mapping,
    read_file_frontmatter,
    read_frontmatter,
    recorded_date,
    recorded_date_of,
    split_frontmatter,
    with_recorded,
)
from memfs.records import parse_memory

FIXTURES = Path(__file__).parent / "fixtures" / "claude_code"

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


@settings(max_examples=3000, deadline=None)
@given(
    st.one_of(
        st.sampled_from(VALUES + KEYS),
        st.text(max_size=16),
        st.from_regex(r"[-+.0-9a-zA-Z_:~<=]{0,12}", fullmatch=True),
    )
)
def test_the_plain_text_check_is_the_resolvers_answer(value: str) -> None:
    assert _untyped(value) == (_resolve(yaml.ScalarNode, value, (True, False)) == _STR_TAG)


_STR_TAG = "tag:yaml.org,2002:str"


@settings(max_examples=2000, deadline=None)
@given(
    st.sampled_from(["", "\ufeff"]),
    st.sampled_from(["---\n", "--- \n", "---\r\n", "--"]),
    st.lists(line, max_size=5),
    st.sampled_from(["---\n", "...\n", "---", "--- \t\r\n", "-- \n", ""]),
    st.text(max_size=20),
)
def test_the_file_is_taken_apart_as_the_split_gives(
    bom: str, opening: str, head: list[str], closing: str, body: str
) -> None:
    text = bom + opening + "".join(f"{ln}\n" for ln in head) + closing + body
    parts = split_frontmatter(text)
    file = read_file_frontmatter(text.encode("utf-8"), _read_frontmatter)
    if parts is None:
        assert file.read is None and file.body == text.removeprefix("\ufeff")
    else:
        rest = parts[2]
        nl = rest.find("\n")
        assert file.body == ("" if nl < 0 else rest[nl + 1 :])
        assert file.read == _read_frontmatter(parts[1])


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
    # a child of only blanks (null), a lone quote, a quote not closed at the end
    for head in ["m:\n  k:   \n", 'k: "\n', 'k: "open\n', "k: 'open\n", "k: '\n"]:
        assert parse_simple_mapping(head) is None, head
    assert parse_yaml_mapping("count: 3\n") == {"count": 3}


# -- the plain shape Claude Code writes ------------------------------------------------------------

_TRAILING = st.one_of(
    st.builds(
        lambda k, ws: f"{k}:{ws}", st.sampled_from(KEYS), st.sampled_from([" ", "  ", " \t"])
    ),
    st.builds(
        lambda k, v, ws: f"{k}: {v}{ws}",
        st.sampled_from(KEYS),
        st.sampled_from([*VALUES, '"it\'s"', "'say \"hi\"'", "'a # b'"]),
        st.sampled_from(["", " ", "\t", "  "]),
    ),
    st.builds(
        lambda k, v: f"  {k}: {v}",
        st.sampled_from(KEYS),
        st.sampled_from(["2026-09-08T19:29:56.864Z", '"it\'s"', "'say \"hi\"'", "x  "]),
    ),
)


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.one_of(line, _TRAILING), min_size=1, max_size=8))
def test_fast_path_agrees_with_yaml_with_trailing_blanks_and_inner_quotes(lines: list[str]) -> None:
    text = "\n".join(lines) + "\n"
    fast = parse_simple_mapping(text)
    if fast is not None:
        assert fast == _yaml(text), text


def test_trailing_space_after_metadata_stays_on_the_fast_path() -> None:
    head = (
        "name: ray-next-steps\n"
        'description: "Next steps, updated 2026-07-25"\n'
        "metadata: \n"
        "  node_type: memory\n  type: project\n"
        "  originSessionId: abd31d05-0000-4000-8000-000000000000\n"
        "  modified: 2026-09-08T19:29:56.864Z\n"
    )
    fast = parse_simple_mapping(head)
    assert fast is not None and fast == _yaml(head)
    assert fast["metadata"]["modified"] == "2026-09-08T19:29:56.864Z"
    assert read_frontmatter(head).how == "yaml"


# -- YAML that is not YAML: read line by line ------------------------------------------------------


def test_an_unquoted_colon_is_read_line_by_line_with_a_finding() -> None:
    head = (
        "name: cover-letter\n"
        "description: Cover letter standards: NYC, 1 page\n"
        "metadata: \n  type: feedback\n  modified: 2026-09-08T19:29:56.864Z\n"
    )
    assert parse_yaml_mapping(head) is None  # strict YAML says no
    read = read_frontmatter(head)
    assert read.how == "lines" and read.unread == ()
    assert read.error is not None and read.error.startswith("not valid YAML: mapping values")
    assert read.data == {
        "name": "cover-letter",
        "description": "Cover letter standards: NYC, 1 page",
        "metadata": {"type": "feedback", "modified": "2026-09-08T19:29:56.864Z"},
    }


@pytest.mark.parametrize(
    ("head", "expected", "unread"),
    [
        ('d: "main" is protected; use a PR\n', {"d": '"main" is protected; use a PR'}, ()),
        ("d: on: over\n  a second line\nn: x\n", {"d": "on: over a second line", "n": "x"}, ()),
        ("m:\n  type: user\n  n: see: wiki\n", {"m": {"type": "user", "n": "see: wiki"}}, ()),
        ("name: ok\nrelated: [unclosed\nd: a: b\n", {"name": "ok", "d": "a: b"}, (2,)),
        ("n: x\n\tbad: tab\nd: a: b\n", {"n": "x", "d": "a: b"}, (2,)),
        ("d: a: b\nt:\n  - one: x: y\n  - two\n", {"d": "a: b", "t": ["one: x: y", "two"]}, ()),
        ("d: a: b\nempty:\n", {"d": "a: b", "empty": None}, ()),
        ("d: 'quoted': more\nn: 3\n", {"d": "'quoted': more", "n": 3}, ()),
        ("d: a: b\nd: c: d\n", {"d": "c: d"}, ()),  # the last of a repeated key, as YAML does
    ],
)  # fmt: skip
def test_line_by_line_reading(head: str, expected: dict, unread: tuple[int, ...]) -> None:
    read = read_frontmatter(head)
    assert (read.how, read.data, read.unread) == ("lines", expected, unread)


@pytest.mark.parametrize(
    "head",
    ["name: [unclosed\n", "- a\n- b\n", "just text\n", "a: &x [1]\nb: *x\n", "[\n"],
)
def test_nothing_readable_is_none_not_a_guess(head: str) -> None:
    read = read_frontmatter(head)
    assert read.how == "none" and read.data is None and read.error


VALUE_PIECES = ["a", "b c", ": ", ":", '"', "'", "#", " #x", "[", "]", "{", "-", "1", "yes",
                "2026-01-01", "é", "\\", "|", ">", "&a", "*a", "!t", "%", "@", "`"]  # fmt: skip


def _expected_line(key: str, value: str) -> tuple[bool, object]:
    """What line-by-line reading should make of ``key: value``: YAML's reading when YAML reads
    the line alone, else the text — unless it opens a structure, then nothing."""
    try:
        alone = _yaml(f"{key}: {value}\n")
        if isinstance(alone, dict) and list(alone) == [key]:
            return True, alone[key]
    except yaml.YAMLError:
        pass
    text = value.strip(" ")
    if not text:
        return True, None
    if text[0] in "[{&*!|>":
        return False, None
    quoted = len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'"
    return True, text[1:-1] if quoted and text[0] not in text[1:-1] else text


@settings(max_examples=1500, deadline=None)
@given(
    st.lists(
        st.lists(st.sampled_from(VALUE_PIECES), min_size=1, max_size=5).map("".join),
        min_size=1,
        max_size=5,
    )
)
def test_line_reading_gives_yaml_per_line_or_the_text_a_person_reads(values: list[str]) -> None:
    keys = [f"k{i}" for i in range(len(values))]
    head = "".join(f"{k}: {v}\n" for k, v in zip(keys, values, strict=True))
    read = read_frontmatter(head)
    try:
        whole = _yaml(head)
    except yaml.YAMLError:
        whole = None
    if read.how == "yaml":
        assert read.data == whole
        return
    if read.how == "none" and whole is not None:
        return  # valid YAML but refused (not a mapping, shared aliases)
    expected, missing = {}, []
    for no, (k, v) in enumerate(zip(keys, values, strict=True), start=1):
        ok, value = _expected_line(k, v)
        if ok:
            expected[k] = value
        else:
            missing.append(no)
    assert (read.data or {}) == expected, head
    assert list(read.unread) == missing


# -- one parse whatever PyYAML was built with ------------------------------------------------------

_WITHOUT_LIBYAML = """
import json, sys
sys.modules["yaml._yaml"] = None  # as if PyYAML had been installed without libyaml
import yaml
assert not hasattr(yaml, "CSafeLoader")
from memfs.records import parse_memory
out = {}
for path in sys.argv[1:]:
    r = parse_memory(open(path, "rb").read(), path)
    out[path] = r.to_json_dict(body=False)
print(json.dumps(out, sort_keys=True))
"""


def test_records_are_the_same_with_or_without_the_c_loader() -> None:
    assert hasattr(yaml, "CSafeLoader")  # this environment has it; the child does not
    paths = sorted(str(p) for p in FIXTURES.rglob("*.md"))
    child = subprocess.run(
        [sys.executable, "-c", _WITHOUT_LIBYAML, *paths],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parent.parent,
    )
    here = {p: parse_memory(Path(p).read_bytes(), p).to_json_dict(body=False) for p in paths}
    assert json.loads(child.stdout) == json.loads(json.dumps(here, sort_keys=True))
    flow = parse_memory("---\nname: x\ntags: [c:, users]\n---\n", "memory/x.md")
    assert flow.frontmatter_read == "yaml" and flow.extra["tags"] == [{"c": None}, "users"]


# -- dates -----------------------------------------------------------------------------------------


EST = dt.timezone(dt.timedelta(hours=-5))


@pytest.mark.parametrize(
    ("value", "date"),
    [
        ("2026-09-08", dt.date(2026, 9, 8)),
        ("2026-09-08T19:29:56.864Z", dt.date(2026, 9, 8)),
        ("2026-09-08T01:00:00+09:00", dt.date(2026, 9, 7)),  # its date in UTC
        ("2026-09-08 10:30", dt.date(2026, 9, 8)),
        (" 2026-09-08 ", dt.date(2026, 9, 8)),
        (dt.datetime(2026, 9, 8, 23, 0, tzinfo=EST), dt.date(2026, 9, 9)),
        (dt.date(2026, 1, 2), dt.date(2026, 1, 2)),
        ("2026-02-30", None),
        ("2026-01-01 approx", None),
        ("soon", None),
        (20260101, None),
        (None, None),
    ],
)  # fmt: skip
def test_coerce_date(value: object, date: dt.date | None) -> None:
    assert coerce_date(value) == date


def test_date_precedence_recorded_then_modified_updated_then_created() -> None:
    every = {
        "created": "2026-01-01",
        "updated": "2026-02-01",
        "modified": "2026-03-01",
        "last-accessed": "2026-11-30",
        "metadata": {
            "created": "2026-01-15",
            "updated": "2026-02-15",
            "modified": "2026-03-15",
            "recorded": "2026-04-15",
        },
    }
    order = [label for label, _, _ in memory_dates(every)]
    assert order == [label for label, _, _ in DATE_FIELDS]
    assert "last-accessed" not in order
    today = dt.date(2026, 12, 1)
    assert memory_date(every, today) == ("metadata.recorded", dt.date(2026, 4, 15))
    del every["metadata"]["recorded"]  # type: ignore[attr-defined]
    assert memory_date(every, today) == ("metadata.modified", dt.date(2026, 3, 15))
    assert memory_date({"created": "2026-05-05", "updated": "soon"}, today) == (
        "created",
        dt.date(2026, 5, 5),
    )
    assert memory_date({"last-accessed": "2026-11-30"}, today) is None


def test_a_future_date_is_never_trusted() -> None:
    data = {"metadata": {"recorded": "2099-01-01", "modified": "2026-10-02T08:00:00Z"}}
    today = dt.date(2026, 12, 1)
    assert memory_date(data, today) == ("metadata.modified", dt.date(2026, 10, 2))
    assert memory_date({"metadata": {"recorded": "2099-01-01"}}, today) is None
    text = "---\nmetadata:\n  recorded: 2099-01-01\n  modified: 2026-10-02T08:00:00Z\n---\n"
    assert recorded_date(text, today) == dt.date(2026, 10, 2)
    assert recorded_date_of(text.encode(), today) == dt.date(2026, 10, 2)
    assert recorded_date(text) == dt.date(2099, 1, 1)  # without a clock there is no "future"


def test_the_reminder_date_reads_claude_code_files() -> None:
    raw = (FIXTURES / "flat" / "feedback_tests_first.md").read_bytes()  # not YAML: ": " inside
    assert recorded_date_of(raw) == dt.date(2026, 9, 15)
    # A line no reader could use: no date at all, however readable the rest.
    broken = b"---\nname: [unclosed\nmetadata:\n  recorded: 2026-01-01\n---\nbody\n"
    assert recorded_date_of(broken) is None


def test_the_stamp_still_writes_recorded_under_a_trailing_space_metadata() -> None:
    text = "---\nname: x\nmetadata: \n  type: user\n  modified: 2026-09-08T19:29:56.864Z\n---\nb\n"
    stamped = with_recorded(text, dt.date(2026, 12, 1))
    assert "  recorded: 2026-12-01\n" in stamped
    assert recorded_date(stamped) == dt.date(2026, 12, 1)
    assert stamped.replace("  recorded: 2026-12-01\n", "") == text


# -- the parse memo is bounded in bytes ------------------------------------------------------------


def test_the_parse_memo_is_bounded_in_bytes_not_only_entries() -> None:
    read_frontmatter.cache_clear()  # type: ignore[attr-defined]
    small = "name: x\n"
    assert read_frontmatter(small) is read_frontmatter(small)  # memoised
    huge = "name: x\ndescription: " + "y" * (4 << 20) + "\n"  # a 4 MB block
    for _ in range(3):
        assert read_frontmatter(huge).data == {"name": "x", "description": "y" * (4 << 20)}
    info = read_frontmatter.cache_info()  # type: ignore[attr-defined]
    assert info.currsize == 1  # the huge block is read each time, never kept
    # At most MEMO_ENTRIES blocks of at most MEMO_MAX_TEXT characters: 8 Mi characters.
    assert info.maxsize == MEMO_ENTRIES and MEMO_ENTRIES * MEMO_MAX_TEXT <= 8 << 20


def test_parse_yaml_mapping_keeps_its_cache_clear() -> None:
    parse_yaml_mapping("name: x\n")
    parse_yaml_mapping.cache_clear()  # type: ignore[attr-defined]
    assert read_frontmatter.cache_info().currsize == 0  # type: ignore[attr-defined]


def test_flow_style_metadata_with_a_date_is_refused_with_the_reason() -> None:
    fs = MemFS(InMemoryFileStore(), clock=lambda: dt.date(2026, 12, 3))
    flow = b"---\nname: a\ndescription: d\nmetadata: {type: user, recorded: 2026-01-05}\n---\nb\n"
    with pytest.raises(
        FrontmatterStampError, match=r"its metadata is in flow style \(\{\.\.\.\}\)"
    ):
        fs.pipe_file("memory/a.md", flow)
    assert not fs.exists("memory/a.md")


@pytest.mark.parametrize(
    ("line", "kind"),
    [("metadata: {type: user}", "in flow style ({...})"), ("metadata: x", "written as 'x'")],
)
def test_the_line_reader_names_a_metadata_value_on_its_own_line(line: str, kind: str) -> None:
    # the line-based stamp (the one that keeps comments and layout) takes only a block of
    # 'key: value' lines under metadata:, and says what it met instead
    with pytest.raises(frontmatter_block._CannotStamp) as caught:
        frontmatter_block._metadata_block(["name: a\n", f"{line}\n"])
    assert str(caught.value) == f"its metadata is {kind}, not a block of 'key: value' lines"
