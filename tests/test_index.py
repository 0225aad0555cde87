"""MEMORY.md parsing: entries, packed lines of every shape, other lines, link resolution."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from memfs.index import MemoryIndex, parse_index, resolve_link

INDEX = """# Memory

- [User is a process engineer](memory/user-role.md) — skip SPC basics
* [Yield source](memory/yield-source.md): MES daily_yield, not the weekly report
1. [Spaces](memory/with%20space.md#top) – anchored
- 冷記憶：[舊報表](memory/old-report.md)、[舊機台](memory/old-tool.md)、[供應商](memory/vendor.md)
- archive: old_a.md, old_b.md, memory/old_c.md
- [[wiki-one]] · [[wiki-two|Two]]
- [Dashboard](https://example.com/d) — external, not a memory
Some prose line with no link.
"""


def test_entries_packed_and_other():
    idx = parse_index(INDEX)
    assert [(e.title, e.path, e.hook, e.line) for e in idx.entries] == [
        ("User is a process engineer", "memory/user-role.md", "skip SPC basics", 3),
        ("Yield source", "memory/yield-source.md", "MES daily_yield, not the weekly report", 4),
        ("Spaces", "memory/with space.md", "anchored", 5),
    ]
    assert [p.paths for p in idx.packed] == [
        ["memory/old-report.md", "memory/old-tool.md", "memory/vendor.md"],
        ["old_a.md", "old_b.md", "memory/old_c.md"],
        ["memory/wiki-one.md", "memory/wiki-two.md"],
    ]
    assert idx.packed[0].titles == ["舊報表", "舊機台", "供應商"]
    assert idx.folded_count == 8
    assert [o.line for o in idx.other] == [1, 9, 10]
    assert idx.line_count == 10
    assert idx.char_count == len(INDEX)
    assert "memory/user-role.md" in idx.linked_paths()
    assert len(idx.linked_paths()) == 11


def test_links_resolve_relative_to_the_index():
    idx = parse_index("- [a](a.md) — x\n- [b](../b.md) — y\n", index_path="memory/MEMORY.md")
    assert [e.path for e in idx.entries] == ["memory/a.md", "b.md"]
    assert resolve_link("./memory/x.md") == "memory/x.md"
    assert resolve_link("/memory/x.md", "sub/MEMORY.md") == "memory/x.md"
    assert resolve_link("<memory/a b.md>") == "memory/a b.md"
    assert resolve_link("https://x.y/z.md") is None
    assert resolve_link("#heading") is None
    assert resolve_link("mailto:a@b") is None


def test_same_file_twice_on_one_line_is_an_entry():
    idx = parse_index("- [a](memory/a.md) — see also [again](memory/a.md)\n")
    assert len(idx.entries) == 1 and not idx.packed


def test_no_size_cap():
    text = "".join(f"- [m{i}](memory/m{i}.md) — hook {i}\n" for i in range(5000))
    assert len(parse_index(text).entries) == 5000


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_fuzz_never_raises_and_accounts_for_every_line(text):
    idx = parse_index(text)
    assert isinstance(idx, MemoryIndex)
    classified = {e.line for e in idx.entries} | {p.line for p in idx.packed}
    classified |= {o.line for o in idx.other}
    nonblank = {i for i, line in enumerate(text.splitlines(), 1) if line.strip()}
    assert classified == nonblank


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["[t](a.md)", "[[w]]", " — ", "x.md", "- ", "[", "](", ")", "\n"])))
def test_fuzz_link_fragments(parts):
    text = "".join(parts)
    idx = parse_index(text)
    assert idx.line_count == len(text.splitlines())
    assert all(len(p.paths) >= 2 for p in idx.packed)
