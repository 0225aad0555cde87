"""``keep_memory``: write_file may not replace everything a memory said (an opt-in lever)."""

from __future__ import annotations

import datetime as dt

import pytest
from memfs import AgentManifest, FileToolExecutor, InMemoryFileStore, MemFS
from memfs.context import build_context_block

from memfs_eval.arms import parse_arm

TODAY = dt.date(2026, 12, 1)
OLD = "---\nname: purpose\ndescription: What this item tracks\nmetadata:\n  type: project\n---\n"
OLD += "This item holds the monthly churn dashboard.\nIt is read by finance.\n"
NEW = "---\nname: purpose\ndescription: Churn\nmetadata:\n  type: project\n---\nPaying only.\n"
KEPT = NEW.replace("Paying only.\n", "This item holds the monthly churn dashboard.\nPaying only.\n")
REFUSED = (
    "Error: write_file would replace everything memory/purpose.md says ('This item holds the "
    "monthly churn dashboard.'); nothing was written. A memory stays until the user asks to "
    "change it: to save a new fact, write a new file such as memory/<new-name>.md; to change "
    "this memory, edit_file the part that changed."
)


def workspace() -> MemFS:
    fs = MemFS(InMemoryFileStore(), clock=lambda: TODAY)
    fs.pipe_file("memory/purpose.md", OLD.encode())
    return fs


def tools(fs: MemFS, **kw: object) -> FileToolExecutor:
    return FileToolExecutor(fs, AgentManifest(keep_memory=True), **kw)  # type: ignore[arg-type]


def stored(fs: MemFS) -> str:
    return fs.raw.cat_file("memory/purpose.md").decode()


def test_reading_then_replacing_every_line_is_refused_and_the_memory_kept():
    fs = workspace()
    ex = tools(fs)
    ex.execute("read_file", {"path": "memory/purpose.md"})
    before = stored(fs)
    assert ex.execute("write_file", {"path": "memory/purpose.md", "content": NEW}) == REFUSED
    assert stored(fs) == before
    # keeping one line of the body is a change, not a replacement
    out = ex.execute("write_file", {"path": "memory/purpose.md", "content": KEPT})
    assert out.startswith("Overwrote memory/purpose.md")


def test_a_new_name_is_suggested_from_the_frontmatter_sent():
    fs = workspace()
    ex = tools(fs)
    ex.execute("read_file", {"path": "memory/purpose.md"})
    out = ex.execute(
        "write_file",
        {"path": "memory/purpose.md", "content": NEW.replace("name: purpose", "name: Paying only")},
    )
    assert "write a new file such as memory/paying-only.md;" in out


def test_a_file_this_turn_made_or_one_without_a_body_is_its_own_to_rewrite():
    fs = workspace()
    ex = tools(fs)
    assert ex.execute("write_file", {"path": "memory/new.md", "content": OLD}).startswith("Created")
    out = ex.execute("write_file", {"path": "memory/new.md", "content": NEW})
    assert out.startswith("Overwrote memory/new.md")
    fs.pipe_file("memory/empty.md", NEW.replace("Paying only.\n", "").encode())
    ex.execute("read_file", {"path": "memory/empty.md"})
    assert ex.execute("write_file", {"path": "memory/empty.md", "content": NEW}).startswith(
        "Overwrote"
    )
    fs.pipe_file("notes.md", b"Old notes.\n")  # not memory
    ex.execute("read_file", {"path": "notes.md"})
    assert ex.execute("write_file", {"path": "notes.md", "content": "New."}).startswith("Overwrote")


def test_a_memory_shown_in_the_block_is_kept_as_it_was_shown():
    fs = workspace()
    manifest = AgentManifest(context_files=["memory/purpose.md"], keep_memory=True)
    ex = FileToolExecutor(fs, manifest, context_block=build_context_block(fs, manifest))
    assert ex.execute("write_file", {"path": "memory/purpose.md", "content": NEW}) == REFUSED
    assert stored(fs) == fs.raw.cat_file("memory/purpose.md").decode()


def test_without_read_before_write_the_stored_memory_is_kept_all_the_same():
    fs = workspace()
    ex = tools(fs, read_before_write=False)
    assert ex.execute("write_file", {"path": "memory/purpose.md", "content": NEW}) == REFUSED
    assert ex.execute("write_file", {"path": "memory/fresh.md", "content": OLD}).startswith(
        "Created"
    )
    assert ex.execute("write_file", {"path": "memory/fresh.md", "content": NEW}).startswith(
        "Overwrote"
    )


def test_off_by_default_and_a_lever_of_the_live_check():
    fs = workspace()
    ex = FileToolExecutor(fs)
    ex.execute("read_file", {"path": "memory/purpose.md"})
    assert ex.execute("write_file", {"path": "memory/purpose.md", "content": NEW}).startswith(
        "Overwrote"
    )
    arm = parse_arm("k=tools=files-only,levers=read+receipt+loop+keep")
    assert arm.keep_memory and arm.manifest().keep_memory and "keep" in arm.levers
    assert not parse_arm("d=tools=files-only").keep_memory


@pytest.mark.parametrize("long", [True, False])
def test_the_refusal_quotes_the_first_line_cut_to_a_readable_length(long):
    fs = MemFS(InMemoryFileStore(), clock=lambda: TODAY)
    first = ("word " * 30).strip() if long else "Short line."
    fs.pipe_file(
        "memory/purpose.md",
        OLD.replace("This item holds the monthly churn dashboard.", first).encode(),
    )
    ex = tools(fs)
    ex.execute("read_file", {"path": "memory/purpose.md"})
    out = ex.execute("write_file", {"path": "memory/purpose.md", "content": NEW})
    quoted = out.split("says (", 1)[1].split("); nothing", 1)[0]
    assert quoted == (repr(first[:79] + "…") if long else repr(first))
