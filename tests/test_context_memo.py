"""The context block is memoised per file set and checked against the files' bytes."""

from __future__ import annotations

import datetime as dt

from memfs import InMemoryFileStore, MemFS
from memfs.context import build_context_block
from memfs.manifest import AgentManifest


def test_a_changed_index_of_the_same_length_changes_the_block():
    fs = MemFS(InMemoryFileStore())
    manifest = AgentManifest()
    fs.pipe_file("MEMORY.md", b"- [A](memory/a.md) - hook one\n")
    first = build_context_block(fs, manifest)
    assert build_context_block(fs, manifest) is first
    fs.pipe_file("MEMORY.md", b"- [B](memory/b.md) - hook two\n")
    second = build_context_block(fs, manifest)
    assert "memory/b.md" in second and "memory/a.md" not in second
    fs.rm_file("MEMORY.md")
    assert build_context_block(fs, manifest) == ""


def test_two_workspaces_with_the_same_paths_get_their_own_blocks():
    manifest = AgentManifest(context_files=["notes.md"])
    one, two = MemFS(InMemoryFileStore()), MemFS(InMemoryFileStore())
    one.pipe_file("notes.md", b"first workspace\n")
    two.pipe_file("notes.md", b"second workspace\n")
    assert "first workspace" in build_context_block(one, manifest)
    assert "second workspace" in build_context_block(two, manifest)
    assert "first workspace" in build_context_block(one, manifest)


def test_mutable_buffers_from_a_store_do_not_leak_into_the_memos():
    from memfs.staleness import decorate

    buf = bytearray(b"---\nname: a\nmetadata:\n  recorded: 2026-01-01\n---\nold body\n")
    today = dt.date(2026, 12, 1)
    first = decorate(buf, today)  # type: ignore[arg-type]
    buf[-9:] = b"new body\n"
    assert decorate(buf, today).endswith(b"new body\n")  # type: ignore[arg-type]
    assert first.endswith(b"old body\n")
