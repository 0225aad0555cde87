"""``collect_stats`` + ``report_json`` byte for byte against reports kept from before the stats
pass was made cheaper: generated stores at several sizes, the Claude Code fixtures in the layout
each is detected as, and hand-made stores of every shape the parser treats apart (broken and
non-YAML frontmatter, CJK, unquoted ``: `` descriptions, index lines naming no file, future and
bad dates, bytes that are not UTF-8, CRLF, a BOM, wikilinks by every spelling).

The expected reports (``tests/golden/stats/*.json``) were written by :func:`write_expected` with
the starting commit's ``memfs`` first on the path; a change to any figure or finding fails here.
Regenerate them only for a change that means to change the report:
``python -c "import tests.test_stats_golden as g; g.write_expected()"``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from memfs import InMemoryFileStore, LocalFileStore, MemFS
from memfs.generator import generate_workspace
from memfs.layout import Layout, detect_layout
from memfs.stats import collect_stats, measure, report_json

from tests.conftest import TODAY

GOLDEN = Path(__file__).parent / "golden" / "stats"
FIXTURES = Path(__file__).parent / "fixtures" / "claude_code"

_FM = "---\nname: {name}\ndescription: {desc}\nmetadata:\n  type: {type}\n  recorded: {date}\n---\n"

EDGE_FILES: dict[str, bytes] = {
    # the plain shape, and each of its fields varied
    "memory/plain.md": _FM.format(name="plain", desc="d", type="user", date="2026-11-30").encode()
    + b"see [[ghost]] and [[plain]] and [[Project Plain|label]] and [[x#h]]\n",
    "memory/user_role.md": _FM.format(
        name="user_role", desc="The user is a 製程工程師", type="user", date="2026-10-01"
    ).encode()
    + "使用者是製程工程師，不需要解釋 Cpk。[[feedback-style]] [[user-role]]\n".encode(),
    "memory/feedback_style.md": _FM.format(
        name="Feedback Style", desc='"quoted: with colon"', type="feedback", date="2025-01-01"
    ).encode(),
    "memory/future.md": _FM.format(
        name="future", desc="from the future", type="odd", date="2027-01-01"
    ).encode(),
    "memory/both_dates.md": b"---\nname: both_dates\ndescription: two\nmetadata:\n  type: project\n"
    b"  recorded: 2027-05-01\n  modified: 2026-06-01T10:00:00Z\ncreated: 2020-01-01\n---\nx\n",
    "memory/bad_date.md": b"---\nname: bad_date\ndescription: bad\nmetadata:\n  type: project\n"
    b"  recorded: 2026-13-45\nupdated: yesterday\n---\nbody\n",
    "memory/unquoted.md": b"---\nname: unquoted\ndescription: Cover letter standards: NYC, 1 page\n"
    b"metadata:\n  type: reference\n  recorded: 2026-09-01\n---\nbody\n",
    "memory/broken.md": b"---\nname: [x\n---\nbody\n",
    "memory/list.md": b"---\n- a\n- b\n---\nbody\n",
    "memory/no_fm.md": b"no frontmatter here [[plain]]\n",
    "memory/empty_fm.md": b"---\n---\nbody\n",
    "memory/unclosed.md": b"---\nname: unclosed\nbody without a closing fence\n",
    "memory/latin1.md": b"---\nname: latin1\ndescription: caf\xe9\nmetadata:\n  type: user\n"
    b"  recorded: 2026-08-01\n---\n\xff\xfe body\n",
    "memory/crlf.md": b"---\r\nname: crlf\r\ndescription: windows\r\nmetadata:\r\n  type: user\r\n"
    b"  recorded: 2026-11-01\r\n---\r\nbody\r\n",
    "memory/bom.md": b"\xef\xbb\xbf---\nname: bom\ndescription: with a bom\n---\nbody\n",
    "memory/top_type.md": b"---\nname: top_type\ndescription: old\ntype: feedback\n---\nb\n",
    "memory/extras.md": b"---\nname: extras\ndescription: e\nnode_type: memory\noriginSessionId: "
    b"abc-123\n1: one\nmetadata:\n  type: project\n  recorded: 2026-11-29\n  source: chat\n---\n",
    "memory/meta_scalar.md": b"---\nname: meta_scalar\ndescription: m\nmetadata: just text\n---\n",
    "memory/meta_null.md": b"---\nname: meta_null\ndescription: m\nmetadata: \n---\n",
    "memory/numbers.md": b"---\nname: 123\ndescription: 4.5\nmetadata:\n  type: true\n"
    b"  recorded: 2026-11-15\n---\n",
    "memory/comment.md": b"---\nname: comment  # a comment\ndescription: c #not one\n---\n",
    "memory/nameless.md": b"---\ndescription: no name here\nmetadata:\n  type: user\n---\n",
    "memory/blank_desc.md": b"---\nname: blank_desc\ndescription: '   '\n---\n",
    "memory/block.md": b"---\nname: block\ndescription: |\n  line one\n  line two\n---\n",
    "memory/alias.md": b"---\nname: alias\nx: &a [1, 2]\ny: *a\n---\n",
    "memory/tab.md": b"---\nname: tab\n\tdescription: tabbed\n---\n",
    "memory/yes.md": b"---\nname: yes\ndescription: no\nmetadata:\n  type: on\n---\n",
    "memory/sub/nested.md": b"---\nname: nested\ndescription: in a folder\n---\n[[sub/nested]]\n",
    "memory/CamelCase.md": b"---\nname: CamelCase\ndescription: camel\n---\n[[camel-case]]\n",
    "memory/dots.md": b"---\nname: dots\ndescription: ...\n...\nbody after a dot fence\n",
    "notes.md": b"not memory",
    "MEMORY.md": "# Memory\n- [Plain](memory/plain.md) \u2014 hook\n"
    "- old: [B](memory/no_fm.md), [gone](memory/gone.md), [[user_role]]\n"
    "- [Missing](memory/missing.md) \u2014 never written\n"
    "<!-- - [Template](memory/template.md) -->\n"
    "- see latin1.md and `memory/crlf.md` and CLAUDE.md\n"
    "- [Web](https://example.com/x.md) [Up](../outside.md)\n"
    "- \u51b7\u8a18\u61b6\uff1a[A](memory/future.md) \u00b7 [B](memory/bom.md) \u00b7 [[ghost]]\n"
    "\n"
    "- [Future](memory/future.md)\n".encode(),
}


def _in_memory(files: dict[str, bytes], layout: Layout | None = None) -> MemFS:
    store = InMemoryFileStore()
    for path, data in files.items():
        store.write(path, data)
    if layout is None:
        return MemFS(store, clock=lambda: TODAY, read_only=True)
    return MemFS(store, layout=layout, clock=lambda: TODAY, read_only=True)


def _generated(n: int, seed: int = 0) -> Callable[[], MemFS]:
    def build() -> MemFS:
        fs = MemFS(InMemoryFileStore(), clock=lambda: TODAY)
        generate_workspace(fs, n, seed=seed)
        return MemFS(fs.store, clock=lambda: TODAY, read_only=True)

    return build


def _fixture(name: str) -> Callable[[], MemFS]:
    def build() -> MemFS:
        store = LocalFileStore(FIXTURES / name)
        layout = detect_layout(MemFS(store).raw.find("")).layout
        return MemFS(store, layout=layout, clock=lambda: TODAY, read_only=True)

    return build


def _edge(layout: Layout | None = None, drop_index: bool = False) -> Callable[[], MemFS]:
    def build() -> MemFS:
        files = dict(EDGE_FILES)
        if drop_index:
            files.pop("MEMORY.md")
        if layout is not None and layout.memory_dir != "memory":
            moved = {}
            for path, data in files.items():
                if path.startswith("memory/"):
                    path = layout.memory_path(path[len("memory/") :])
                elif path == "MEMORY.md":
                    path = layout.index_path
                moved[path] = data
            files = moved
        return _in_memory(files, layout)

    return build


STORES: dict[str, Callable[[], MemFS]] = {
    "generated-10": _generated(10),
    "generated-100": _generated(100, seed=3),
    "generated-261": _generated(261),
    "generated-1000": _generated(1000, seed=7),
    "edge-platform": _edge(),
    "edge-no-index": _edge(drop_index=True),
    "edge-flat": _edge(Layout.claude_code("")),
    "edge-nested": _edge(Layout.claude_code(".claude/memory")),
    **{
        f"fixture-{p.name}": _fixture(p.name)
        for p in sorted(FIXTURES.iterdir())
        if p.is_dir() and not p.name.startswith(".")
    },
}


def report_of(name: str) -> str:
    fs = STORES[name]()
    report = collect_stats(fs)
    report.workspace = "<workspace>"  # the store's repr names a temporary path
    return report_json(report) + "\n"


RECORD_STORES = sorted(n for n in STORES if n not in ("generated-261", "generated-1000"))
"""Stores whose parsed records are kept too (every field, the private ones a write-back uses)."""


def records_of(name: str) -> str:
    m = measure(STORES[name]())
    body = not name.startswith("generated")  # the generated bodies are most of the bytes
    out = [
        {
            **r.to_json_dict(body=body),
            "_key_order": r._key_order,
            "_type_at_top": r._type_at_top,
            "_unread": list(r._unread),
            "_original_is_text": r._original == m.contents[r.path].decode("utf-8", "replace"),
        }
        for r in m.records
    ]
    return json.dumps(out, indent=1, ensure_ascii=False) + "\n"


def write_expected() -> None:
    """Write every store's report to :data:`GOLDEN` (run with the reference ``memfs``)."""
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for name in STORES:
        (GOLDEN / f"{name}.json").write_text(report_of(name), encoding="utf-8")
    for name in RECORD_STORES:
        (GOLDEN / f"{name}.records.json").write_text(records_of(name), encoding="utf-8")


@pytest.mark.parametrize("name", sorted(STORES))
def test_report_is_byte_identical_to_the_kept_one(name):
    expected = (GOLDEN / f"{name}.json").read_text(encoding="utf-8")
    assert report_of(name) == expected


@pytest.mark.parametrize("name", RECORD_STORES)
def test_records_are_the_kept_ones(name):
    expected = (GOLDEN / f"{name}.records.json").read_text(encoding="utf-8")
    assert records_of(name) == expected


@pytest.mark.parametrize("name", ["generated-100", "edge-platform", "fixture-frontmatter"])
def test_measure_gives_the_report_and_records_collect_stats_gives(name):
    fs = STORES[name]()
    m = measure(fs)
    m.report.workspace = "<workspace>"
    assert report_json(m.report) + "\n" == (GOLDEN / f"{name}.json").read_text(encoding="utf-8")
    assert [r.path for r in m.records] == sorted(m.contents)
