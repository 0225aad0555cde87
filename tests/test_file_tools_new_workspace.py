"""The agent file tools (memfs.tools) on a workspace with no index yet, on a file shown in the
context block that is deleted or changed before the write, on bytes that are not text, and the
text a recorded call would persist."""

from __future__ import annotations

import datetime as dt

from memfs import InMemoryFileStore, MemFS
from memfs.context import build_context_block
from memfs.manifest import AgentManifest
from memfs.tools import FileToolExecutor, ToolCallRecord

from tests.test_history_refusals import Racing

TODAY = dt.date(2026, 12, 1)
MEMORY_A = "---\nname: a\ndescription: d\nmetadata:\n  type: user\n---\nBody.\n"
INDEX = b"- [A](memory/a.md) - a\n"


def test_the_index_of_a_new_workspace_reads_as_empty_and_a_write_is_nudged_to_it() -> None:
    fs = MemFS(InMemoryFileStore(), clock=lambda: TODAY)
    ex = FileToolExecutor(fs, index_nudge=True)
    assert ex.execute("read_file", {"path": "MEMORY.md"}) == (
        "(MEMORY.md is empty: no memory is indexed yet; write it to add one)"
    )
    out = ex.execute("write_file", {"path": "memory/a.md", "content": MEMORY_A})
    assert out.splitlines()[0] == "Created memory/a.md (83 bytes)."
    assert out.splitlines()[-1] == (
        "No line of MEMORY.md links it yet; append this line to MEMORY.md: - [A](memory/a.md) — d"
    )
    assert not fs.exists("MEMORY.md")


def test_a_file_shown_in_the_block_then_deleted_is_created_by_the_write() -> None:
    fs = MemFS(InMemoryFileStore(), clock=lambda: TODAY)
    fs.pipe_file("MEMORY.md", INDEX)
    ex = FileToolExecutor(fs, context_block=build_context_block(fs, AgentManifest()))
    fs.rm_file("MEMORY.md")  # another turn removed it after this one was shown it
    out = ex.execute("write_file", {"path": "MEMORY.md", "content": "- [B](memory/b.md) - b\n"})
    assert out.startswith("Created MEMORY.md (23 bytes).")
    assert fs.raw.cat_file("MEMORY.md") == b"- [B](memory/b.md) - b\n"


def test_a_file_shown_in_the_block_changed_just_before_the_write_is_kept() -> None:
    store = Racing()
    fs = MemFS(store, clock=lambda: TODAY)
    fs.pipe_file("MEMORY.md", INDEX)
    ex = FileToolExecutor(fs, context_block=build_context_block(fs, AgentManifest()))
    theirs = b"- [Z](memory/z.md) - another turn's\n"
    # the other turn writes between this write's read of the file and its conditional store
    store.before_write["MEMORY.md"] = lambda: InMemoryFileStore.write(store, "MEMORY.md", theirs)
    out = ex.execute("write_file", {"path": "MEMORY.md", "content": "- [B](memory/b.md) - b\n"})
    assert out == (
        "Error: MEMORY.md changed since this turn was shown it; nothing was written. read_file "
        "it again, then write_file or edit_file on its current content."
    )
    assert fs.raw.cat_file("MEMORY.md") == theirs


def test_a_file_that_is_not_utf8_cannot_be_edited() -> None:
    fs = MemFS(InMemoryFileStore(), clock=lambda: TODAY)
    fs.pipe_file("notes/bin.txt", b"\xff\xfeab")
    out = FileToolExecutor(fs).execute(
        "edit_file", {"path": "notes/bin.txt", "old_string": "ab", "new_string": "cd"}
    )
    assert out == "Error: 'notes/bin.txt' is not UTF-8 text; it cannot be edited."
    assert fs.raw.cat_file("notes/bin.txt") == b"\xff\xfeab"


def test_a_recorded_call_persists_every_string_in_its_arguments() -> None:
    nested = {"path": "memory/a.md", "edits": [{"old": "x", "new": ["y", ("z",)]}], "n": 3}
    assert ToolCallRecord(name="edit", arguments=nested).text() == "memory/a.md\nx\ny\nz"
    assert ToolCallRecord(name="edit", arguments="{not json").text() == "{not json"
