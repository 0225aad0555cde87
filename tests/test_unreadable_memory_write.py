"""A write never turns a memory memfs can read into one it cannot.

A small model that rewrote a seeded memory whole left, 2 times in 5, a file without frontmatter
(the opening ``---`` glued to the first line): its name, description, type and date were gone,
and with the date the staleness reminder. The write rules refuse that rewrite on every surface;
everything else a write may do to a memory (an unknown type, a new body) is stored as before.
"""

from __future__ import annotations

import datetime as dt
import pickle
from typing import Any

import anyio
import pytest
from anthropic.lib.tools import ToolError
from hypothesis import given, settings
from hypothesis import strategies as st
from markupsafe import escape
from mcp import Client
from memfs import (
    AgentManifest,
    FileToolExecutor,
    History,
    InMemoryFileStore,
    MemFS,
    MemoryRecord,
    UnreadableMemoryError,
    parse_memory,
)
from memfs.write_rules import unreadable_because
from starlette.testclient import TestClient

from memfs_anthropic import MemFSMemoryTool
from memfs_litellm import run_turn
from memfs_mcp import build_server
from memfs_serve.app import build_app
from tests.conftest import TODAY, CallingModel

HUB = "memory/hub.md"
MEMORY = (
    "---\nname: hub\ndescription: what this hub tracks\nmetadata:\n  type: project\n---\n"
    "This hub follows the monthly yield of line 3.\n"
)
GLUED = "---This hub follows the monthly yield of line 3.\n"
GLUED_REFUSAL = (
    "Refused to write 'memory/hub.md': its first line '---This hub follows the monthly yield "
    "o…' glues the opening --- to the text after it, so the file would have no frontmatter, "
    "and memfs could no longer read the memory's name, description, type and date. Nothing "
    "was written. Keep the --- block at the top: a line --- alone, the name, description and "
    "metadata lines, a line --- alone, then the body. To replace the memory with a file that "
    "is not a memory, delete it first."
)
TAIL = (
    ", and memfs could no longer read the memory's name, description, type and date. Nothing "
    "was written. Keep the --- block at the top: a line --- alone, the name, description and "
    "metadata lines, a line --- alone, then the body. To replace the memory with a file that "
    "is not a memory, delete it first."
)


def refusal(problem: str, path: str = HUB) -> str:
    return f"Refused to write {path!r}: {problem}{TAIL}"


def workspace(history: bool = True) -> MemFS:
    fs = MemFS(InMemoryFileStore(), clock=lambda: TODAY, history=history)
    fs.pipe_file(HUB, MEMORY.encode())
    return fs


def versions(fs: MemFS, path: str = HUB) -> int:
    return len(History(fs).log(path).versions)


def unchanged(fs: MemFS, write: Any) -> UnreadableMemoryError:
    """Run ``write`` (which must be refused) and check that nothing was stored or recorded."""
    before, recorded = fs.raw.cat_file(HUB), versions(fs)
    with pytest.raises(UnreadableMemoryError) as e:
        write()
    assert fs.raw.cat_file(HUB) == before
    assert versions(fs) == recorded
    return e.value


# -- the filesystem's write paths -----------------------------------------------------------------


@pytest.mark.parametrize("history", [True, False], ids=["versioned", "history-off"])
def test_a_blind_write_that_glues_the_fence_is_refused(history: bool) -> None:
    fs = workspace(history)
    e = unchanged(fs, lambda: fs.pipe_file(HUB, GLUED.encode()))
    assert str(e) == GLUED_REFUSAL
    assert e.path == HUB
    again = pickle.loads(pickle.dumps(e))
    assert type(again) is UnreadableMemoryError and str(again) == str(e)
    assert isinstance(e, ValueError)


@pytest.mark.parametrize("history", [True, False], ids=["versioned", "history-off"])
def test_a_conditional_write_is_refused(history: bool) -> None:
    fs = workspace(history)
    sha = fs.raw.ukey(HUB)
    e = unchanged(fs, lambda: fs.pipe_file(HUB, b"Line 3 yield.\n", expected_sha256=sha))
    assert str(e) == refusal(
        "its first line is 'Line 3 yield.', not a line --- alone, so the file would have no "
        "frontmatter"
    )


@pytest.mark.parametrize("history", [True, False], ids=["versioned", "history-off"])
def test_an_update_and_a_write_handle_are_refused(history: bool) -> None:
    fs = workspace(history)
    unchanged(
        fs, lambda: fs.update(HUB, lambda raw: (raw or b"").replace(b"---\nname", b"---name"))
    )

    def write_handle() -> None:
        with fs.open(HUB, "wb") as f:
            f.write(GLUED.encode())

    unchanged(fs, write_handle)


@pytest.mark.parametrize("history", [True, False], ids=["versioned", "history-off"])
def test_a_copy_over_a_memory_is_checked_against_the_memory_it_replaces(history: bool) -> None:
    fs = workspace(history)
    fs.pipe_file("memory/notes.txt", b"loose notes\n")  # in the memory area, not a memory
    e = unchanged(fs, lambda: fs.cp_file("memory/notes.txt", HUB))
    assert str(e) == refusal(
        "its first line is 'loose notes', not a line --- alone, so the file would have no "
        "frontmatter"
    )
    fs.pipe_file("memory/other.md", MEMORY.replace("name: hub", "name: other").encode())
    fs.cp_file("memory/other.md", HUB)  # a readable memory over a readable one
    assert parse_memory(fs.raw.cat_file(HUB), HUB).name == "other"


@pytest.mark.parametrize("history", [True, False], ids=["versioned", "history-off"])
def test_moves_and_copies_of_a_readable_memory_work(history: bool) -> None:
    fs = workspace(history)
    stored = fs.raw.cat_file(HUB)
    fs.copy(HUB, "memory/copy.md")
    fs.move(HUB, "memory/moved.md")
    assert fs.raw.cat_file("memory/copy.md") == stored
    assert fs.raw.cat_file("memory/moved.md") == stored
    assert not fs.raw.exists(HUB)


def test_a_write_back_of_the_decorated_view_is_checked_without_its_reminder() -> None:
    fs = MemFS(InMemoryFileStore(), clock=lambda: TODAY)
    old = MEMORY.replace("  type: project\n", "  type: project\n  recorded: 2026-06-01\n")
    fs.migrating().pipe_file(HUB, old.encode())
    view = fs.cat_file(HUB)
    assert view.startswith(b"<system-reminder>")  # a read's view does not start with ---
    fs.pipe_file(HUB, view.replace(b"line 3", b"line 4"))
    assert parse_memory(fs.raw.cat_file(HUB), HUB).readable


# -- what the refusal says -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (
            GLUED,
            "its first line '---This hub follows the monthly yield o…' glues the opening --- "
            "to the text after it",
        ),
        (
            "\ufeff---name: hub\n---\nx\n",
            "its first line '---name: hub' glues the opening --- to the text after it",
        ),
        ("name: hub\n---\nx\n", "its first line is 'name: hub', not a line --- alone"),
        ("", "it is empty"),
        ("\n \n", "its first line is blank, not a line --- alone"),
        ("\n---\nname: hub\n---\nx\n", "its first line is blank, not a line --- alone"),
        (
            "---\nname: hub\ndescription: d\nx\n",
            "the --- block at its top is never closed by a line --- alone",
        ),
        ("---", "the --- block at its top is never closed by a line --- alone"),
    ],
    ids=[
        "glued",
        "glued-after-bom",
        "no-opening",
        "empty",
        "blank",
        "blank-first-line",
        "not-closed",
        "fence-alone",
    ],
)
def test_the_refusal_says_what_keeps_the_frontmatter_from_being_read(
    text: str, problem: str
) -> None:
    fs = workspace()
    e = unchanged(fs, lambda: fs.pipe_file(HUB, text.encode()))
    assert str(e) == refusal(f"{problem}, so the file would have no frontmatter")
    assert unreadable_because(text.encode()) == f"{problem}, so the file would have no frontmatter"


@pytest.mark.parametrize(
    ("head", "why"),
    [
        ("- name: hub\n- type: project\n", "the frontmatter is a list, not a mapping"),
        ("just words\n", "the frontmatter is a text, not a mapping"),
        ("a: &x [1]\nb: *x\n", "an alias makes two keys share one list or mapping"),
        (
            "\tname: hub\n",
            "not valid YAML: found character '\\t' that cannot start any token (line 1)",
        ),
    ],
)
def test_frontmatter_no_reader_can_use_is_refused_with_the_reason(head: str, why: str) -> None:
    fs = workspace()
    text = f"---\n{head}---\nThis hub follows line 3.\n"
    e = unchanged(fs, lambda: fs.pipe_file(HUB, text.encode()))
    assert str(e) == refusal(f"no reader can use its frontmatter ({why})")


# -- what is stored as before --------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        MEMORY.replace("type: project", "type: projekt"),  # an unknown type: the receipt says
        MEMORY.replace("description: what this hub tracks\n", ""),
        MEMORY.replace("name: hub\n", ""),
        "---\nname: [hub\ndescription: what this hub tracks\n---\nx\n",  # read line by line
        "---\n---\nThis hub follows line 3.\n",  # empty frontmatter is still frontmatter
        "\ufeff" + MEMORY,
        MEMORY.replace("\n", "\r\n"),
    ],
    ids=["unknown-type", "no-description", "no-name", "lines", "empty-frontmatter", "bom", "crlf"],
)
def test_a_rewrite_that_keeps_the_memory_readable_is_stored(text: str) -> None:
    fs = workspace()
    stored = fs.save(HUB, text.encode())
    assert fs.raw.cat_file(HUB) == stored
    assert parse_memory(stored, HUB).readable


def test_an_unreadable_memory_may_be_written_unreadable_again() -> None:
    fs = MemFS(InMemoryFileStore(), clock=lambda: TODAY)
    fs.pipe_file(HUB, GLUED.encode())  # created so: the rule protects a readable memory only
    fs.pipe_file(HUB, b"---Now line 4.\n")
    assert fs.raw.cat_file(HUB) == b"---Now line 4.\n"
    fs.pipe_file(HUB, MEMORY.encode())  # and made readable again
    assert parse_memory(fs.raw.cat_file(HUB), HUB).readable


def test_a_file_that_is_not_a_memory_and_the_index_are_not_checked() -> None:
    fs = workspace()
    notes = "memory/notes.txt"
    fs.pipe_file(notes, MEMORY.encode())
    fs.pipe_file(notes, GLUED.encode())
    assert fs.raw.cat_file(notes) == GLUED.encode()
    fs.pipe_file("MEMORY.md", MEMORY.encode())
    fs.pipe_file("MEMORY.md", b"- [Hub](memory/hub.md) - line 3\n")
    fs.pipe_file("notes/hub.md", MEMORY.encode())  # outside the memory area
    fs.pipe_file("notes/hub.md", GLUED.encode())
    assert fs.raw.cat_file("notes/hub.md") == GLUED.encode()


def test_a_migration_keeps_its_own_rules() -> None:
    fs = workspace()
    fs.migrating().pipe_file(HUB, GLUED.encode())  # memfs import, seeding a store
    assert fs.raw.cat_file(HUB) == GLUED.encode()


def test_a_restore_puts_back_the_version_it_names() -> None:
    """A restore is a migration (the version's bytes and date): a person chose that version."""
    fs = MemFS(InMemoryFileStore(), clock=lambda: TODAY)
    fs.pipe_file(HUB, GLUED.encode())
    fs.pipe_file(HUB, MEMORY.encode())
    first = History(fs).log(HUB).versions[0]
    History(fs).restore(HUB, first.id)
    assert fs.raw.cat_file(HUB) == GLUED.encode()


def test_a_new_file_without_frontmatter_is_stored_with_the_receipt_s_to_fix_line() -> None:
    fs = workspace()
    tools = FileToolExecutor(fs)
    out = tools.execute("write_file", {"path": "memory/new.md", "content": GLUED})
    assert out == (
        f"Created memory/new.md ({len(GLUED)} bytes).\n"
        "Stored memory/new.md, but it is not a valid memory file: without frontmatter it has no "
        "recorded date, so reads never warn that it may be stale.\n"
        "To fix: no frontmatter: start the file with a --- block holding name, description and "
        "metadata.type, then ---."
    )


def test_the_receipt_names_frontmatter_no_reader_can_use_as_before() -> None:
    fs = workspace()
    tools = FileToolExecutor(fs)
    out = tools.execute("write_file", {"path": "memory/new.md", "content": "---\n- a\n---\nx\n"})
    assert out.splitlines()[-1] == (
        "To fix: the frontmatter is not valid YAML: name, description and metadata.type are unread."
    )


# -- every surface: one line, nothing stored -----------------------------------------------------


def test_the_file_tools_say_the_refusal_in_one_line() -> None:
    fs = workspace()
    tools = FileToolExecutor(fs)
    before, recorded = fs.raw.cat_file(HUB), versions(fs)
    tools.execute("read_file", {"path": HUB})
    wrote = tools.execute("write_file", {"path": HUB, "content": GLUED})
    assert wrote == f"Error: write_file failed: {GLUED_REFUSAL}"
    edited = tools.execute(
        "edit_file", {"path": HUB, "old_string": "---\nname: hub", "new_string": "---name: hub"}
    )
    assert edited == "Error: edit_file failed: " + refusal(
        "its first line '---name: hub' glues the opening --- to the text after it, so the file "
        "would have no frontmatter"
    )
    assert fs.raw.cat_file(HUB) == before and versions(fs) == recorded
    # a body edit still goes through, and so does a whole rewrite that keeps the frontmatter
    assert tools.execute(
        "edit_file", {"path": HUB, "old_string": "line 3", "new_string": "line 4"}
    ).startswith("Edited memory/hub.md (line 8).")
    assert tools.execute("write_file", {"path": HUB, "content": MEMORY}).startswith(
        "Overwrote memory/hub.md"
    )


def test_the_file_tools_refuse_it_without_read_before_write_too() -> None:
    fs = workspace()
    tools = FileToolExecutor(fs, read_before_write=False)
    before = fs.raw.cat_file(HUB)
    assert tools.execute("write_file", {"path": HUB, "content": GLUED}) == (
        f"Error: write_file failed: {GLUED_REFUSAL}"
    )
    assert fs.raw.cat_file(HUB) == before


def test_the_anthropic_memory_tool_refuses_it() -> None:
    fs = workspace()
    tool = MemFSMemoryTool(fs)
    before, recorded = fs.raw.cat_file(HUB), versions(fs)
    with pytest.raises(ToolError) as created:  # create never overwrites, whatever it holds
        tool.call({"command": "create", "path": "/memories/hub.md", "file_text": GLUED})
    assert str(created.value) == "File /memories/hub.md already exists"
    with pytest.raises(ToolError) as replaced:
        tool.call(
            {
                "command": "str_replace",
                "path": "/memories/hub.md",
                "old_str": "---\nname: hub",
                "new_str": "---name: hub",
            }
        )
    assert str(replaced.value) == "The operation on /memories/hub.md failed: " + refusal(
        "its first line '---name: hub' glues the opening --- to the text after it, so the file "
        "would have no frontmatter"
    )
    with pytest.raises(ToolError) as inserted:
        tool.call(
            {"command": "insert", "path": "/memories/hub.md", "insert_line": 0, "insert_text": "x"}
        )
    assert str(inserted.value) == "The operation on /memories/hub.md failed: " + refusal(
        "its first line is 'x', not a line --- alone, so the file would have no frontmatter"
    )
    assert fs.raw.cat_file(HUB) == before and versions(fs) == recorded


def test_the_mcp_server_returns_the_refusal_as_an_error_result() -> None:
    fs = workspace()
    before = fs.raw.cat_file(HUB)

    async def go() -> None:
        async with Client(build_server(fs), raise_exceptions=True) as client:
            await client.call_tool("read_file", {"path": HUB})
            wrote = await client.call_tool("write_file", {"path": HUB, "content": GLUED})
            assert wrote.is_error
            (block,) = wrote.content
            assert getattr(block, "text", None) == f"Error: write_file failed: {GLUED_REFUSAL}"

    anyio.run(go)
    assert fs.raw.cat_file(HUB) == before


def test_the_agent_loop_gives_the_model_the_refusal_as_the_tool_result() -> None:
    """What ``memfs chat`` and the live check run: the model reads the one line."""
    fs = workspace()
    before = fs.raw.cat_file(HUB)
    model = CallingModel(
        [("read_file", {"path": HUB}), ("write_file", {"path": HUB, "content": GLUED})]
    )
    result = run_turn(
        model="scripted",
        fs=fs,
        manifest=AgentManifest(),
        user_message="Tidy the hub memory.",
        completion=model,
    )
    assert result.tool_calls[1].result == f"Error: write_file failed: {GLUED_REFUSAL}"
    assert fs.raw.cat_file(HUB) == before


def test_the_browser_s_edit_form_shows_the_refusal() -> None:
    fs = workspace()
    before = fs.raw.cat_file(HUB)
    base = "http://127.0.0.1:8768"
    c = TestClient(build_app(fs, read_only=False, port=8768), base_url=base)
    page = c.get("/edit", params={"path": HUB}).text
    token = page.split('name="token" value="', 1)[1].split('"', 1)[0]
    sha = page.split('name="sha256" value="', 1)[1].split('"', 1)[0]
    r = c.post(
        "/save",
        data={"token": token, "path": HUB, "content": GLUED, "sha256": sha},
        headers={"Origin": base},
        follow_redirects=False,
    )
    assert r.status_code == 400
    assert f'<p class="problem" role="alert">{escape(GLUED_REFUSAL)}</p>' in r.text
    assert fs.raw.cat_file(HUB) == before


# -- the property --------------------------------------------------------------------------------

WORDS = ["yield", "line", "MES", "daily", "report", "良率", "来源", "工程师", "日报", "3", "Cpk"]
words = st.lists(st.sampled_from(WORDS), min_size=1, max_size=6).map(" ".join)
memories = st.builds(
    MemoryRecord,
    name=st.from_regex(r"[a-z][a-z0-9]{0,6}(-[a-z0-9]{1,6}){0,2}", fullmatch=True),
    description=words,
    type=st.sampled_from(["user", "feedback", "project", "reference"]),
    body=st.lists(words, min_size=0, max_size=4).map(lambda ls: "".join(f"{w}\n" for w in ls)),
)


def _lines(text: str) -> tuple[list[str], int]:
    lines = text.split("\n")
    return lines, lines.index("---", 1)


def glue_the_fence(text: str) -> str:
    return "---" + text.removeprefix("---\n")


def remove_the_opening_fence(text: str) -> str:
    return text.removeprefix("---\n")


def remove_the_closing_fence(text: str) -> str:
    lines, close = _lines(text)
    return "\n".join(lines[:close] + lines[close + 1 :])


def make_the_frontmatter_invalid(text: str) -> str:
    lines, close = _lines(text)
    return "\n".join(["---", *(f"- {ln.strip()}" for ln in lines[1:close]), *lines[close:]])


def body_only(text: str) -> str:
    return parse_memory(text).body


BREAKING = [
    glue_the_fence,
    remove_the_opening_fence,
    remove_the_closing_fence,
    make_the_frontmatter_invalid,
    body_only,
]


def _seeded(record: MemoryRecord, history: bool) -> MemFS:
    fs = MemFS(InMemoryFileStore(), clock=lambda: TODAY, history=history)
    fs.pipe_file(HUB, record.dumps().encode("utf-8"))
    assert parse_memory(fs.raw.cat_file(HUB), HUB).readable
    return fs


@settings(max_examples=60, deadline=None)
@given(record=memories, breaking=st.sampled_from(BREAKING), history=st.booleans())
def test_every_breaking_rewrite_is_refused_and_nothing_changes(
    record: MemoryRecord, breaking: Any, history: bool
) -> None:
    fs = _seeded(record, history)
    stored = fs.raw.cat_file(HUB).decode("utf-8")
    broken = breaking(stored)
    assert not parse_memory(broken, HUB).readable  # the transform does break it
    with pytest.raises(UnreadableMemoryError) as e:
        fs.pipe_file(HUB, broken.encode("utf-8"))
    assert fs.raw.cat_file(HUB) == stored.encode("utf-8")
    assert str(e.value).startswith(f"Refused to write {HUB!r}: ")
    assert "\n" not in str(e.value)


def _new_body(record: MemoryRecord, extra: str) -> MemoryRecord:
    record.body += f"{extra}\n"
    return record


def _new_description(record: MemoryRecord, extra: str) -> MemoryRecord:
    record.description = f"{record.description} {extra}"
    return record


def _unknown_type(record: MemoryRecord, extra: str) -> MemoryRecord:
    record.type = "projekt"
    return record


@settings(max_examples=60, deadline=None)
@given(
    record=memories,
    edit=st.sampled_from([_new_body, _new_description, _unknown_type]),
    extra=words,
    history=st.booleans(),
)
def test_every_edit_that_keeps_the_frontmatter_is_stored(
    record: MemoryRecord, edit: Any, extra: str, history: bool
) -> None:
    fs = _seeded(record, history)
    changed = edit(parse_memory(fs.raw.cat_file(HUB), HUB), extra)
    fs.pipe_file(HUB, changed.dumps().encode("utf-8"))
    stored = parse_memory(fs.raw.cat_file(HUB), HUB)
    assert stored.readable
    assert (stored.body, stored.description, stored.type) == (
        changed.body,
        changed.description,
        changed.type,
    )
    assert stored.recorded == dt.date(2026, 12, 1)
