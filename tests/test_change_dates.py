"""The filesystem dates a change, not the model: through every surface, layout and backend.

A memory written 61 days ago says "API is v1". Whatever surface edits its body today — the file
tools, MCP, the Anthropic memory tool, ``open("w")``, ``pipe_file`` — the stored date is today's
and the next read has no reminder; a date the caller wrote (past or future) is never kept. A move,
a copy or a change to the frontmatter alone keeps the 61-day-old date, and the next read says so.
Only a migration (``memfs import``, ``MemFS.migrating()``) keeps a store's own date, a future one
clamped to the day of the migration; a restore gets the restored version's date.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml
from memfs import InMemoryFileStore, LocalFileStore, MemFS
from memfs.cli import main
from memfs.counting import CountingFileStore
from memfs.frontmatter_block import recorded_date_of, split_frontmatter
from memfs.history import History
from memfs.layout import Layout
from memfs.staleness import reminder_text
from memfs.stores import FileStore
from memfs.tools import FileToolExecutor

from tests.conftest import TODAY

OLD = TODAY - dt.timedelta(days=61)
STALE = reminder_text(61).encode() + b"\n"
FIXTURES = Path(__file__).parent / "fixtures" / "claude_code"

LAYOUTS = {"platform": Layout.platform(), "claude-code": Layout.claude_code("")}


def memory(date: str | dt.date = OLD, body: str = "API is v1\n", desc: str = "API") -> bytes:
    return (
        f"---\nname: api\ndescription: {desc}\nmetadata:\n  type: project\n"
        f"  recorded: {date}\n---\n{body}"
    ).encode()


# -- backends -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def s3_server() -> Iterator[Any]:
    s3 = pytest.importorskip("tests.test_s3")  # s3fs, moto and boto3, or skipped
    server = s3.S3Server()
    s3.boto3.client(
        "s3",
        endpoint_url=server.endpoint,
        aws_access_key_id=s3.KEY,
        aws_secret_access_key=s3.SECRET,
        region_name="us-east-1",
    ).create_bucket(Bucket=s3.BUCKET)
    yield server
    server.stop()


def _store(kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> FileStore:
    if kind == "local":
        return LocalFileStore(tmp_path / "ws")
    if kind == "memory":
        return InMemoryFileStore()
    s3 = pytest.importorskip("tests.test_s3")
    server = request.getfixturevalue("s3_server")
    from memfs.stores import FsspecFileStore

    root = f"{s3.BUCKET}/items/{uuid.uuid4().hex[:12]}"
    return FsspecFileStore(s3.s3_filesystem(server.endpoint), root=root)


@pytest.fixture(params=["local", "memory", "s3"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return str(request.param)


@pytest.fixture(params=list(LAYOUTS))
def fs(request: pytest.FixtureRequest, backend: str, tmp_path: Path) -> MemFS:
    """A workspace holding a 61-day-old memory ``api``, in each layout on each backend."""
    layout = LAYOUTS[request.param]
    fs = MemFS(_store(backend, request, tmp_path), clock=lambda: TODAY, layout=layout)
    fs.migrating().pipe_file(layout.memory_path("api"), memory())  # an old memory, kept so
    fs.pipe_file(
        layout.index_path, f"- [API]({layout.link_for(layout.memory_path('api'))})\n".encode()
    )
    return fs


def path(fs: MemFS, name: str = "api") -> str:
    return fs.layout.memory_path(name)


def stored_date(fs: MemFS, name: str = "api") -> dt.date | None:
    return recorded_date_of(fs.raw.cat_file(path(fs, name)), TODAY)


def reminder(fs: MemFS, name: str = "api") -> bytes:
    view = fs.cat_file(path(fs, name))
    return view[: len(STALE)] if view.startswith(b"<system-reminder>") else b""


# -- every surface that changes a body ------------------------------------------------------------


def _tools_edit(fs: MemFS) -> None:
    out = FileToolExecutor(fs).execute(
        "edit_file", {"path": path(fs), "old_string": "API is v1", "new_string": "API is v2"}
    )
    assert out.startswith("Edited"), out


def _tools_write(fs: MemFS) -> None:
    tools = FileToolExecutor(fs)
    tools.execute("read_file", {"path": path(fs)})
    # The model copies the frontmatter it read, date and all, and changes the body.
    text = fs.raw.cat_file(path(fs)).decode().replace("API is v1", "API is v2")
    out = tools.execute("write_file", {"path": path(fs), "content": text})
    assert out.startswith("Overwrote"), out


def _mcp(tool: str) -> Callable[[MemFS], None]:
    def run(fs: MemFS) -> None:
        pytest.importorskip("mcp")
        from mcp import Client

        from memfs_mcp import build_server

        async def go() -> None:
            async with Client(build_server(fs), raise_exceptions=True) as client:
                if tool == "write_file":
                    await client.call_tool("read_file", {"path": path(fs)})
                    text = fs.raw.cat_file(path(fs)).decode().replace("API is v1", "API is v2")
                    args: dict[str, Any] = {"path": path(fs), "content": text}
                else:
                    args = {"path": path(fs), "old_string": "API is v1", "new_string": "v2"}
                result = await client.call_tool(tool, args)
                assert not result.is_error, result

        anyio.run(go)

    return run


def _anthropic(command: dict[str, Any]) -> Callable[[MemFS], None]:
    def run(fs: MemFS) -> None:
        from memfs_anthropic import MemFSMemoryTool

        MemFSMemoryTool(fs).call(command)

    return run


def _open_w(fs: MemFS) -> None:
    text = fs.raw.cat_file(path(fs)).decode().replace("API is v1", "API is v2")
    with fs.open(path(fs), "w") as f:
        f.write(text)


def _open_ab(fs: MemFS) -> None:
    with fs.open(path(fs), "ab") as f:
        f.write(b"And v2 since today.\n")


def _pipe(fs: MemFS) -> None:
    fs.pipe_file(path(fs), memory(body="API is v2\n"))


def _pipe_conditional(fs: MemFS) -> None:
    raw = fs.raw.cat_file(path(fs))
    fs.pipe_file(path(fs), memory(body="API is v2\n"), expected_sha256=_sha(raw))


def _sha(data: bytes) -> str:
    from memfs.conflicts import content_sha256

    return content_sha256(data)


BODY_CHANGES: dict[str, Callable[[MemFS], None]] = {
    "edit_file": _tools_edit,
    "write_file": _tools_write,
    "MCP edit_file": _mcp("edit_file"),
    "MCP write_file": _mcp("write_file"),
    "Anthropic str_replace": _anthropic(
        {"command": "str_replace", "path": "/memories/api.md", "old_str": "v1", "new_str": "v2"}
    ),
    "Anthropic insert": _anthropic(
        {"command": "insert", "path": "/memories/api.md", "insert_line": 7, "insert_text": "v2\n"}
    ),
    "open('w')": _open_w,
    "open('ab')": _open_ab,
    "pipe_file": _pipe,
    "pipe_file conditional": _pipe_conditional,
}


@pytest.mark.parametrize("surface", list(BODY_CHANGES))
def test_a_change_of_the_body_is_dated_today_whatever_it_says(fs: MemFS, surface: str) -> None:
    assert reminder(fs) == STALE  # 61 days old before
    body = memory().split(b"---\n", 2)[2]
    BODY_CHANGES[surface](fs)
    assert fs.raw.cat_file(path(fs)).split(b"---\n", 2)[2] != body  # the body changed
    assert stored_date(fs) == TODAY
    assert reminder(fs) == b""  # the fact was written today: no reminder


def test_a_new_memory_never_keeps_the_date_the_caller_wrote(fs: MemFS) -> None:
    from memfs_anthropic import MemFSMemoryTool

    tool = MemFSMemoryTool(fs)
    tools = FileToolExecutor(fs)
    for i, date in enumerate(["2025-01-01", "2026-11-30", "2999-01-01", "yesterday"]):
        text = memory(date).decode()
        tools.execute("write_file", {"path": path(fs, f"w{i}"), "content": text})
        tool.call({"command": "create", "path": f"/memories/a{i}.md", "file_text": text})
        fs.pipe_file(path(fs, f"p{i}"), text.encode())
        with fs.open(path(fs, f"o{i}"), "wb") as f:
            f.write(text.encode())
        for name in (f"w{i}", f"a{i}", f"p{i}", f"o{i}"):
            assert stored_date(fs, name) == TODAY, (name, date)


# -- what keeps the date --------------------------------------------------------------------------


def test_a_change_to_the_frontmatter_alone_keeps_the_date(fs: MemFS) -> None:
    tools = FileToolExecutor(fs)
    edit = {"path": path(fs), "old_string": "description: API", "new_string": "description: Web"}
    out = tools.execute("edit_file", edit)
    assert out.startswith("Edited"), out  # the description, not the body
    assert stored_date(fs) == OLD and reminder(fs) == STALE
    # Not even by writing a date of its own into the frontmatter: the date the file had stays.
    for date in ("2026-11-30", "2025-01-01", "2999-01-01"):
        fs.pipe_file(path(fs), memory(date, desc="Web"))
        assert stored_date(fs) == OLD and reminder(fs) == STALE, date


def test_moving_or_copying_keeps_the_date(fs: MemFS) -> None:
    from memfs_anthropic import MemFSMemoryTool

    fs.cp(path(fs), path(fs, "copy"))
    MemFSMemoryTool(fs).call(
        {"command": "rename", "old_path": "/memories/copy.md", "new_path": "/memories/renamed.md"}
    )
    fs.mv(path(fs), path(fs, "moved"))
    for name in ("renamed", "moved"):
        assert stored_date(fs, name) == OLD and reminder(fs, name) == STALE, name


def test_a_file_copied_in_from_outside_the_memory_area_is_dated_by_the_write(fs: MemFS) -> None:
    fs.pipe_file("notes/api.md", memory("2025-01-01"))  # anyone writes any date here
    fs.cp("notes/api.md", path(fs, "from-notes"))
    assert stored_date(fs, "from-notes") == TODAY


# -- migrations and restores ----------------------------------------------------------------------


def test_the_migration_call_keeps_the_stores_dates_and_clamps_a_future_one(fs: MemFS) -> None:
    into = fs.migrating()
    into.pipe_file(path(fs, "past"), memory("2025-01-01"))
    into.pipe_file(path(fs, "future"), memory("2999-01-01"))
    assert fs.raw.cat_file(path(fs, "past")) == memory("2025-01-01")  # byte for byte
    assert fs.raw.cat_file(path(fs, "future")) == memory(TODAY)
    days = (TODAY - dt.date(2025, 1, 1)).days
    assert fs.cat_file(path(fs, "past")).startswith(reminder_text(days).encode() + b"\n")


def test_a_restore_gets_the_restored_versions_date(fs: MemFS) -> None:
    _tools_edit(fs)  # today: v2
    history = History(fs)
    first = history.log(path(fs)).versions[0]
    assert recorded_date_of(history.content(first), TODAY) == OLD
    history.restore(path(fs), first.id)
    assert fs.raw.cat_file(path(fs)) == memory()  # v1, as old as it was
    assert reminder(fs) == STALE


def test_a_restore_of_a_future_dated_version_is_clamped(fs: MemFS) -> None:
    fs.store.write(path(fs, "f"), memory("2999-01-01"))  # written behind the filesystem
    History(fs).gc()  # records it as a version
    _pipe_f = memory(body="API is v2\n")
    fs.pipe_file(path(fs, "f"), _pipe_f)
    history = History(fs)
    first = history.log(path(fs, "f")).versions[0]
    history.restore(path(fs, "f"), first.id)
    assert fs.raw.cat_file(path(fs, "f")) == memory(TODAY)


def test_memfs_import_and_restore_from_the_command_line(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setattr("memfs.filesystem.utc_today", lambda: TODAY)
    src = tmp_path / "src"
    src.mkdir()
    (src / "MEMORY.md").write_text("- [A](a.md)\n- [F](f.md)\n")
    (src / "a.md").write_bytes(memory())
    (src / "f.md").write_bytes(memory("2999-01-01"))
    ws = tmp_path / "ws"
    assert main(["import", str(src), str(ws)]) == 0
    assert (ws / "memory" / "a.md").read_bytes() == memory()  # the store's own date
    assert (ws / "memory" / "f.md").read_bytes() == memory(TODAY)  # 2999: the import day
    edited = MemFS(LocalFileStore(ws), clock=lambda: TODAY)
    History(edited).gc()  # the imported files become versions (an import keeps no history)
    FileToolExecutor(edited).execute(
        "edit_file", {"path": "memory/a.md", "old_string": "v1", "new_string": "v2"}
    )
    assert recorded_date_of((ws / "memory" / "a.md").read_bytes(), TODAY) == TODAY
    first = History(edited).log("memory/a.md").versions[0].id
    assert main(["restore", str(ws), f"memory/a.md@{first}"]) == 0
    assert (ws / "memory" / "a.md").read_bytes() == memory()


# -- Claude Code's own keys -----------------------------------------------------------------------


def _claude_code_reads(raw: bytes) -> tuple[dict[str, Any], dt.date]:
    """The frontmatter as Claude Code's format has it: YAML, its date in ``metadata.modified``
    (an ISO 8601 timestamp in UTC, as JavaScript's ``toISOString`` writes it) or else
    ``created``."""
    parts = split_frontmatter(raw.decode("utf-8"))
    assert parts is not None
    data = yaml.load(parts[1], Loader=yaml.BaseLoader)  # every value text, as JavaScript has it
    modified = (data.get("metadata") or {}).get("modified")
    if modified is not None:
        assert isinstance(modified, str) and modified.endswith("Z"), modified
        return data, dt.datetime.fromisoformat(modified).astimezone(dt.UTC).date()
    return data, dt.date.fromisoformat(data["created"])


CREATED_ONLY = (
    b"---\nname: No force-push\ndescription: main is protected, open a pull request\n"
    b"type: feedback\ncreated: 2026-08-01\n---\n\nNever force-push, even for a typo.\n"
)
"""A Claude Code memory whose only date is ``created`` (the fixture's, with its description
quoted so that it is YAML)."""


@pytest.mark.parametrize("backend_kind", ["local", "memory", "s3"])
def test_claude_code_reads_the_date_memfs_wrote(
    backend_kind: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    layout = Layout.claude_code("")
    fs = MemFS(_store(backend_kind, request, tmp_path), clock=lambda: TODAY, layout=layout)
    edits = {"user_role": ("Related:", "See also:"), "feedback_no_force_push": ("typo", "dot")}
    for name, (old, new) in edits.items():
        original = (
            CREATED_ONLY
            if name == "feedback_no_force_push"
            else (FIXTURES / "flat" / f"{name}.md").read_bytes()
        )
        fs.store.write(f"{name}.md", original)  # a real Claude Code store
        before, _ = _claude_code_reads(original)
        edit = {"path": f"{name}.md", "old_string": old, "new_string": new}
        assert FileToolExecutor(fs).execute("edit_file", edit).startswith("Edited")
        stored = fs.raw.cat_file(f"{name}.md")
        after, date = _claude_code_reads(stored)
        assert date == TODAY, name
        assert recorded_date_of(stored, TODAY) == TODAY  # and memfs reads the same date
        assert "recorded" not in (after.get("metadata") or {}), name  # no key of memfs's own
        # Nothing but the date changed in the frontmatter.
        for data in (before, after):
            (data.get("metadata") or {}).pop("modified", None)
            data.pop("created", None) if name == "feedback_no_force_push" else None
        assert after == before, name
    assert b"  modified: 2026-12-01T00:00:00.000Z\n" in fs.raw.cat_file("user_role.md")
    assert b"\ncreated: 2026-12-01\n" in fs.raw.cat_file("feedback_no_force_push.md")


def test_claude_code_keeps_its_date_on_a_frontmatter_only_edit() -> None:
    fs = MemFS(InMemoryFileStore(), clock=lambda: TODAY, layout=Layout.claude_code(""))
    original = (FIXTURES / "flat" / "user_role.md").read_bytes()
    fs.store.write("user_role.md", original)
    FileToolExecutor(fs).execute(
        "edit_file", {"path": "user_role.md", "old_string": "terse", "new_string": "short"}
    )
    assert fs.raw.cat_file("user_role.md") == original.replace(b"terse", b"short")


# -- what it costs --------------------------------------------------------------------------------


def test_dating_a_change_adds_no_read_where_the_write_path_has_the_old_bytes() -> None:
    counting = CountingFileStore(InMemoryFileStore())
    fs = MemFS(counting, clock=lambda: TODAY)
    fs.migrating().pipe_file("memory/api.md", memory())
    tools = FileToolExecutor(fs)
    edit = {"path": "memory/api.md", "old_string": "v1", "new_string": "v2"}
    with counting.measure() as calls:
        tools.execute("edit_file", edit)  # update(): the read it makes anyway dates it
    assert calls.counts.get("read", 0) == 1, calls.counts
    with counting.measure() as calls:
        fs.mv("memory/api.md", "memory/moved.md")  # the source it copies dates it
    moved_reads = calls.counts.get("read", 0)
    unversioned = CountingFileStore(InMemoryFileStore())
    plain = MemFS(unversioned, clock=lambda: TODAY, history=False)
    plain.migrating().pipe_file("memory/api.md", memory())
    with unversioned.measure() as calls:
        plain.pipe_file("memory/api.md", memory(body="v2\n"))  # blind, no history: one read
    assert calls.counts.get("read", 0) == 1, calls.counts
    assert moved_reads == 1 + 1  # the source, and the destination the versioned write replaces
