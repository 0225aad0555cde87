"""MEMORY.md parsing: entries, packed lines of every shape, other lines, link resolution."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from memfs.index import MemoryIndex, parse_index, resolve_link
from memfs.layout import Layout

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
    assert resolve_link("?q=1") is None  # a query alone names no file
    assert resolve_link("memory/a%20b.md") == "memory/a b.md"


def test_same_file_twice_on_one_line_is_an_entry():
    idx = parse_index("- [a](memory/a.md) — see also [again](memory/a.md)\n")
    assert len(idx.entries) == 1 and not idx.packed


def test_html_comments_hold_no_memory_references():
    # The shape real stores commit: a template line in a comment, an example across several.
    text = (
        "<!-- one line per memory: - [Title](slug.md) — short hook -->\n"
        "- [Real](real.md) — kept <!-- not [[other-slug]] --> and [after](after.md)\n"
        "<!--\n"
        "Example:\n"
        "\n"
        "- [Example](example.md) — `topic.md`\n"
        "-->\n"
        "- [Last](last.md) — after the comment\n"
        "- [Arrow](arrow.md) — an unclosed <!-- inside a line is text\n"
        "- [Still](still.md) — so this line is an entry\n"
    )
    files = {"memory/real.md", "memory/after.md", "memory/last.md", "memory/topic.md"}
    files |= {"memory/arrow.md", "memory/still.md"}
    idx = parse_index(text, memory_files=files)
    assert [p.memory_paths for p in idx.packed] == [["memory/real.md", "memory/after.md"]]
    assert [(e.memory_path, e.line) for e in idx.entries] == [
        ("memory/last.md", 8),
        ("memory/arrow.md", 9),
        ("memory/still.md", 10),
    ]
    assert [o.line for o in idx.other] == [1, 3, 4, 6, 7]
    assert idx.linked_paths() == files - {"memory/topic.md"}


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


# -- one rule for every shape, in every layout -----------------------------------------------------

FLAT = Layout.claude_code("")
NESTED = Layout.claude_code(".claude/memory")


def _classes(idx):
    out = {e.line: ("entry", e.memory_path) for e in idx.entries}
    out |= {p.line: ("packed", tuple(p.memory_paths)) for p in idx.packed}
    return out | {o.line: ("other", None) for o in idx.other}


def test_bare_names_backticks_and_a_second_reference_in_a_hook():
    text = (
        "- beta.md — a bare name\n"  # 1 entry
        "- Gamma lives in `gamma.md`\n"  # 2 entry
        "- [Delta](delta.md) — see also epsilon.md\n"  # 3 packed: two memories
        "| Theta | [theta](theta.md) | `src/theta.py` |\n"  # 4 entry: one memory, one source file
        "- [Site](https://example.org/notes.md) — external\n"  # 5 other
        "- [Instructions](../CLAUDE.md) — outside\n"  # 6 other
        "- [Self](MEMORY.md) and [a dir](sub/)\n"  # 7 other
    )
    idx = parse_index(text, layout=FLAT)
    assert _classes(idx) == {
        1: ("entry", "beta.md"),
        2: ("entry", "gamma.md"),
        3: ("packed", ("delta.md", "epsilon.md")),
        4: ("entry", "theta.md"),
        5: ("other", None),
        6: ("other", None),
        7: ("other", None),
    }
    assert idx.entries[0].hook == "a bare name" and idx.entries[0].title == "beta.md"
    assert idx.linked_paths() == {"beta.md", "gamma.md", "delta.md", "epsilon.md", "theta.md"}


def test_a_plain_file_name_names_a_memory_in_the_platform_layout():
    idx = parse_index(
        "- [Role](user_role.md) — Claude Code's own form\n- see `b.md` and memory/c.md\n"
    )
    assert idx.entries[0].path == "user_role.md"  # as the link resolves
    assert idx.entries[0].memory_path == "memory/user_role.md"  # the memory it names
    assert idx.packed[0].memory_paths == ["memory/b.md", "memory/c.md"]
    assert idx.linked_paths() == {"memory/user_role.md", "memory/b.md", "memory/c.md"}
    # A path outside memory/ is a workspace file, not a memory.
    assert parse_index("- [Notes](docs/notes.md) — a doc\n").other


def test_wikilinks_resolve_relative_to_the_layout():
    assert parse_index("- [[user-role]]\n", layout=NESTED).entries[0].memory_path == (
        ".claude/memory/user-role.md"
    )
    # an index at memory/MEMORY.md is Claude Code's: its memories are beside it
    legacy = parse_index("- [[user-role]]\n", "memory/MEMORY.md")
    assert legacy.entries[0].memory_path == "memory/user-role.md"
    assert parse_index("- [[user-role]]\n").entries[0].memory_path == "memory/user-role.md"
    assert parse_index("- [[user-role]]\n", layout=FLAT).entries[0].memory_path == "user-role.md"


def test_links_leaving_the_workspace_are_never_memories():
    for layout in (FLAT, NESTED, Layout.platform()):
        idx = parse_index("- [a](../../a.md) — x\n- ../b.md and ../../c.md\n", layout=layout)
        assert not idx.entries and not idx.packed
        assert all(not p.startswith("..") for p in idx.linked_paths())


NAMES = ["alpha", "user_role", "feedback-x", "記憶", "a.b"]
FORMS = [
    "[T]({link})",
    "[T](./{link})",
    "[T](<{link}>)",
    "[T]({link}#part)",
    "`{link}`",
    "{link}",
    "[[{stem}]]",
    "[[{stem}|label]]",
]
NOISE = [" — ", ", ", " see also ", "- ", "| ", " |", "[x](https://e.org/y.md)", " src/app.py ",
         "# h ", "[d](../../CLAUDE.md)", " text "]  # fmt: skip


@st.composite
def index_pieces(draw):
    """Index text as (platform text, Claude Code text): the same lines, links in each form."""
    lines = []
    for _ in range(draw(st.integers(1, 8))):
        parts = []
        for _ in range(draw(st.integers(0, 4))):
            if draw(st.booleans()):
                name, form = draw(st.sampled_from(NAMES)), draw(st.sampled_from(FORMS))
                parts.append((form, name))
            else:
                parts.append((draw(st.sampled_from(NOISE)), None))
        lines.append(parts)

    def render(prefix):
        out = []
        for parts in lines:
            text = ""
            for piece, name in parts:
                if name is None:
                    text += piece
                else:
                    bare = piece in ("`{link}`", "{link}")
                    link = name + ".md"
                    # a bare name is not rewritten between layouts; a link is
                    text += piece.format(link=link if bare else prefix + link, stem=name)
            out.append(text)
        return "\n".join(out) + "\n"

    return render("memory/"), render("")


def _in_area(layout, path):
    """``path`` relative to the layout's memory directory."""
    return path[len(layout.memory_dir) + 1 :] if layout.memory_dir else path


@settings(max_examples=300, deadline=None)
@given(index_pieces())
def test_the_same_index_classifies_the_same_in_every_layout(texts):
    platform_text, cc_text = texts
    platform = parse_index(platform_text, layout=Layout.platform())
    flat = parse_index(cc_text, layout=FLAT)
    nested = parse_index(cc_text, layout=NESTED)

    def shape(idx, layout):
        names = {}
        for line, (kind, paths) in _classes(idx).items():
            if paths is None:
                names[line] = (kind, ())
            else:
                seq = (paths,) if isinstance(paths, str) else paths
                names[line] = (kind, tuple(_in_area(layout, p) for p in seq))
        return names

    assert shape(platform, Layout.platform()) == shape(flat, FLAT) == shape(nested, NESTED)
    for idx in (platform, flat, nested):
        for _line, (kind, paths) in _classes(idx).items():
            count = 0 if paths is None else (1 if isinstance(paths, str) else len(paths))
            assert {"other": 0, "entry": 1}.get(kind, 2) <= count
            assert kind != "packed" or count >= 2


# -- the link rule, told which memory files exist ----------------------------------------------


def test_bare_names_count_only_when_they_name_a_memory_file():
    text = (
        "- Instructions: CLAUDE.md, then BACKLOG.md\n"  # 1 repository files: prose
        "- The plan: docs/plan.md; research in `strategy/market-research-corpus.md`\n"  # 2 prose
        "- Style notes live in `feedback_style.md`\n"  # 3 a memory file: an entry
        "- [Gone](gone.md) — a link is a memory link, broken or not\n"  # 4 entry
        "- [Instructions](../../CLAUDE.md) — leaves the memory area\n"  # 5 other
    )
    for layout in (NESTED, FLAT):
        files = {layout.memory_path("feedback_style")}
        idx = parse_index(text, layout=layout, memory_files=files)
        assert _classes(idx) == {
            1: ("other", None),
            2: ("other", None),
            3: ("entry", layout.memory_path("feedback_style")),
            4: ("entry", layout.memory_path("gone")),
            5: ("other", None),
        }
    # Without the file list every name the layout could hold counts (a write receipt's view).
    unknown = parse_index(text, layout=NESTED)
    assert (len(unknown.entries), len(unknown.packed)) == (2, 2)


def test_a_bare_name_is_read_the_same_whatever_punctuation_surrounds_it():
    shapes = ["=GUIDE.md.", "=GUIDE.md(git log)", "`GUIDE.md`", "(GUIDE.md)", "GUIDE.md,",
              "[GUIDE.md]", "GUIDE.md:", "see GUIDE.md"]  # fmt: skip
    for shape in shapes:
        line = f"- setup: {shape}\n"
        assert parse_index(line, layout=FLAT, memory_files={"GUIDE.md"}).entries, shape
        assert not parse_index(line, layout=FLAT, memory_files={"other.md"}).entries, shape
    for not_a_name in ("GUIDE.md.bak", "GUIDE.mdx", "GUIDE.md-old", "GUIDE.md/x", "/GUIDE.md"):
        line = f"- setup: {not_a_name}\n"
        assert not parse_index(line, layout=FLAT, memory_files={"GUIDE.md"}).entries, not_a_name


def test_a_bare_name_finds_its_memory_in_a_sub_folder_in_every_layout():
    text = "- see semantic/billing.md and `pricing.md`; [[glossary]]\n- ghost.md, `x/ghost.md`\n"
    area = ["semantic/billing.md", "semantic/pricing.md", "semantic/glossary.md"]
    for layout in (FLAT, NESTED, Layout.platform()):
        files = {layout.memory_path(p) for p in area}
        idx = parse_index(text, layout=layout, memory_files=files)
        assert [_in_area(layout, p) for p in idx.packed[0].memory_paths] == area
        assert [o.line for o in idx.other] == [2]
    # a plain file name found twice names neither
    two = {"a/pricing.md", "b/pricing.md"}
    assert parse_index("- `pricing.md`\n", layout=FLAT, memory_files=two).other
