"""Version history: every change to memory is recoverable, on every backend, under stress.

What is recorded (operation, time, actor, size, content hash), where (memfs's own area, which
no surface reaches or lists), the order two writers' versions take, what a crash between the
version and the file leaves, and the API and commands on top (log, show, diff, restore,
redact, gc).
"""

from __future__ import annotations

import datetime as dt
import functools
import itertools
import json
import multiprocessing
import random
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from memfs import InMemoryFileStore, LocalFileStore, MemFS, versions
from memfs.cli import main
from memfs.conflicts import content_sha256
from memfs.counting import CountingFileStore
from memfs.errors import UnsafePathError
from memfs.history import GcReport, History, VersionError
from memfs.layout import Layout
from memfs.manifest import AgentManifest
from memfs.stats import collect_stats
from memfs.tools import FileToolExecutor
from memfs.turns import build_chat_turn
from memfs.versions import (
    BLOBS_DIR,
    GC_GRACE,
    GC_PENDING,
    RECORDS_DIR,
    HistoryOptions,
    Retention,
    VersionRecord,
    blob_key,
    decode_blob,
    record_keys,
)

from tests.conftest import TODAY, make_store
from tests.killed_writer import kill_after_steps

T0 = dt.datetime(2026, 12, 1, 9, 0, tzinfo=dt.UTC)

BLOBS = {"inline_limit": 0}
"""History options that keep every version's content in a blob, as a memory too large to sit
in its record is kept: the tests of blobs (stored once, gc, its races) use them."""


def memory(name: str, body: str) -> bytes:
    head = f"---\nname: {name}\nmetadata:\n  type: user\n  recorded: {TODAY}\n---\n"
    return f"{head}{body}\n".encode()


class Ticks:
    """An injected clock that moves one second per reading."""

    def __init__(self, start: dt.datetime = T0) -> None:
        self.now = start

    def __call__(self) -> dt.datetime:
        self.now += dt.timedelta(seconds=1)
        return self.now


def ids(*values: str) -> Callable[[], str]:
    it = iter(values)
    return lambda: next(it)


def mount(store: Any, **history: Any) -> MemFS:
    options = HistoryOptions(now=history.pop("now", Ticks()), **history)
    return MemFS(store, clock=lambda: TODAY, history=options, actor="tester")


@pytest.fixture(params=["local", "memory", "fsspec-memory", "fsspec-file"])
def fs(request: pytest.FixtureRequest, tmp_path: Path) -> MemFS:
    return mount(make_store(request.param, tmp_path))


def statuses(fs: MemFS, path: str) -> list[tuple[str, str]]:
    return [(v.record.operation, v.status) for v in History(fs).log(path).versions]


# -- what is recorded, on every backend ------------------------------------------------------------


def test_each_change_is_a_version_with_operation_time_actor_size_and_hash(fs: MemFS) -> None:
    one, two = memory("role", "Process engineer."), memory("role", "Quality engineer.")
    fs.pipe_file("memory/role.md", one)
    fs.acting_as("chat turn").pipe_file("memory/role.md", two)
    fs.rm("memory/role.md")
    log = History(fs).log("memory/role.md")
    records = [v.record for v in log.versions]
    assert [r.operation for r in records] == ["created", "modified", "deleted"]
    assert [r.actor for r in records] == ["tester", "chat turn", "tester"]
    assert [r.sha256 for r in records] == [content_sha256(one), content_sha256(two), None]
    assert [r.size for r in records] == [len(one), len(two), None]
    assert [r.parent for r in records] == [None, content_sha256(one), content_sha256(two)]
    assert records[0].time < records[1].time < records[2].time
    assert [v.status for v in log.versions] == ["applied", "applied", "current"]
    assert not log.exists and not log.unrecorded
    assert History(fs).show("memory/role.md", records[0].id) == one


def test_a_blob_is_stored_once_per_hash(fs: MemFS) -> None:
    fs = mount(fs.store, **BLOBS)
    same = memory("a", "Same body.")
    fs.pipe_file("memory/a.md", same)
    fs.pipe_file("memory/b.md", same)
    blobs = fs.store.ls(BLOBS_DIR)
    assert blobs == [blob_key(content_sha256(same))]
    assert len(record_keys(fs.store)) == 2


def test_move_is_a_delete_at_the_source_and_a_create_at_the_destination(fs: MemFS) -> None:
    fs.pipe_file("memory/a.md", memory("a", "A."))
    fs.mv("memory/a.md", "memory/b.md")
    src = History(fs).log("memory/a.md").versions[-1].record
    dst = History(fs).log("memory/b.md").versions[-1].record
    assert (src.operation, src.moved_to) == ("deleted", "memory/b.md")
    assert (dst.operation, dst.moved_from) == ("created", "memory/a.md")
    assert src.parent == dst.sha256


def test_only_memory_and_the_index_are_versioned_and_history_can_be_off(tmp_path: Path) -> None:
    fs = mount(InMemoryFileStore())
    fs.pipe_file("docs/notes.txt", b"not memory")
    assert record_keys(fs.store) == []
    fs.pipe_file("MEMORY.md", b"- [A](memory/a.md) - a\n")
    assert len(record_keys(fs.store)) == 1
    off = MemFS(InMemoryFileStore(), history=False)
    off.pipe_file("memory/a.md", memory("a", "A."))
    off.rm("memory/a.md")
    assert off.store.ls(RECORDS_DIR) == [] and off.store.ls(BLOBS_DIR) == []


def test_a_write_of_the_bytes_already_stored_is_no_version() -> None:
    fs = mount(InMemoryFileStore())
    data = memory("a", "A.")
    fs.pipe_file("memory/a.md", data)
    fs.pipe_file("memory/a.md", data)
    fs.update("memory/a.md", lambda b: b or b"")
    assert len(record_keys(fs.store)) == 1


# -- the reserved area: unreachable and invisible --------------------------------------------------


RESERVED_PATHS = [
    ".memfs",
    ".memfs/history/blobs",
    "/.memfs/history/records",
    ".MEMFS/history",
    "memory/.memfs/x.md",
    ".Memfs",
]


@pytest.mark.parametrize("path", RESERVED_PATHS)
def test_no_surface_reaches_the_reserved_area(path: str, tmp_path: Path) -> None:
    fs = mount(LocalFileStore(tmp_path / "ws"))
    fs.pipe_file("memory/a.md", memory("a", "A secret-free memory."))
    before = sorted(p.relative_to(tmp_path).as_posix() for p in (tmp_path / "ws").rglob("*"))
    for attempt in (
        lambda: fs.cat_file(path),
        lambda: fs.pipe_file(path, b"x"),
        lambda: fs.rm(path, recursive=True),
        lambda: fs.ls(path),
        lambda: fs.exists(path),
        lambda: fs.mv("memory/a.md", path),
    ):
        with pytest.raises(UnsafePathError, match="memfs's own area"):
            attempt()
    tools = FileToolExecutor(fs)
    for name, args in [
        ("read_file", {"path": path}),
        ("write_file", {"path": path, "content": "x"}),
        ("list_files", {"path": path}),
        ("delete_file", {"path": path}),
        ("exists", {"path": path}),
    ]:
        out = tools.execute(name, args)
        assert out.startswith("Error:") and "memfs's own area" in out, (name, out)
    after = sorted(p.relative_to(tmp_path).as_posix() for p in (tmp_path / "ws").rglob("*"))
    assert after == before


def test_no_listing_shows_the_reserved_area(store: Any) -> None:
    fs = mount(store)
    fs.pipe_file("memory/a.md", memory("a", "A."))
    fs.pipe_file("MEMORY.md", b"- [A](memory/a.md) - a\n")
    assert record_keys(fs.store)  # the history is there
    listing = FileToolExecutor(fs).execute("list_files", {"path": "", "recursive": True})
    shown = [
        *fs.find(""),
        *fs.ls("", detail=False),
        *fs.glob("**"),
        *fs.store.ls(""),
        *fs.store.listdir(""),
        *listing.splitlines(),
        *[d for d, _, _ in fs.walk("")],
    ]
    assert not [p for p in shown if ".memfs" in p.lower()], shown
    report = collect_stats(fs)
    assert report.memory_files == 1


def test_the_anthropic_tool_and_the_context_block_never_see_history(tmp_path: Path) -> None:
    pytest.importorskip("anthropic")
    from memfs_anthropic import MemFSMemoryTool

    # The Claude Code layout with the memory directory at the root: history sits inside it.
    fs = MemFS(LocalFileStore(tmp_path / "ws"), layout=Layout.claude_code(""), clock=lambda: TODAY)
    tool = MemFSMemoryTool(fs)
    tool.call({"command": "create", "path": "/memories/role.md", "file_text": "x\n"})
    tool.call({"command": "create", "path": "/memories/MEMORY.md", "file_text": "- [R](role.md)\n"})
    assert History(fs).log("role.md").versions[0].record.actor == "anthropic memory tool"
    view = str(tool.call({"command": "view", "path": "/memories"}))
    assert ".memfs" not in view
    from memfs_anthropic.memory_tool import ToolError

    with pytest.raises(ToolError, match="memfs's own area"):
        tool.call({"command": "view", "path": "/memories/.memfs/history"})
    turn = build_chat_turn(transcript=[], user_message="hi", manifest=AgentManifest(), fs=fs)
    assert ".memfs" not in turn.context_block


# -- cost: the read path costs nothing extra ---------------------------------------------------


def _turn_reads(history: bool) -> dict[str, int]:
    inner = InMemoryFileStore()
    setup = MemFS(inner, clock=lambda: TODAY, history=history)
    setup.pipe_file("memory/role.md", memory("role", "Process engineer."))
    setup.pipe_file("MEMORY.md", b"- [Role](memory/role.md) - who\n")
    store = CountingFileStore(inner)
    fs = MemFS(store, clock=lambda: TODAY, history=history)
    build_chat_turn(transcript=[], user_message="hi", manifest=AgentManifest(), fs=fs)
    tools = FileToolExecutor(fs)
    tools.execute("read_file", {"path": "memory/role.md"})
    tools.execute("list_files", {"path": "memory"})
    return store.counts


def test_the_chat_turn_read_path_makes_the_same_store_calls_with_history() -> None:
    with_history = _turn_reads(True)
    assert with_history == _turn_reads(False)
    assert with_history["read"] == 2


@pytest.mark.parametrize(("options", "writes"), [({}, 2), (BLOBS, 3)], ids=["inline", "blob"])
def test_a_recorded_edit_costs_one_write_more_or_two_with_a_blob(
    options: dict[str, Any], writes: int
) -> None:
    store = CountingFileStore(InMemoryFileStore())
    fs = MemFS(store, clock=lambda: TODAY, history=HistoryOptions(**options))
    fs.pipe_file("memory/role.md", memory("role", "Process engineer."))
    with store.measure() as calls:
        fs.update("memory/role.md", lambda b: (b or b"").replace(b"Process", b"Quality"))
    # read, then the record (its content inline) and the file; a blob before the record
    assert calls.counts == {"read": 1, "write": writes}


# -- a crash between the version and the file ------------------------------------------------------


class Killed(BaseException):
    """Stands in for SIGKILL: nothing after it runs, no cleanup handler catches it."""


class DiesBeforeFileWrite:
    """A store that 'dies' at the first write to ``path`` (after the blob and the record)."""

    conditional_writes = True

    def __init__(self, inner: Any, path: str) -> None:
        self.inner, self.path = inner, path

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def write(self, path: str, data: bytes, **kw: Any) -> None:
        if path == self.path:
            raise Killed
        self.inner.write(path, data, **kw)

    def delete(self, path: str, **kw: Any) -> None:
        if path == self.path:
            raise Killed
        self.inner.delete(path, **kw)


@pytest.mark.parametrize("kind", ["local", "memory"])
@pytest.mark.parametrize("change", ["modify", "delete"])
def test_a_crash_after_the_version_is_explained_and_restores_cleanly(
    kind: str, change: str, tmp_path: Path
) -> None:
    inner = make_store(kind, tmp_path)
    clock = Ticks()
    fs = mount(inner, now=clock)
    old, new = memory("role", "Process engineer."), memory("role", "Quality engineer.")
    fs.pipe_file("memory/role.md", old)
    dying = mount(DiesBeforeFileWrite(inner, "memory/role.md"), now=clock)
    with pytest.raises(Killed):
        if change == "modify":
            dying.pipe_file("memory/role.md", new)
        else:
            dying.rm_file("memory/role.md")
    assert fs.raw.cat_file("memory/role.md") == old  # the file was never touched
    log = History(fs).log("memory/role.md")
    assert [v.status for v in log.versions] == ["current", "recorded, not applied"]
    crashed = log.versions[-1]
    assert "recorded and not applied" in log.explanation and crashed.id in log.explanation
    if change == "modify":
        restored = History(fs).restore("memory/role.md", crashed.id[:6])
        assert fs.raw.cat_file("memory/role.md") == new
        assert restored.record.operation == "restored"
        assert restored.record.restored_from == crashed.id
    else:
        with pytest.raises(VersionError, match="deleted the file"):
            History(fs).restore("memory/role.md", crashed.id)
        assert fs.raw.cat_file("memory/role.md") == old


def _plus(line: bytes, current: bytes | None) -> bytes:
    return (current or b"") + line


KEEP_EVERY_VERSION = HistoryOptions(retention=Retention())
"""The killed writers keep every version: the test counts their records against their writes
(the default retention would prune a file's oldest once it holds more than 50); past 64 loose
records a change packs them, so writers are killed while packing too."""


def _killed_writer(root: str, run: int, step_done: Callable[[], None]) -> None:
    fs = MemFS(
        LocalFileStore(root),
        clock=lambda: TODAY,
        credential_guard=False,
        history=KEEP_EVERY_VERSION,
    )
    rng = random.Random(run)
    for i in itertools.count():
        body = f"run {run} write {i} " * rng.choice((5, 500, 5000))
        fs.pipe_file("memory/log.md", memory("log", body))
        step_done()
        line = f"- run {run} {i}\n".encode()
        fs.update("MEMORY.md", functools.partial(_plus, line))
        step_done()


def test_sigkill_mid_write_leaves_whole_versions_only(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    fs = MemFS(
        LocalFileStore(root),
        clock=lambda: TODAY,
        credential_guard=False,
        history=KEEP_EVERY_VERSION,
    )
    fs.pipe_file("memory/log.md", memory("log", "start"))
    rng = random.Random(18)
    # Each writer reports every write it completes; it is killed once it has completed a random
    # 0-3, up to one write's duration later: inside its first write, between the two files, or
    # after a few (inside a blob, a record or the file). Kill at least 40 writers, and go on
    # until they completed 40 writes and one reached the index; the count, not the machine's
    # speed, decides when that is.
    completed, step_s = 0, 0.002
    for run in range(300):
        if run >= 40 and completed > 40 and fs.exists("MEMORY.md"):
            break
        work = functools.partial(_killed_writer, str(root), run)
        kill = kill_after_steps(work, rng.randrange(4), pause_s=rng.uniform(0, step_s))
        completed += kill.completed
        step_s = kill.step_s or step_s  # a write's duration here, as this writer showed it
    history = History(fs)
    keys = record_keys(fs.store)
    # every completed write recorded its version (plus the first file's and any killed between
    # its record and its file): the writers got to write, and were killed at every stage
    assert completed > 40 and len(keys) > completed
    for key in keys:  # every record is whole JSON whose content is stored, in it or in a blob
        stored = versions.stored_record(fs.store, key)  # loose, or in the pack past 64 of them
        assert stored is not None, key
        record, inline = versions.parse_stored(stored)
        if record.sha256 is not None and inline is not None:
            assert versions.inline_content(inline, record.sha256) is not None
        elif record.sha256 is not None:  # a blob, stored before its record
            blob = fs.store.read(blob_key(record.sha256))
            assert decode_blob(blob, record.sha256) is not None
    for path in ("memory/log.md", "MEMORY.md"):
        log = history.log(path)
        assert not log.unrecorded, path  # the file's content is always a recorded version
        current = [v for v in log.versions if v.status == "current"]
        assert len(current) == 1
        assert content_sha256(fs.raw.cat_file(path)) == current[0].record.sha256
        # anything not applied is a write killed between its version and its file
        for v in log.versions:
            if v.status == "recorded, not applied":
                assert v.record.parent is not None or v.record.operation == "created"
        last_unapplied = [v for v in log.versions if v.status == "recorded, not applied"]
        if last_unapplied:
            v = last_unapplied[-1]
            assert history.show(path, v.id)  # its content is there to restore


# -- two writers on one file ---------------------------------------------------------------------


def _pod(root: str, pod: int, edits: int, start: Any) -> None:
    fs = MemFS(LocalFileStore(root), clock=lambda: TODAY, actor=f"pod {pod}")
    start.wait()
    for i in range(edits):
        line = f"- pod {pod} edit {i}\n".encode()
        while True:
            try:
                fs.update("MEMORY.md", functools.partial(_plus, line))
                break
            except FileExistsError:
                continue


def _check_chain(fs: MemFS, path: str, writes: int) -> None:
    log = History(fs).log(path)
    applied = [v for v in log.versions if v.status in ("applied", "current")]
    assert len(applied) == writes + 1, "a version was lost"
    assert [v.status for v in log.versions].count("recorded, not applied") == 0
    assert applied[-1].status == "current"
    for before, after in itertools.pairwise(applied):  # the store's write order, one chain
        assert after.record.parent == before.record.sha256
    # each version's content is the one before it plus one line: the order is the write order
    contents = [History(fs).content(v) for v in applied]
    for a, b in itertools.pairwise(contents):
        assert b.startswith(a) and b.count(b"\n") == a.count(b"\n") + 1


def test_two_processes_writing_one_file_lose_no_version_and_keep_the_order(
    tmp_path: Path,
) -> None:
    root = tmp_path / "ws"
    fs = MemFS(LocalFileStore(root), clock=lambda: TODAY)
    fs.pipe_file("MEMORY.md", b"# index\n")
    ctx = multiprocessing.get_context("fork")
    pods, edits = 2, 20
    start = ctx.Barrier(pods)
    procs = [ctx.Process(target=_pod, args=(str(root), p, edits, start)) for p in range(pods)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
        assert p.exitcode == 0
    _check_chain(fs, "MEMORY.md", pods * edits)
    actors = {v.record.actor for v in History(fs).log("MEMORY.md").versions}
    assert actors == {"unknown", "pod 0", "pod 1"}


# -- version ids, restore, redact ------------------------------------------------------------------


def test_version_ids_resolve_by_unambiguous_prefix() -> None:
    fs = mount(InMemoryFileStore(), new_id=ids("abcd11112222", "abcd99990000", "ffff00001111"))
    fs.pipe_file("memory/a.md", memory("a", "one"))
    fs.pipe_file("memory/a.md", memory("a", "two"))
    fs.pipe_file("memory/a.md", memory("a", "three"))
    h = History(fs)
    assert h.resolve("memory/a.md", "abcd1").id == "abcd11112222"
    assert h.resolve("memory/a.md", "FFFF").id == "ffff00001111"
    with pytest.raises(VersionError, match="names 2 versions"):
        h.resolve("memory/a.md", "abcd")
    with pytest.raises(VersionError, match="at least 4 hex digits"):
        h.resolve("memory/a.md", "abc")
    with pytest.raises(VersionError, match="has no version"):
        h.resolve("memory/a.md", "0000")
    with pytest.raises(VersionError, match="has no version"):
        h.resolve("memory/b.md", "abcd1")


def test_restore_is_a_new_version_and_puts_back_the_exact_bytes() -> None:
    fs = mount(InMemoryFileStore())
    good = memory("role", "Process engineer; no need to explain Cpk.")
    fs.pipe_file("memory/role.md", good)
    first = History(fs).log("memory/role.md").versions[0].id
    fs.acting_as("chat turn").pipe_file("memory/role.md", memory("deadline", "Friday."))
    restored = History(fs.acting_as("cli:me")).restore("memory/role.md", first)
    assert fs.raw.cat_file("memory/role.md") == good
    assert (restored.record.operation, restored.record.actor) == ("restored", "cli:me")
    assert [v.status for v in History(fs).log("memory/role.md").versions] == [
        "applied",
        "applied",
        "current",
    ]
    with pytest.raises(VersionError, match="already holds"):
        History(fs).restore("memory/role.md", first)


def test_restore_brings_back_a_deleted_file() -> None:
    fs = mount(InMemoryFileStore())
    fs.pipe_file("memory/role.md", memory("role", "Engineer."))
    first = History(fs).log("memory/role.md").versions[0].id
    fs.rm_file("memory/role.md")
    History(fs).restore("memory/role.md", first)
    assert fs.raw.cat_file("memory/role.md") == memory("role", "Engineer.")
    assert statuses(fs, "memory/role.md") == [
        ("created", "applied"),
        ("deleted", "applied"),
        ("restored", "current"),
    ]


def test_redact_removes_content_hash_and_size_and_keeps_actor_time_operation() -> None:
    fs = mount(InMemoryFileStore())
    # a deletion request: personal data the user asked to have forgotten
    leaked = memory("creds", "The user's home address is 12 Elm Street, Springfield.")
    fs.pipe_file("memory/creds.md", leaked)
    fs.pipe_file("memory/creds.md", memory("creds", "Ask ops for staging access."))
    h = History(fs.acting_as("cli:dpo"))
    target = h.log("memory/creds.md").versions[0]
    with pytest.raises(VersionError, match="current content"):
        h.redact("memory/creds.md", h.log("memory/creds.md").versions[1].id)
    done = h.redact("memory/creds.md", target.id)
    r = done.record
    assert (r.sha256, r.size, r.redacted, r.redacted_by) == (None, None, True, "cli:dpo")
    assert (r.operation, r.actor, r.time) == ("created", "tester", target.record.time)
    assert done.status == "redacted"
    assert not fs.store.exists(blob_key(content_sha256(leaked)))
    raw_records = b"".join(fs.store.read(k) for k in record_keys(fs.store))
    assert content_sha256(leaked).encode() not in raw_records  # the next version's parent too
    # the content the record held went with it; the next version keeps its own
    held = [versions.parse_stored(fs.store.read(k)) for k in record_keys(fs.store)]
    assert [inline is None for _, inline in held] == [True, False]
    assert [versions.inline_content(i, r.sha256) for r, i in held if i and r.sha256] == [
        memory("creds", "Ask ops for staging access.")
    ]
    with pytest.raises(VersionError, match="redacted"):
        h.show("memory/creds.md", target.id)
    assert fs.raw.cat_file("memory/creds.md").endswith(b"Ask ops for staging access.\n")


def test_redact_keeps_a_blob_another_version_refers_to() -> None:
    fs = mount(InMemoryFileStore())
    same = memory("a", "Shared content.")
    fs.pipe_file("memory/a.md", same)
    fs.pipe_file("memory/b.md", same)
    fs.pipe_file("memory/a.md", memory("a", "Changed."))
    h = History(fs)
    h.redact("memory/a.md", h.log("memory/a.md").versions[0].id)
    assert h.show("memory/b.md", h.log("memory/b.md").versions[0].id) == same


def _edited_restored_redacted(fs: MemFS) -> list[str]:
    """Create, edit twice, restore the first version, redact the second: the ids in the order
    the store applied the changes (the restore last)."""
    for body in ("Process engineer.", "Quality engineer.", "Plant manager."):
        fs.pipe_file("memory/role.md", memory("role", body))
    h = History(fs)
    written = [v.id for v in h.log("memory/role.md").versions]
    restored = h.restore("memory/role.md", written[0])
    h.redact("memory/role.md", written[1])
    return [*written, restored.id]


def test_the_log_keeps_the_store_order_after_a_restore_and_a_redaction(fs: MemFS) -> None:
    applied = _edited_restored_redacted(fs)
    log = History(fs).log("memory/role.md")
    assert [v.id for v in log.versions] == applied
    assert [(v.record.operation, v.status) for v in log.versions] == [
        ("created", "applied"),
        ("modified", "redacted"),
        ("modified", "applied"),
        ("restored", "current"),
    ]
    [every] = History(fs).log_all()
    assert every.path == "memory/role.md" and [v.id for v in every.versions] == applied


def test_a_version_not_applied_stays_after_the_version_it_branched_from(tmp_path: Path) -> None:
    """Its parent's bytes are written again later by a restore: it still follows the first."""
    inner = make_store("local", tmp_path)
    clock = Ticks()
    fs = mount(inner, now=clock)
    first, second = memory("role", "Process engineer."), memory("role", "Quality engineer.")
    fs.pipe_file("memory/role.md", first)
    with pytest.raises(Killed):
        mount(DiesBeforeFileWrite(inner, "memory/role.md"), now=clock).pipe_file(
            "memory/role.md", memory("role", "Crashed edit.")
        )
    fs.pipe_file("memory/role.md", second)
    h = History(fs)
    created, crashed, modified = (v.id for v in h.log("memory/role.md").versions)
    restored = h.restore("memory/role.md", created).id
    log = h.log("memory/role.md")
    assert [v.id for v in log.versions] == [created, crashed, modified, restored]
    assert [v.status for v in log.versions] == [
        "applied",
        "recorded, not applied",
        "applied",
        "current",
    ]


# -- retention and gc ----------------------------------------------------------------------------


def test_retention_by_count_and_age_keeps_the_newest() -> None:
    clock = Ticks()
    fs = mount(InMemoryFileStore(), now=clock, **BLOBS)
    for i in range(6):
        fs.pipe_file("memory/a.md", memory("a", f"v{i}"))
    h = History(fs)
    report = h.gc(Retention(keep=2))
    # the four pruned versions' blobs wait: unreferenced now, deleted by a gc after the grace
    assert (report.records_deleted, report.blobs_deleted, report.blobs_pending) == (4, 0, 4)
    assert len(h.log("memory/a.md").versions) == 2
    assert h.gc(Retention(keep=2)).blobs_pending == 4  # not yet: the grace has not passed
    clock.now += GC_GRACE
    report = h.gc(Retention(keep=2))
    assert (report.blobs_deleted, report.blobs_pending) == (4, 0)
    assert not fs.store.exists(GC_PENDING)  # nothing waits: the list is gone
    assert [h.show("memory/a.md", v.id) for v in h.log("memory/a.md").versions] == [
        memory("a", "v4"),
        memory("a", "v5"),
    ]
    clock.now += dt.timedelta(days=30)
    fs.pipe_file("memory/b.md", memory("b", "new"))
    report = h.gc(Retention(max_age_days=7))
    assert report.records_deleted == 1  # a.md keeps its newest version, however old
    assert [v.status for v in h.log("memory/a.md").versions] == ["current"]


def test_gc_never_takes_the_blob_of_a_change_in_flight() -> None:
    # A writer stores its blob, then (a moment later) its record. A gc in between sees an
    # unreferenced blob; it waits, whatever the clock says, until a later gc finds it so too.
    clock = Ticks()
    fs = mount(InMemoryFileStore(), now=clock, **BLOBS)
    fs.pipe_file("memory/a.md", memory("a", "v0"))
    sha, reused = versions.put_blob(fs.store, memory("a", "v1"))  # the writer, before its record
    assert not reused
    h = History(fs)
    assert h.gc(grace=dt.timedelta(0)).blobs_pending == 1
    assert fs.store.exists(blob_key(sha))
    clock.now += dt.timedelta(days=365)
    fs.pipe_file("memory/a.md", memory("a", "v1"))  # its record lands: the blob is referenced
    report = h.gc()
    assert (report.blobs_deleted, report.blobs_pending) == (0, 0)
    assert h.show("memory/a.md", h.log("memory/a.md").versions[-1].id) == memory("a", "v1")


def _pending_old_blob() -> tuple[MemFS, History]:
    """A workspace whose blob of ``old`` nothing refers to, waited on past the grace."""
    clock = Ticks()
    fs = mount(InMemoryFileStore(), now=clock, **BLOBS)
    fs.pipe_file("memory/a.md", memory("a", "old"))
    fs.pipe_file("memory/a.md", memory("a", "new"))
    h = History(fs)
    assert h.gc(Retention(keep=1)).blobs_pending == 1
    clock.now += GC_GRACE
    return fs, h


def _restorable(fs: MemFS, content: bytes) -> None:
    h = History(fs)
    current = h.log("memory/a.md").versions[-1]
    assert current.status == "current" and h.show("memory/a.md", current.id) == content


def test_a_blob_reused_after_gc_listed_it_is_written_back_by_gc(monkeypatch) -> None:
    # gc lists the blobs; a change that reuses the pending blob lands entirely; gc deletes
    # the blob, reads the records again, and puts it back.
    fs, h = _pending_old_blob()
    real_ls = fs.store.ls

    def ls(path: str = "") -> list[str]:
        out = real_ls(path)
        if path == BLOBS_DIR:
            fs.pipe_file("memory/a.md", memory("a", "old"))
        return out

    monkeypatch.setattr(fs.store, "ls", ls)
    report = h.gc(Retention(keep=1))
    monkeypatch.undo()
    assert (report.blobs_deleted, report.blobs_kept) == (0, 1)
    _restorable(fs, memory("a", "old"))


def test_a_blob_reused_while_gc_deletes_it_is_written_back_by_the_writer(monkeypatch) -> None:
    # The change finds the blob stored (so does not write it), gc deletes it and checks before
    # the change's record lands; the change checks after its record and writes it back.
    fs, h = _pending_old_blob()
    real_put_record = versions.put_record
    ran: list[GcReport] = []

    def put_record(
        store: Any, record: VersionRecord, options: HistoryOptions, inline: str | None = None
    ) -> str:
        if not ran:
            ran.append(h.gc(Retention(keep=1)))
        return real_put_record(store, record, options, inline)

    monkeypatch.setattr(versions, "put_record", put_record)
    fs.pipe_file("memory/a.md", memory("a", "old"))
    monkeypatch.undo()
    assert ran[0].blobs_deleted == 1  # gc took it: no record referred to it yet
    _restorable(fs, memory("a", "old"))


def test_a_pruned_record_frees_its_inline_content_with_no_gc() -> None:
    clock = Ticks()
    fs = mount(InMemoryFileStore(), now=clock)
    for i in range(6):
        fs.pipe_file("memory/a.md", memory("a", f"v{i}"))
    assert fs.store.ls(BLOBS_DIR) == []  # every version is its record alone
    h = History(fs)
    report = h.gc(Retention(keep=2))
    assert (report.records_deleted, report.blobs_deleted, report.blobs_pending) == (4, 0, 0)
    assert not fs.store.exists(GC_PENDING)
    assert len(record_keys(fs.store)) == 2
    assert [h.show("memory/a.md", v.id) for v in h.log("memory/a.md").versions] == [
        memory("a", "v4"),
        memory("a", "v5"),
    ]


def test_retention_on_write_prunes_that_file() -> None:
    fs = mount(InMemoryFileStore(), retention=Retention(keep=3), prune_on_write=True)
    for i in range(7):
        fs.pipe_file("memory/a.md", memory("a", f"v{i}"))
    versions = History(fs).log("memory/a.md").versions
    assert len(versions) == 3 and versions[-1].status == "current"


def test_gc_records_memory_written_before_history(tmp_path: Path) -> None:
    store = LocalFileStore(tmp_path / "ws")
    MemFS(store, history=False).migrating().pipe_file(
        "memory/old.md", memory("old", "Pre-history.")
    )
    fs = mount(store)
    log = History(fs).log("memory/old.md")
    assert log.unrecorded and "in no version" in log.explanation
    assert History(fs).gc().baselines_recorded == 1
    assert not History(fs).log("memory/old.md").unrecorded
    fs.pipe_file("memory/old.md", memory("old", "Overwritten."))
    first = History(fs).log("memory/old.md").versions[0].id
    assert History(fs).show("memory/old.md", first) == memory("old", "Pre-history.")


# -- the commands ----------------------------------------------------------------------------------


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[tuple[str, MemFS]]:
    root = tmp_path / "ws"
    fs = mount(LocalFileStore(root))
    fs.pipe_file("memory/role.md", memory("role", "Process engineer."))
    fs.pipe_file("memory/role.md", memory("role", "Quality engineer."))
    fs.pipe_file("MEMORY.md", b"- [Role](memory/role.md) - who\n")
    yield str(root), fs


def _tree(root: str) -> dict[str, bytes]:
    return {p.as_posix(): p.read_bytes() for p in Path(root).rglob("*") if p.is_file()}


def test_log_table_and_json(ws: tuple[str, MemFS], capsys: pytest.CaptureFixture[str]) -> None:
    root, fs = ws
    assert main(["log", root, "memory/role.md"]) == 0
    out = capsys.readouterr().out
    first, second = (v.id for v in History(fs).log("memory/role.md").versions)
    assert first in out and second in out and "created" in out and "tester" in out
    assert main(["log", root, "--json"]) == 0
    logs = json.loads(capsys.readouterr().out)
    assert [log["path"] for log in logs] == ["MEMORY.md", "memory/role.md"]
    assert [v["status"] for v in logs[1]["versions"]] == ["applied", "current"]


def test_show_diff_restore_redact_gc(
    ws: tuple[str, MemFS], capsys: pytest.CaptureFixture[str]
) -> None:
    root, fs = ws
    first, second = (v.id for v in History(fs).log("memory/role.md").versions)
    assert main(["show", root, f"memory/role.md@{first[:5]}"]) == 0
    assert capsys.readouterr().out.endswith("Process engineer.\n")
    assert main(["diff", root, f"memory/role.md@{first}", f"memory/role.md@{second}"]) == 0
    out = capsys.readouterr().out
    assert "-Process engineer." in out and "+Quality engineer." in out
    assert main(["diff", root, f"memory/role.md@{second}"]) == 0
    assert capsys.readouterr().out == ""  # the current file is that version
    assert main(["restore", root, f"memory/role.md@{first}"]) == 0
    assert "restored memory/role.md" in capsys.readouterr().out
    assert fs.raw.cat_file("memory/role.md").endswith(b"Process engineer.\n")
    assert History(fs).log("memory/role.md").versions[-1].record.actor.startswith("cli")
    assert main(["redact", root, f"memory/role.md@{second}"]) == 0
    assert main(["gc", root, "--keep", "1", "--json"]) == 0
    capsys.readouterr()
    assert [v.status for v in History(fs).log("memory/role.md").versions] == ["current"]


def test_memfs_log_lists_a_restore_and_a_redaction_oldest_first(tmp_path: Path) -> None:
    """The real command, table and --json, in the order the store applied the changes."""
    root = tmp_path / "ws"
    applied = _edited_restored_redacted(mount(LocalFileStore(root)))
    cli = [sys.executable, "-m", "memfs.cli", "log", str(root), "memory/role.md"]
    table = subprocess.run(cli, capture_output=True, text=True, timeout=120, check=True).stdout
    rows = [line.split("│") for line in table.splitlines() if line.startswith("│ ")]
    rows = [cells for cells in rows if cells[1].strip()]  # a wrapped cell's line has no id
    assert [cells[1].strip() for cells in rows] == applied
    assert [cells[-2].strip() for cells in rows] == [
        "applied",
        "redacted",
        "applied",
        "current",
    ]
    done = subprocess.run([*cli, "--json"], capture_output=True, text=True, timeout=120, check=True)
    [logged] = json.loads(done.stdout)
    entries = logged["versions"]
    assert logged["path"] == "memory/role.md"
    assert [v["record"]["id"] for v in entries] == applied
    assert [v["status"] for v in entries] == ["applied", "redacted", "applied", "current"]


BAD = [
    ["show", "{root}", "memory/role.md"],
    ["show", "{root}", "memory/role.md@zz"],
    ["show", "{root}", "memory/role.md@0000"],
    ["show", "{root}", ".memfs/history@abcd"],
    ["restore", "{root}", "memory/role.md@00"],
    ["redact", "{root}", "memory/nope.md@abcd"],
    ["diff", "{root}", "memory/role.md@abcd", "MEMORY.md@abcd"],
    ["gc", "{root}", "--keep", "0"],
    ["gc", "{root}", "--max-age", "soon"],
    ["log", "{root}", "../outside.md"],
]


@pytest.mark.parametrize("argv", BAD)
def test_bad_input_is_one_line_exit_2_and_nothing_changes(
    argv: list[str], ws: tuple[str, MemFS], capsys: pytest.CaptureFixture[str]
) -> None:
    root, _ = ws
    before = _tree(root)
    assert main([a.format(root=root) for a in argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"memfs {argv[0]}: "), err
    assert _tree(root) == before


# -- the record's own format ---------------------------------------------------------------------


def test_a_record_reads_back_exactly_and_anything_else_is_refused() -> None:
    record = VersionRecord(
        id="0123456789ab",
        path="memory/naïve-ünïcode.md",
        operation="modified",
        time=dt.datetime(2026, 12, 1, 9, 0, 1, 250, tzinfo=dt.UTC),
        actor="mcp client 名前 \udcff",  # any text, a lone surrogate included
        sha256="a" * 64,
        size=12,
        parent="b" * 64,
    )
    data = record.to_bytes()
    assert data.isascii() and b'"time":"2026-12-01T09:00:01.000250Z"' in data
    assert b"moved_from" not in data  # None fields are left out
    assert VersionRecord.from_bytes(data) == record
    # the format pydantic wrote before (a UTC time with Z, extra keys) still reads
    head = b'{"id":"x1","path":"MEMORY.md","operation":"created","time":"2026-11-30T10:00:00Z"'
    old = VersionRecord.from_bytes(head + b',"future":1}')
    assert old.time == dt.datetime(2026, 11, 30, 10, tzinfo=dt.UTC)
    for bad, says in [
        (b"not json", "not JSON"),
        (b"[]", "not a JSON object"),
        (b'{"id":"x","path":"p","operation":"created"}', "no 'time'"),
        (head.replace(b"created", b"renamed") + b"}", "unknown operation"),
        (head.replace(b"2026-11-30T10:00:00Z", b"yesterday") + b"}", "not an ISO 8601 time"),
        (head + b',"size":-1}', "not a size"),
        (head + b',"size":true}', "not a size"),
        (head.replace(b'"x1"', b"7") + b"}", "'id' is not text"),
    ]:
        with pytest.raises(ValueError, match=says):
            VersionRecord.from_bytes(bad)
