"""The agent's file tools: schemas, the executor, and the filesystem rules they inherit."""

from __future__ import annotations

import errno
import json
import sys
import types

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from memfs import InMemoryFileStore, MemFS, reminder_text
from memfs.context import index_budget_note
from memfs.manifest import AgentManifest, IndexBudget
from memfs.tools import (
    FILE_TOOL_NAMES,
    EditFileArgs,
    FileToolExecutor,
    ReadFileArgs,
    file_tool_schemas,
)

from tests.conftest import TODAY

STALE = """---
name: yield-source
description: "Authoritative yield data is MES daily_yield"
metadata:
  type: project
  recorded: 2026-09-02
---
Use MES `daily_yield`, not the QA weekly report.
"""
INDEX_LINE = "- [A](memory/a.md) — a\n"  # 25 bytes, a well-formed index line: no receipt
INDEX_LINE_B = "- [B](memory/b.md) — b\n"
STALE_DAYS = (TODAY - __import__("datetime").date(2026, 9, 2)).days


@pytest.fixture
def fs(clock) -> MemFS:
    fs = MemFS(InMemoryFileStore(), clock=clock)
    fs.migrating().pipe_file("memory/yield-source.md", STALE.encode())  # 90 days old, kept
    fs.pipe_file("MEMORY.md", b"- [Yield source](memory/yield-source.md) \xe2\x80\x94 MES\n")
    fs.pipe_file("notes/todo.txt", b"one\ntwo\none\n")
    return fs


@pytest.fixture
def ex(fs) -> FileToolExecutor:
    return FileToolExecutor(fs)


# -- schemas ----------


def test_schemas_are_openai_functions_with_the_platform_names():
    schemas = file_tool_schemas()
    assert [s["function"]["name"] for s in schemas] == [
        "read_file",
        "write_file",
        "edit_file",
        "list_files",
        "exists",
        "delete_file",
    ]
    for s in schemas:
        assert s["type"] == "function"
        params = s["function"]["parameters"]
        assert params["type"] == "object"
        assert params["additionalProperties"] is False
        assert s["function"]["description"]
    edit = schemas[2]["function"]["parameters"]
    assert edit["required"] == ["path", "old_string", "new_string"]
    assert set(edit["properties"]) == set(EditFileArgs.model_fields)
    json.dumps(schemas)  # must be JSON-serialisable as sent to the endpoint


def test_schemas_come_from_the_pydantic_models_and_advertise_canonical_names_only():
    read = file_tool_schemas(["read_file"])[0]["function"]["parameters"]
    assert read["properties"]["path"]["description"] == (
        ReadFileArgs.model_fields["path"].description
    )
    assert "file_path" not in json.dumps(read)


def test_unknown_schema_name_is_a_value_error():
    with pytest.raises(ValueError, match="Unknown file tools"):
        file_tool_schemas(["read_file", "rm_rf"])


# -- reading ----------


def test_read_file_returns_the_decorated_view_for_memory(ex):
    out = ex.execute("read_file", {"path": "memory/yield-source.md"})
    assert out.startswith(reminder_text(STALE_DAYS) + "\n")
    assert out.endswith(STALE)


def test_read_file_leaves_other_files_alone(ex):
    assert ex.execute("read_file", '{"path": "notes/todo.txt"}') == "one\ntwo\none\n"


def test_read_missing_file_says_what_to_do(ex):
    out = ex.execute("read_file", {"path": "memory/nope.md"})
    assert out.startswith("Error: No such file: 'memory/nope.md'.")
    assert "list_files" in out


def test_read_directory_is_an_error(ex):
    out = ex.execute("read_file", {"path": "memory"})
    assert out.startswith("Error: 'memory' is a directory")


def test_read_binary_file_is_an_error(ex, fs):
    fs.pipe_file("blob.bin", b"\xff\xfe\x00")
    assert "is not UTF-8 text" in ex.execute("read_file", {"path": "blob.bin"})


# -- writing and editing ----------


def test_write_file_creates_then_overwrites(ex, fs):
    assert ex.execute("write_file", {"path": "a/b.txt", "content": "hi"}) == (
        "Created a/b.txt (2 bytes)."
    )
    assert ex.execute("write_file", {"path": "a/b.txt", "content": "hey"}) == (
        "Overwrote a/b.txt (3 bytes)."
    )
    assert fs.cat_file("a/b.txt") == b"hey"


def test_a_read_written_back_does_not_store_the_reminder(ex, fs):
    shown = ex.execute("read_file", {"path": "memory/yield-source.md"})
    ex.execute("write_file", {"path": "memory/yield-source.md", "content": shown})
    assert fs.raw.cat_file("memory/yield-source.md").decode() == STALE


def test_edit_file_works_on_raw_bytes_of_a_stale_memory(ex, fs):
    out = ex.execute(
        "edit_file",
        {
            "path": "memory/yield-source.md",
            "old_string": "not the QA weekly report",
            "new_string": "never the QA weekly report (rounded to 0.1)",
        },
    )
    assert out == (
        "Edited memory/yield-source.md (line 8).\n"
        "Stored memory/yield-source.md: project memory 'yield-source', description "
        "'Authoritative yield data is MES daily_yield', recorded 2026-12-01."
    )
    stored = fs.raw.cat_file("memory/yield-source.md").decode()
    assert "<system-reminder>" not in stored
    # The body changed today, so the memory is dated today: the edit is a new fact.
    assert stored == STALE.replace("not the QA", "never the QA").replace(
        "report.", "report (rounded to 0.1)."
    ).replace("recorded: 2026-09-02", "recorded: 2026-12-01")


def test_edit_with_the_reminder_in_old_string_is_not_found_and_says_why(ex, fs):
    old = reminder_text(STALE_DAYS) + "\n---"
    out = ex.execute(
        "edit_file", {"path": "memory/yield-source.md", "old_string": old, "new_string": "---"}
    )
    assert out.startswith("Error: old_string was not found in memory/yield-source.md.")
    assert "reminder shown by read_file is not stored" in out
    assert fs.raw.cat_file("memory/yield-source.md").decode() == STALE


def test_edit_not_unique_names_the_lines(ex, fs):
    out = ex.execute(
        "edit_file", {"path": "notes/todo.txt", "old_string": "one", "new_string": "1"}
    )
    assert out == (
        "Error: old_string was found 2 times in notes/todo.txt, at lines 1, 3. Include more "
        "surrounding text so it matches exactly once."
    )
    assert fs.cat_file("notes/todo.txt") == b"one\ntwo\none\n"


def test_edit_empty_or_identical_strings_are_refused(ex):
    empty = ex.execute("edit_file", {"path": "notes/todo.txt", "old_string": "", "new_string": "x"})
    assert "old_string is empty" in empty
    same = ex.execute(
        "edit_file", {"path": "notes/todo.txt", "old_string": "two", "new_string": "two"}
    )
    assert "nothing would change" in same


def test_edit_missing_file(ex):
    out = ex.execute("edit_file", {"path": "nope.md", "old_string": "a", "new_string": "b"})
    assert out.startswith("Error: No such file: 'nope.md'.")


@settings(max_examples=60, deadline=None)
@given(
    prefix=st.text(max_size=40),
    needle=st.text(min_size=1, max_size=10),
    suffix=st.text(max_size=40),
    new=st.text(max_size=10),
)
def test_edit_replaces_exactly_the_unique_match(prefix, needle, suffix, new):
    text = prefix + needle + suffix
    if text.count(needle) != 1 or needle == new:
        return
    fs = MemFS(InMemoryFileStore(), clock=lambda: TODAY)
    fs.pipe_file("f.txt", text.encode())
    out = FileToolExecutor(fs).execute(
        "edit_file", {"path": "f.txt", "old_string": needle, "new_string": new}
    )
    assert out.startswith("Edited f.txt")
    assert fs.cat_file("f.txt").decode() == prefix + new + suffix


# -- listing, exists, delete ----------


def test_list_files(ex):
    assert ex.execute("list_files", {}) == "MEMORY.md\nmemory/\nnotes/"
    assert ex.execute("list_files", {"path": "memory"}) == "memory/yield-source.md"
    assert ex.execute("list_files", {"recursive": True}).splitlines() == [
        "MEMORY.md",
        "memory/yield-source.md",
        "notes/todo.txt",
    ]
    assert (
        ex.execute("list_files", {"path": "MEMORY.md"}) == "MEMORY.md is a file, not a directory."
    )
    assert ex.execute("list_files", {"path": "gone"}).startswith("Error: No such directory")


def test_list_empty_workspace(clock):
    ex = FileToolExecutor(MemFS(InMemoryFileStore(), clock=clock))
    assert ex.execute("list_files", None) == "The workspace root is empty."


def test_exists(ex):
    assert ex.execute("exists", {"path": "MEMORY.md"}) == "true: MEMORY.md exists (file)."
    assert ex.execute("exists", {"path": "memory"}) == "true: memory exists (directory)."
    assert ex.execute("exists", {"path": "memory/x.md"}) == "false: memory/x.md does not exist."


def test_delete_file(ex, fs):
    assert ex.execute("delete_file", {"path": "notes/todo.txt"}) == "Deleted notes/todo.txt."
    assert not fs.exists("notes/todo.txt")
    assert ex.execute("delete_file", {"path": "notes/todo.txt"}).startswith("Error: No such file")
    assert ex.execute("delete_file", {"path": "memory"}).startswith("Error: 'memory' is a dir")


# -- read-only mount (workflow turns) ----------


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("write_file", {"path": "MEMORY.md", "content": "x"}),
        ("edit_file", {"path": "MEMORY.md", "old_string": "MES", "new_string": "QA"}),
        ("delete_file", {"path": "MEMORY.md"}),
        ("write_file", {"path": "memory/new.md", "content": "x"}),
    ],
)
def test_read_only_mount_refuses_writes_as_a_tool_result(fs, name, args):
    before = fs.raw.cat_file("MEMORY.md")
    ex = FileToolExecutor(fs.read_only())
    out = ex.execute(name, args)
    assert out.startswith(f"Error: Cannot {name.removesuffix('_file')} '{args['path']}'")
    assert "mounted read-only" in out
    assert fs.raw.cat_file("MEMORY.md") == before
    assert not fs.exists("memory/new.md")


def test_read_only_mount_error_is_the_filesystems(fs):
    with pytest.raises(PermissionError) as info:
        fs.read_only().pipe_file("MEMORY.md", b"x")
    assert info.value.errno == errno.EROFS
    out = FileToolExecutor(fs.read_only()).execute(
        "write_file", {"path": "MEMORY.md", "content": ""}
    )
    assert "mounted read-only" in str(info.value.strerror)
    assert out.removeprefix("Error: ").split(":")[0] == "Cannot write 'MEMORY.md'"


def test_read_only_mount_still_reads(fs):
    ex = FileToolExecutor(fs.read_only())
    assert ex.execute("read_file", {"path": "memory/yield-source.md"}).startswith(
        "<system-reminder>"
    )
    assert ex.execute("exists", {"path": "MEMORY.md"}).startswith("true")


# -- bad calls never raise ----------


def test_invalid_json_arguments(ex):
    out = ex.execute("read_file", '{"path": "MEMORY.md"')
    assert out.startswith("Error: The arguments for read_file are not valid JSON")


def test_non_object_arguments(ex):
    assert "must be a JSON object" in ex.execute("read_file", '["MEMORY.md"]')


def test_missing_argument_names_it_and_the_expected_ones(ex):
    out = ex.execute("write_file", {"path": "x.md"})
    assert out == (
        "Error: Invalid arguments for write_file: missing required argument 'content'. "
        "Expected arguments: path, content."
    )


def test_wrong_type_argument(ex):
    out = ex.execute("read_file", {"path": 3})
    assert out.startswith("Error: Invalid arguments for read_file: 'path':")


def test_unknown_tool(ex):
    out = ex.execute("save_skill", {"name": "x"})
    assert out == (
        "Error: unknown tool 'save_skill'. The file tools available here are: read_file, "
        "write_file, edit_file, list_files, exists, delete_file."
    )


def test_path_escape_is_refused(ex):
    out = ex.execute("read_file", {"path": "../../etc/passwd"})
    assert out.startswith("Error: Refused path '../../etc/passwd'")
    out = ex.execute("write_file", {"path": "a\\b", "content": "x"})
    assert "backslashes" in out


def test_common_argument_aliases_are_accepted(ex, fs):
    out = ex.execute("write_file", {"file_path": "memory/role.md", "text": "hello"})
    assert out.startswith("Created memory/role.md")
    assert fs.exists("memory/role.md")


def test_subset_of_tools(fs):
    ex = FileToolExecutor(fs, tools=["read_file", "list_files"])
    assert ex.names == ("read_file", "list_files")
    assert [s["function"]["name"] for s in ex.schemas()] == ["read_file", "list_files"]
    assert ex.execute("write_file", {"path": "a", "content": "b"}).startswith(
        "Error: unknown tool 'write_file'"
    )
    assert set(FILE_TOOL_NAMES) >= set(ex.names)


# -- the index note ----------


def test_index_note_follows_writes_to_memory_md_only(fs):
    manifest = AgentManifest(index_budget=IndexBudget(max_lines=1))
    ex = FileToolExecutor(fs, manifest)
    ex.execute("read_file", {"path": "MEMORY.md"})  # an overwrite needs a read first
    two_lines = "- [A](memory/a.md) — a\n- [B](memory/b.md) — b\n"
    out = ex.execute("write_file", {"path": "MEMORY.md", "content": two_lines})
    note = index_budget_note(fs, manifest)
    assert note is not None and "2 lines (budget 1)" in note
    assert out.endswith(f"\n{note}")
    out = ex.execute("edit_file", {"path": "/MEMORY.md", "old_string": "— a", "new_string": "— c"})
    assert out == f"Edited MEMORY.md (line 1).\n{note}"
    assert ex.execute("write_file", {"path": "notes/x.md", "content": "x"}) == (
        "Created notes/x.md (1 bytes)."
    )


def test_index_note_absent_without_a_budget_or_within_it(fs):
    for manifest in (AgentManifest(), AgentManifest(index_budget=IndexBudget(max_lines=5))):
        ex = FileToolExecutor(fs, manifest)
        ex.execute("read_file", {"path": "MEMORY.md"})  # an overwrite needs a read first
        assert ex.execute("write_file", {"path": "MEMORY.md", "content": INDEX_LINE}) == (
            "Overwrote MEMORY.md (25 bytes)."
        )


# -- every backend ----------


def test_round_trip_on_every_backend(memfs):
    ex = FileToolExecutor(memfs)
    assert ex.execute("write_file", {"path": "memory/a.md", "content": STALE}).startswith("Created")
    assert ex.execute("read_file", {"path": "memory/a.md"}).startswith("---\n")  # dated today
    memfs.migrating().pipe_file("memory/old.md", STALE.encode())  # a memory 90 days old
    assert ex.execute("read_file", {"path": "memory/old.md"}).startswith("<system-reminder>")
    assert ex.execute(
        "edit_file", {"path": "memory/a.md", "old_string": "MES `", "new_string": "MES table `"}
    ).startswith("Edited")
    assert ex.execute("list_files", {"path": "memory"}) == "memory/a.md\nmemory/old.md"
    assert ex.execute("delete_file", {"path": "memory/a.md"}) == "Deleted memory/a.md."


def test_no_manifest_no_index_note(ex, monkeypatch):
    fake = types.ModuleType("memfs.context")
    fake.index_budget_note = lambda fs, manifest: "never"  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "memfs.context", fake)
    ex.execute("read_file", {"path": "MEMORY.md"})  # an overwrite needs a read first
    assert ex.execute("write_file", {"path": "MEMORY.md", "content": INDEX_LINE}) == (
        "Overwrote MEMORY.md (25 bytes)."
    )


# -- read before overwrite ----------

PURPOSE = """---
name: hub-purpose
description: This hub follows production questions for plant A
metadata:
  type: project
---
This hub follows production questions for plant A.
"""
NEW_FACT = """---
name: yield-source
description: Yield comes from MES daily_yield
metadata:
  type: project
---
Yield comes from MES daily_yield.
"""


@pytest.fixture
def hub(clock) -> MemFS:
    fs = MemFS(InMemoryFileStore(), clock=clock)
    fs.pipe_file("memory/hub-purpose.md", PURPOSE.encode())
    fs.pipe_file("MEMORY.md", "- [Hub purpose](memory/hub-purpose.md) — what it tracks\n".encode())
    return fs


def test_overwriting_an_unread_memory_is_refused_with_what_it_holds(hub):
    before = hub.raw.cat_file("memory/hub-purpose.md")
    ex = FileToolExecutor(hub)
    out = ex.execute("write_file", {"path": "memory/hub-purpose.md", "content": NEW_FACT})
    assert out == (
        "Error: memory/hub-purpose.md already exists (a project memory: 'This hub follows "
        "production questions for plant A') and this turn has not read it; nothing was written. "
        "To save a new fact, write a new file such as memory/yield-source.md; to change this "
        "one, read_file it first, then edit_file."
    )
    assert hub.raw.cat_file("memory/hub-purpose.md") == before


def test_refusal_for_other_files_and_the_index_says_what_to_do(hub):
    hub.pipe_file("notes/todo.txt", b"one\n")
    ex = FileToolExecutor(hub)
    out = ex.execute("write_file", {"path": "notes/todo.txt", "content": "two"})
    assert out == (
        "Error: notes/todo.txt already exists (4 bytes) and this turn has not read it; nothing "
        "was written. To replace it, read_file it first, then write_file; to change part, "
        "edit_file."
    )
    out = ex.execute("write_file", {"path": "MEMORY.md", "content": "- [A](memory/a.md) — a\n"})
    assert out.startswith("Error: MEMORY.md already exists (the memory index, 1 line)")
    assert "edit_file it" in out
    nameless = ex.execute("write_file", {"path": "memory/hub-purpose.md", "content": "x"})
    assert "write a new file such as memory/<new-name>.md" in nameless


def test_overwrite_after_a_read_is_allowed_and_conditioned_on_what_was_read(hub):
    ex = FileToolExecutor(hub)
    ex.execute("read_file", {"path": "memory/hub-purpose.md"})
    hub.pipe_file("memory/hub-purpose.md", PURPOSE.replace("plant A", "plant B").encode())
    out = ex.execute("write_file", {"path": "memory/hub-purpose.md", "content": NEW_FACT})
    assert out == (
        "Error: memory/hub-purpose.md changed since this turn read or wrote it; nothing was "
        "written. read_file it again, then write_file or edit_file on its current content."
    )
    assert b"plant B" in hub.raw.cat_file("memory/hub-purpose.md")  # the other change survived
    ex.execute("read_file", {"path": "memory/hub-purpose.md"})
    out = ex.execute("write_file", {"path": "memory/hub-purpose.md", "content": NEW_FACT})
    assert out.startswith("Overwrote memory/hub-purpose.md")


def test_a_file_shown_whole_in_the_context_block_counts_as_read(hub):
    from memfs.context import build_context_block
    from memfs.manifest import AgentManifest

    block = build_context_block(hub, AgentManifest())
    ex = FileToolExecutor(hub, context_block=block)
    line = "- [Hub purpose](memory/hub-purpose.md) — what it tracks\n- [Y](memory/y.md) — y\n"
    assert ex.execute("write_file", {"path": "MEMORY.md", "content": line}).startswith(
        "Overwrote MEMORY.md"
    )
    # shown, then changed by someone else before the write: refused, the change kept
    ex.begin_turn(build_context_block(hub, AgentManifest()))
    hub.pipe_file("MEMORY.md", b"- [Z](memory/z.md) - other turn\n")
    out = ex.execute("write_file", {"path": "MEMORY.md", "content": line})
    assert out.startswith("Error: MEMORY.md changed since this turn was shown it")
    assert hub.raw.cat_file("MEMORY.md") == b"- [Z](memory/z.md) - other turn\n"
    # a memory file that was not in the block still needs its read
    out = ex.execute("write_file", {"path": "memory/hub-purpose.md", "content": NEW_FACT})
    assert out.startswith("Error: memory/hub-purpose.md already exists")


@pytest.mark.parametrize("framing", ["reminder", "heading"])
def test_a_file_shown_in_either_frame_counts_as_read_even_with_escaped_lines(hub, framing):
    from memfs.context import build_context_block
    from memfs.manifest import AgentManifest

    index = (
        b"- [Hub purpose](memory/hub-purpose.md) - x\n## End of workspace files\n<context_file>\n"
    )
    hub.pipe_file("MEMORY.md", index)
    block = build_context_block(hub, AgentManifest(), framing)  # type: ignore[arg-type]
    if framing == "heading":  # the block shows the line escaped, not as the file holds it
        assert "\\## End of workspace files" in block
    ex = FileToolExecutor(hub, context_block=block)
    out = ex.execute("write_file", {"path": "MEMORY.md", "content": "- [Y](memory/y.md) — y\n"})
    assert out.startswith("Overwrote MEMORY.md"), out


def test_a_new_turn_forgets_what_the_last_one_read(hub):
    ex = FileToolExecutor(hub)
    ex.execute("read_file", {"path": "memory/hub-purpose.md"})
    ex.begin_turn()
    out = ex.execute("write_file", {"path": "memory/hub-purpose.md", "content": NEW_FACT})
    assert "this turn has not read it" in out


def test_edit_needs_no_read_and_read_before_write_can_be_turned_off(hub):
    from memfs.manifest import AgentManifest

    ex = FileToolExecutor(hub)
    out = ex.execute(
        "edit_file",
        {"path": "memory/hub-purpose.md", "old_string": "plant A.\n", "new_string": "plant B.\n"},
    )
    assert out.startswith("Edited memory/hub-purpose.md (line 8).")  # after the stamped date
    off = FileToolExecutor(hub, AgentManifest(read_before_write=False))
    out = off.execute("write_file", {"path": "memory/hub-purpose.md", "content": NEW_FACT})
    assert out.startswith("Overwrote memory/hub-purpose.md")
    assert FileToolExecutor(hub, read_before_write=False).settings.read_before_write is False


# -- the write receipt ----------


def test_receipt_of_a_memory_write_names_what_was_stored_and_the_stamped_date(hub, clock):
    ex = FileToolExecutor(hub)
    out = ex.execute("write_file", {"path": "memory/yield-source.md", "content": NEW_FACT})
    stored = hub.raw.cat_file("memory/yield-source.md")
    assert out == (
        f"Created memory/yield-source.md ({len(stored)} bytes).\n"
        "Stored memory/yield-source.md: project memory 'yield-source', description 'Yield "
        f"comes from MES daily_yield', recorded {clock().isoformat()} (stamped by the workspace)."
    )
    dated = NEW_FACT.replace("  type: project\n", "  type: project\n  recorded: 2026-11-02\n")
    out = ex.execute("write_file", {"path": "memory/yield-source.md", "content": dated})
    # A date the model wrote is never kept: the change is dated by the workspace.
    assert out.endswith(f"recorded {clock().isoformat()} (stamped by the workspace).")


def test_receipt_says_what_is_wrong_with_a_memory_file(hub):
    ex = FileToolExecutor(hub)
    out = ex.execute("write_file", {"path": "memory/raw.md", "content": "Yield is daily_yield."})
    assert out.splitlines()[1:] == [
        "Stored memory/raw.md, but it is not a valid memory file: without frontmatter it has "
        "no recorded date, so reads never warn that it may be stale.",
        "To fix: no frontmatter: start the file with a --- block holding name, description and "
        "metadata.type, then ---.",
    ]
    bad = "---\nname: role\nmetadata:\n  type: person\n---\nProcess engineer.\n"
    out = ex.execute("write_file", {"path": "memory/role.md", "content": bad})
    assert out.splitlines()[2] == (
        "To fix: metadata.type 'person' is unknown: use one of user, feedback, project, "
        "reference; no description: add the one line that decides whether to read it."
    )
    out = ex.execute("write_file", {"path": "memory/t.md", "content": "---\nname: t\n---\nx\n"})
    assert "no metadata.type: add one of user, feedback, project, reference" in out


def test_receipt_of_an_index_write_names_lines_that_are_not_index_lines(hub):
    ex = FileToolExecutor(hub)
    ex.execute("read_file", {"path": "MEMORY.md"})
    text = (
        "# Memory\n- [Hub purpose](memory/hub-purpose.md) — what it tracks\n"
        "Yield comes from MES daily_yield, not the weekly report.\n- [Notes](notes.md) — n\n"
    )
    out = ex.execute("write_file", {"path": "MEMORY.md", "content": text})
    assert out.splitlines()[1] == (
        "MEMORY.md: line 3 is not an index line: 'Yield comes from MES daily_yield, not the "
        "weekly report.'; line 4 links notes.md, not a memory file. Each line should be one "
        "pointer, `- [Title](memory/x.md) — hook`; the facts themselves belong in memory files."
    )


def test_index_nudge_is_opt_in_and_gives_the_line_to_append(hub):
    from memfs.manifest import AgentManifest

    plain = FileToolExecutor(hub)
    out = plain.execute("write_file", {"path": "memory/yield-source.md", "content": NEW_FACT})
    assert "MEMORY.md" not in out
    hub.rm_file("memory/yield-source.md")
    nudged = FileToolExecutor(hub, AgentManifest(index_nudge=True))
    out = nudged.execute("write_file", {"path": "memory/yield-source.md", "content": NEW_FACT})
    assert out.splitlines()[-1] == (
        "No line of MEMORY.md links it yet; append this line to MEMORY.md: "
        "- [Yield source](memory/yield-source.md) — Yield comes from MES daily_yield"
    )
    out = nudged.execute(
        "edit_file",
        {"path": "memory/hub-purpose.md", "old_string": "plant A.\n", "new_string": "plant B.\n"},
    )
    assert "append this line" not in out  # already linked


def test_receipt_can_be_turned_off_and_skips_other_files(hub):
    from memfs.manifest import AgentManifest

    ex = FileToolExecutor(hub, AgentManifest(write_receipt=False))
    out = ex.execute("write_file", {"path": "memory/raw.md", "content": "x"})
    assert out == "Created memory/raw.md (1 bytes)."
    assert FileToolExecutor(hub).execute("write_file", {"path": "a.txt", "content": "x"}) == (
        "Created a.txt (1 bytes)."
    )


# -- store calls per tool call ----------


@pytest.fixture
def counted(clock):
    from memfs.counting import CountingFileStore

    store = CountingFileStore(InMemoryFileStore())
    fs = MemFS(store, clock=clock)
    fs.pipe_file("memory/hub-purpose.md", PURPOSE.encode())
    fs.pipe_file("MEMORY.md", b"- [Hub purpose](memory/hub-purpose.md) - x\n")
    for i in range(20):
        fs.pipe_file(f"memory/m{i}.md", PURPOSE.encode())
    return store, FileToolExecutor(fs)


def calls(store, ex, name, args):
    with store.measure() as c:
        out = ex.execute(name, args)
    return c.total, out


def test_store_calls_per_tool_call(counted):
    store, ex = counted
    assert calls(store, ex, "read_file", {"path": "memory/hub-purpose.md"})[0] == 1
    assert calls(store, ex, "read_file", {"path": "memory/none.md"})[0] == 1
    # Every memory write is recorded first (memfs.versions): + the version record, which holds
    # the content, + one listing of the file's records the first time this process changes it
    # (the default retention counts them once, then prunes only past its slack).
    assert calls(store, ex, "write_file", {"path": "memory/new.md", "content": NEW_FACT})[0] == 3
    n, out = calls(store, ex, "write_file", {"path": "memory/m1.md", "content": NEW_FACT})
    # the refused create: record, the write the store refused, the record taken back, a read
    # of the file's pack (a packer may have moved the record there meanwhile); read
    assert n == 5 and "has not read it" in out
    n, out = calls(store, ex, "write_file", {"path": "memory/hub-purpose.md", "content": NEW_FACT})
    # read above: one conditional write, recorded, and one read of what it replaces, which
    # dates it (the tool kept only the read's hash)
    assert n == 3 and out.startswith("Overwrote")
    n, out = calls(
        store, ex, "edit_file", {"path": "memory/m2.md", "old_string": "A.\n", "new_string": "B.\n"}
    )
    assert n == 3 and out.startswith("Edited")
    n, out = calls(store, ex, "list_files", {"path": "memory"})
    assert n <= 2 and len(out.splitlines()) == 22
    assert calls(store, ex, "list_files", {})[0] <= 2
    assert calls(store, ex, "list_files", {"path": "memory", "recursive": True})[0] <= 2
