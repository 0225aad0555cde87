"""Index lines (memfs.index) whose links take unusual forms: a bare name in angle brackets, a
wikilink inside a markdown link's target, a bare path that leaves the workspace."""

from __future__ import annotations

from memfs.index import parse_index
from memfs.layout import Layout

PLATFORM = Layout.platform()


def test_a_bare_file_name_in_angle_brackets_names_the_memory_of_that_name() -> None:
    (entry,) = parse_index("- [A](<a.md>) — x\n", layout=PLATFORM).entries
    assert (entry.target, entry.memory_path) == ("<a.md>", "memory/a.md")


def test_a_wikilink_inside_a_markdown_links_target_is_not_a_second_reference() -> None:
    index = parse_index(
        "- [T](memory/[[b]].md) — x\n", layout=PLATFORM, memory_files={"memory/b.md"}
    )
    (entry,) = index.entries
    assert entry.memory_path == "memory/[[b]].md" and index.packed == []


def test_a_bare_path_that_leaves_the_workspace_is_not_a_memory() -> None:
    index = parse_index(
        "- see ../x.md and memory/a.md\n", layout=PLATFORM, memory_files={"memory/a.md"}
    )
    (entry,) = index.entries
    assert entry.memory_path == "memory/a.md" and index.packed == []
