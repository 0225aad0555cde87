"""No lost update through append mode, moves and renames, or a memory file too large.

* ``open(path, "ab")`` adds its bytes to what the file holds when they are stored
  (:meth:`MemFS.update`), so two appenders keep every line, in threads and in processes.
* A move never overwrites a destination (it has not read it). Where the store renames (local
  disk, memory) it is one step conditional on the bytes read; elsewhere it copies, then deletes
  the source only if it still holds what was copied: an edit that lands in between keeps its
  source (both files exist) and the move says so. The Anthropic tool's ``rename`` is the same
  move.
* A memory file over ``max_memory_file_bytes`` is refused with an error that says to split it.

The races are forced at the exact step where an update used to be lost, on every backend, and
then run for real with threads and processes (bounded here; the long runs are ``slow``).
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import multiprocessing
import os
import pickle
import random
import re
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from memfs import LocalFileStore, MemFS
from memfs.conflicts import content_sha256
from memfs.errors import (
    MemoryFileTooLargeError,
    MoveConflictError,
    PathConflictError,
    PreconditionFailedError,
    UpdateConflictError,
)
from memfs.filesystem import DEFAULT_MAX_MEMORY_FILE_BYTES
from memfs.layout import Layout
from memfs.stores import FileStore, FsspecFileStore, with_preconditions

from tests.conftest import BACKENDS, TODAY, make_store

NOTE = "memory/log.md"
SEED = f"---\nname: log\ndescription: a log\nmetadata:\n  type: project\n  recorded: {TODAY}\n---\n"


def _mount(store: FileStore, **kwargs: Any) -> MemFS:
    return MemFS(store, clock=lambda: TODAY, **kwargs)


@pytest.fixture
def fs(store: FileStore) -> MemFS:
    return _mount(store)


# -- the conditional delete every backend has --------------------------------------------------


def test_a_conditional_delete_removes_only_the_bytes_it_names(store: FileStore) -> None:
    conditional = with_preconditions(store)
    conditional.write("memory/a.md", b"one")
    with pytest.raises(PreconditionFailedError) as info:
        conditional.delete("memory/a.md", expected_sha256=content_sha256(b"two"))
    assert info.value.actual_sha256 == content_sha256(b"one")
    assert conditional.read("memory/a.md") == b"one"
    conditional.delete("memory/a.md", expected_sha256=content_sha256(b"one"))
    assert not conditional.exists("memory/a.md")
    with pytest.raises(PreconditionFailedError) as gone:
        conditional.delete("memory/a.md", expected_sha256=content_sha256(b"one"))
    assert gone.value.actual_sha256 is None
    with pytest.raises(ValueError, match="64-digit hex"):
        conditional.delete("memory/a.md", expected_sha256="abc")


# -- append mode ------------------------------------------------------------------------------


def test_append_keeps_a_write_that_landed_while_the_handle_was_open(fs: MemFS) -> None:
    fs.pipe_file(NOTE, SEED.encode())
    with fs.open(NOTE, "ab") as f:
        f.write(b"- mine\n")
        fs.update(NOTE, lambda cur: (cur or b"") + b"- theirs\n")  # another turn, meanwhile
    text = fs.raw.cat_file(NOTE).decode()
    assert text == SEED + "- theirs\n- mine\n"


def test_append_creates_a_missing_file_and_keeps_one_created_meanwhile(fs: MemFS) -> None:
    with fs.open("notes/new.txt", "ab") as f:
        f.write(b"b\n")
    assert fs.cat_file("notes/new.txt") == b"b\n"
    with fs.open("notes/other.txt", "ab") as f:
        f.write(b"second\n")
        fs.pipe_file("notes/other.txt", b"first\n", mode="create")
    assert fs.cat_file("notes/other.txt") == b"first\nsecond\n"


def test_append_writes_at_the_end_wherever_the_handle_was_sought(fs: MemFS) -> None:
    fs.pipe_file("notes/a.txt", b"start\n")
    with fs.open("notes/a.txt", "ab") as f:
        f.write(b"one\n")
        f.seek(0)
        f.write(b"two\n")
    assert fs.cat_file("notes/a.txt") == b"start\none\ntwo\n"


def test_append_in_text_mode_and_in_a_transaction(fs: MemFS) -> None:
    fs.pipe_file("notes/a.txt", b"x\n")
    with fs.open("notes/a.txt", "a") as f:
        f.write("y\n")
    with fs.transaction:
        with fs.open("notes/a.txt", "ab") as f:
            f.write(b"z\n")
        fs.update("notes/a.txt", lambda cur: (cur or b"") + b"meanwhile\n")
        assert fs.cat_file("notes/a.txt") == b"x\ny\nmeanwhile\n"  # not stored before commit
    assert fs.cat_file("notes/a.txt") == b"x\ny\nmeanwhile\nz\n"


def test_append_to_a_memory_file_gets_the_memory_rules(fs: MemFS) -> None:
    fs.pipe_file(NOTE, SEED.replace(f"  recorded: {TODAY}\n", "").encode())
    with fs.open(NOTE, "ab") as f:
        f.write(b"- line\n")
    stored = fs.raw.cat_file(NOTE).decode()
    assert f"recorded: {TODAY}" in stored and stored.endswith("- line\n")
    with pytest.raises(PermissionError) as info:
        fs.read_only().open(NOTE, "ab")
    assert info.value.errno == errno.EROFS


def _appender(fs: MemFS, path: str, worker: int, lines: int, start: Any) -> None:
    start.wait()
    for i in range(lines):
        with fs.open(path, "ab") as f:
            f.write(f"worker {worker} line {i}\n".encode())


def _check_lines(text: str, workers: int, lines: int) -> None:
    got = [ln for ln in text.splitlines() if ln.startswith("worker ")]
    want = {f"worker {w} line {i}" for w in range(workers) for i in range(lines)}
    assert len(got) == len(set(got)) == len(want), f"kept {len(set(got) & want)} of {len(want)}"
    assert set(got) == want
    for w in range(workers):  # each appender's lines keep its order
        assert [ln for ln in got if ln.startswith(f"worker {w} ")] == [
            f"worker {w} line {i}" for i in range(lines)
        ]


@pytest.mark.parametrize("kind", BACKENDS)
def test_two_appending_threads_keep_a_hundred_of_a_hundred_lines(kind: str, tmp_path: Path) -> None:
    fs = _mount(make_store(kind, tmp_path), credential_guard=False)
    fs.pipe_file(NOTE, SEED.encode())
    start = threading.Barrier(2)
    errors: list[BaseException] = []

    def run(worker: int) -> None:
        try:
            _appender(fs, NOTE, worker, 50, start)
        except BaseException as e:  # surfaced below
            errors.append(e)

    threads = [threading.Thread(target=run, args=(w,)) for w in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]
    _check_lines(fs.raw.cat_file(NOTE).decode(), 2, 50)


def _store_for(kind: str, root: str) -> FileStore:
    return LocalFileStore(root) if kind == "local" else FsspecFileStore(f"file://{root}")


def _process_appender(kind: str, root: str, worker: int, lines: int, start: Any, out: Any) -> None:
    try:
        _appender(
            _mount(_store_for(kind, root), credential_guard=False), NOTE, worker, lines, start
        )
        out.put((worker, None))
    except BaseException as e:
        out.put((worker, repr(e)))


def _append_with_processes(kind: str, root: Path, workers: int, lines: int) -> str:
    fs = _mount(_store_for(kind, str(root)), credential_guard=False)
    fs.pipe_file(NOTE, SEED.encode())
    ctx = multiprocessing.get_context("spawn")
    start, out = ctx.Barrier(workers), ctx.Queue()
    procs = [
        ctx.Process(target=_process_appender, args=(kind, str(root), w, lines, start, out))
        for w in range(workers)
    ]
    for p in procs:
        p.start()
    results = [out.get(timeout=240) for _ in procs]
    for p in procs:
        p.join(timeout=60)
    assert [e for _, e in results if e is not None] == []
    return str(fs.raw.cat_file(NOTE).decode())


@pytest.mark.parametrize("kind", ["local", "fsspec-file"])
def test_two_appending_processes_keep_a_hundred_of_a_hundred_lines(
    kind: str, tmp_path: Path
) -> None:
    _check_lines(_append_with_processes(kind, tmp_path / "ws", 2, 50), 2, 50)


@pytest.mark.slow
def test_eight_appending_processes_keep_every_line(tmp_path: Path) -> None:
    _check_lines(_append_with_processes("local", tmp_path / "ws", 8, 100), 8, 100)


# -- moves ------------------------------------------------------------------------------------


def _edit_when_copied(fs: MemFS, src: str, dst: str, edit: Callable[[], object]) -> None:
    """Run ``edit`` once, right after a move by copy has written ``dst`` (before it deletes
    ``src``). The store is made to move by conditional copy + delete, as a store without
    renames (S3) does: a one-step move has no moment between the copy and the delete."""
    store: Any = fs.store
    store.moves = False  # read statically, per instance: this store now copies and deletes
    write = store.write
    done = False

    def write_then_edit(path: str, data: bytes, **kwargs: Any) -> None:
        nonlocal done
        write(path, data, **kwargs)
        if not done and path == dst:
            done = True
            edit()

    store.write = write_then_edit


def test_an_edit_landing_during_a_move_keeps_its_source(fs: MemFS) -> None:
    fs.pipe_file("memory/a.md", (SEED + "old\n").encode())
    _edit_when_copied(
        fs,
        "memory/a.md",
        "memory/b.md",
        lambda: fs.update("memory/a.md", lambda cur: (cur or b"").replace(b"old", b"edited")),
    )
    with pytest.raises(MoveConflictError) as info:
        fs.mv("memory/a.md", "memory/b.md")
    assert (info.value.path, info.value.destination) == ("memory/a.md", "memory/b.md")
    message = str(info.value)
    assert "'memory/a.md' changed after it was copied" in message and "Read both" in message
    assert fs.raw.cat_file("memory/a.md").decode().endswith("edited\n")  # the edit survives
    assert fs.raw.cat_file("memory/b.md").decode().endswith("old\n")


def test_a_delete_landing_during_a_move_is_reported(fs: MemFS) -> None:
    fs.pipe_file("notes/a.txt", b"x")
    _edit_when_copied(fs, "notes/a.txt", "notes/b.txt", lambda: fs.rm_file("notes/a.txt"))
    with pytest.raises(MoveConflictError, match="was deleted after it was copied"):
        fs.move("notes/a.txt", "notes/b.txt")
    assert fs.cat_file("notes/b.txt") == b"x" and not fs.exists("notes/a.txt")


def test_a_file_written_into_a_tree_being_moved_is_not_deleted(fs: MemFS) -> None:
    for name in ("one", "two"):
        fs.pipe_file(f"memory/topic/{name}.md", (SEED + name + "\n").encode())
    _edit_when_copied(
        fs,
        "memory/topic/two.md",
        "memory/moved/two.md",
        lambda: fs.pipe_file("memory/topic/late.md", b"written meanwhile\n"),
    )
    fs.mv("memory/topic", "memory/moved", recursive=True)
    assert sorted(fs.find("memory")) == [
        "memory/moved/one.md",
        "memory/moved/two.md",
        "memory/topic/late.md",
    ]


def test_mv_moves_what_copy_then_rm_would(store: FileStore, tmp_path: Path) -> None:
    """fsspec's mv is copy + rm: the same pairs move, an existing directory included. One
    difference is deliberate: fsspec's mv overwrites an existing destination file, MemFS's
    refuses it (nothing moves), because a memory file is never overwritten unread — the mover
    has not read the destination, so its content would be lost without anyone having seen it.
    The mover reads it and deletes it first, or picks another name."""
    ours, theirs = _mount(store), _mount(make_store("memory", tmp_path))
    for fs in (ours, theirs):
        fs.pipe_file("docs/a.txt", b"a")
        fs.pipe_file("docs/sub/b.txt", b"b")
        fs.makedirs("into", exist_ok=True)
        fs.pipe_file("into/keep.txt", b"k")
    ours.mv("docs", "into", recursive=True)
    theirs.copy("docs", "into", recursive=True)
    theirs.rm("docs", recursive=True)
    assert ours.find("") == theirs.find("")
    assert [ours.cat_file(p) for p in ours.find("")] == [theirs.cat_file(p) for p in ours.find("")]
    with pytest.raises(PathConflictError, match=r"already exists.*Nothing was moved"):
        ours.mv("into/a.txt", "into/keep.txt")
    assert ours.cat_file("into/keep.txt") == b"k" and ours.cat_file("into/a.txt") == b"a"
    ours.rm_file("into/keep.txt")  # read, then deleted: now the name is free
    ours.mv("into/a.txt", "into/keep.txt")
    assert ours.cat_file("into/keep.txt") == b"a" and not ours.exists("into/a.txt")
    with pytest.raises(IsADirectoryError):
        ours.mv("into/sub", "elsewhere")  # a tree moves only with recursive=True
    ours.mv("into/sub/b.txt", "into/sub/b.txt")
    assert ours.cat_file("into/sub/b.txt") == b"b"


def test_move_create_refuses_a_destination_that_exists(fs: MemFS) -> None:
    fs.pipe_file("notes/a.txt", b"a")
    fs.pipe_file("notes/b.txt", b"b")
    with pytest.raises(PathConflictError):
        fs.move("notes/a.txt", "notes/b.txt", create=True)
    assert fs.cat_file("notes/a.txt") == b"a" and fs.cat_file("notes/b.txt") == b"b"
    fs.pipe_file("tree/x.txt", b"x")
    with pytest.raises(PathConflictError):
        fs.move("tree", "notes", create=True)
    with pytest.raises(OSError, match="into itself") as info:
        fs.move("tree", "tree/inner")
    assert info.value.errno == errno.EINVAL
    fs.move("tree", "moved/tree", create=True)
    assert fs.cat_file("moved/tree/x.txt") == b"x" and not fs.exists("tree")


def test_a_move_applies_the_rules_of_its_destination(fs: MemFS) -> None:
    fs.pipe_file("drafts/key.md", b"aws_access_key_id = AKIAQ3EGX7LJ2ZVC4WPB\n")
    with pytest.raises(PermissionError, match="credential"):
        fs.move("drafts/key.md", "memory/key.md")
    assert fs.exists("drafts/key.md") and not fs.exists("memory/key.md")
    with pytest.raises(PermissionError):
        fs.read_only().move("drafts/key.md", "drafts/other.md")


_ACTS = st.sampled_from(["edit", "delete", "nothing"])
_WHEN = st.sampled_from(["before", "after-copy", "after"])


@pytest.mark.parametrize("kind", ["memory", "local"])
@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(act=_ACTS, when=_WHEN, tree=st.booleans(), create=st.booleans())
def test_a_move_never_loses_what_another_writer_stored(
    kind: str, act: str, when: str, tree: bool, create: bool, tmp_path_factory: Any
) -> None:
    """Whatever another writer does to the source, and whenever: its bytes end up somewhere
    (unless it deleted them), and the move either completes or says what it kept."""
    fs = _mount(make_store(kind, tmp_path_factory.mktemp(kind)))
    src_dir, dst_dir = ("notes/t", "notes/u") if tree else ("notes", "notes")
    src, dst = f"{src_dir}/a.txt", f"{dst_dir}/b.txt" if not tree else f"{dst_dir}/a.txt"
    fs.pipe_file(src, b"original\n")

    def other() -> None:
        if act == "edit":
            fs.update(src, lambda cur: (cur or b"") + b"theirs\n")
        elif act == "delete" and fs.exists(src):
            fs.rm_file(src)

    if when == "before":
        other()
    elif when == "after-copy":
        _edit_when_copied(fs, src, dst, other)
    moving_from, moving_to = (src_dir, dst_dir) if tree else (src, dst)
    try:
        if act == "delete" and when == "before":  # nothing to move (an emptied tree at most)
            with contextlib.suppress(FileNotFoundError):
                fs.move(moving_from, moving_to, create=create)
            assert not fs.exists(src) and not fs.exists(dst)
            return
        fs.move(moving_from, moving_to, create=create)
        conflict = None
    except MoveConflictError as e:
        conflict = e
    if when == "after":
        other()
    theirs = act == "edit"
    stored = {p: fs.raw.cat_file(p) for p in (src, dst) if fs.exists(p)}
    if conflict is not None:
        assert when == "after-copy" and act != "nothing"
        assert stored[dst] == b"original\n"
        assert stored.get(src) == (b"original\ntheirs\n" if theirs else None)
    elif when == "after":  # the move was done: an edit of the old path makes a new file there
        assert stored[dst] == b"original\n"
        assert stored.get(src) == (b"theirs\n" if theirs else None)
    else:
        assert src not in stored
        assert stored[dst] == (b"original\ntheirs\n" if theirs else b"original\n")


def test_move_conflicts_survive_pickling() -> None:
    e = MoveConflictError("memory/a.md", "0" * 64, "1" * 64, destination="memory/b.md")
    back = pickle.loads(pickle.dumps(e))
    assert (back.path, back.destination, str(back)) == (e.path, e.destination, str(e))


# -- the size cap ------------------------------------------------------------------------------


def test_a_memory_file_over_the_cap_is_refused_with_how_to_fix_it(store: FileStore) -> None:
    fs = _mount(store, max_memory_file_bytes=1000)
    big = (SEED + "x" * 2000 + "\n").encode()
    with pytest.raises(MemoryFileTooLargeError) as info:
        fs.pipe_file("memory/big.md", big)
    assert info.value.errno == errno.EFBIG
    assert "Split the memory into smaller files" in str(info.value)
    assert "MEMORY.md" in str(info.value) and "at most 1,000 bytes" in str(info.value)
    assert not fs.exists("memory/big.md")
    for other in ("memory/notes.txt", "memory/deep/progress.xml"):  # any file of the area
        with pytest.raises(MemoryFileTooLargeError):
            fs.pipe_file(other, big)
    fs.pipe_file("MEMORY.md", b"- [x](memory/x.md)\n" * 200)  # the index has no cap
    fs.pipe_file("docs/big.md", big)  # nor has the rest of the workspace
    with pytest.raises(MemoryFileTooLargeError):
        fs.mv("docs/big.md", "memory/big.md")
    assert fs.exists("docs/big.md")
    fs.pipe_file("memory/small.md", SEED.encode())
    with pytest.raises(MemoryFileTooLargeError), fs.open("memory/small.md", "ab") as f:
        f.write(b"y" * 2000)
    assert fs.raw.cat_file("memory/small.md") == SEED.encode()
    assert fs.raw.max_memory_file_bytes == fs.read_only().max_memory_file_bytes == 1000


def test_the_cap_follows_the_layout_and_can_be_lifted(tmp_path: Path) -> None:
    claude = _mount(
        make_store("memory", tmp_path), layout=Layout.claude_code(""), max_memory_file_bytes=10
    )
    claude.pipe_file("MEMORY.md", b"- [a](a.md) - a hook longer than ten bytes\n")
    with pytest.raises(MemoryFileTooLargeError, match=r"link each from MEMORY\.md"):
        claude.pipe_file("a.md", b"more than ten bytes")
    free = _mount(make_store("memory", tmp_path), max_memory_file_bytes=None)
    free.pipe_file("memory/huge.md", b"z" * (DEFAULT_MAX_MEMORY_FILE_BYTES + 1))
    default = _mount(make_store("memory", tmp_path))
    assert default.max_memory_file_bytes == DEFAULT_MAX_MEMORY_FILE_BYTES == 8 << 20
    err = MemoryFileTooLargeError("memory/a.md", 20 << 20, 8 << 20)
    assert "20.0 MiB" in str(pickle.loads(pickle.dumps(err)))


# -- the Anthropic tool --------------------------------------------------------------------------

anthropic = pytest.importorskip("anthropic")

from anthropic.lib.tools import ToolError  # noqa: E402

from memfs_anthropic import MemFSMemoryTool  # noqa: E402


def _tool(fs: MemFS) -> MemFSMemoryTool:
    return MemFSMemoryTool(fs)


def test_rename_keeps_an_edit_that_lands_during_it(fs: MemFS) -> None:
    tool = _tool(fs)
    tool.call({"command": "create", "path": "/memories/a.md", "file_text": SEED + "old\n"})
    edit = {"command": "str_replace", "path": "/memories/a.md", "old_str": "old", "new_str": "new"}
    replies: list[str] = []
    _edit_when_copied(  # on the tool's mount (it names itself in the version history)
        tool.fs, "memory/a.md", "memory/b.md", lambda: replies.append(str(tool.call(edit)))
    )
    with pytest.raises(ToolError) as info:
        tool.call({"command": "rename", "old_path": "/memories/a.md", "new_path": "/memories/b.md"})
    assert replies and replies[0].startswith("The memory file has been edited.")
    assert str(info.value) == (
        "The rename of /memories/a.md to /memories/b.md did not complete: /memories/a.md changed "
        "after it was copied (another edit landed), so it was kept. Both /memories/a.md and "
        "/memories/b.md exist now; /memories/b.md holds the content from before that edit. View "
        "both, keep what you want and delete the other."
    )
    assert fs.raw.cat_file("memory/a.md").decode().endswith("new\n")


def test_rename_says_so_when_its_source_is_deleted_during_it(fs: MemFS) -> None:
    tool = _tool(fs)
    tool.call({"command": "create", "path": "/memories/a.md", "file_text": SEED + "old\n"})
    delete = {"command": "delete", "path": "/memories/a.md"}
    replies: list[str] = []
    _edit_when_copied(
        tool.fs, "memory/a.md", "memory/b.md", lambda: replies.append(str(tool.call(delete)))
    )
    with pytest.raises(ToolError) as info:
        tool.call({"command": "rename", "old_path": "/memories/a.md", "new_path": "/memories/b.md"})
    assert replies == ["Successfully deleted /memories/a.md"]
    assert str(info.value) == (
        "The rename of /memories/a.md to /memories/b.md did not complete: /memories/a.md was "
        "deleted after it was copied (by another turn); /memories/b.md holds its content from "
        "before that. View it and delete it if it should be gone."
    )
    assert not fs.raw.exists("memory/a.md")
    assert fs.raw.cat_file("memory/b.md").decode().endswith("old\n")


def test_rename_never_overwrites_a_destination_created_after_its_check(fs: MemFS) -> None:
    tool = _tool(fs)
    tool.call({"command": "create", "path": "/memories/a.md", "file_text": SEED + "a\n"})
    kind = tool._kind
    calls = 0

    def kind_then_create(t: Any) -> str | None:
        nonlocal calls
        calls += 1
        found = kind(t)
        if calls == 1:  # the destination check: another turn creates it right after
            fs.pipe_file("memory/b.md", (SEED + "theirs\n").encode(), mode="create")
        return found

    tool._kind = kind_then_create  # type: ignore[method-assign]
    with pytest.raises(ToolError, match=r"^The destination /memories/b\.md already exists$"):
        tool.call({"command": "rename", "old_path": "/memories/a.md", "new_path": "/memories/b.md"})
    assert fs.raw.cat_file("memory/b.md").decode().endswith("theirs\n")
    assert fs.raw.cat_file("memory/a.md").decode().endswith("a\n")


def test_create_of_a_memory_over_the_cap_says_to_split_it(store: FileStore) -> None:
    tool = _tool(_mount(store, max_memory_file_bytes=100))
    with pytest.raises(ToolError, match="Split the memory into smaller files"):
        tool.call({"command": "create", "path": "/memories/big.txt", "file_text": "x" * 500})


# -- the race, for real: an editor and a mover ----------------------------------------------------

MARK = "<!-- end -->"


def _editor(
    tool: Any,
    edits: int,
    reported: list[str],
    start: Any,
    pause: float,
    counts: dict[str, int] | None = None,
) -> None:
    """Append ``edits`` tokens with str_replace on whichever of a.md / b.md exists, waiting up
    to ``pause`` seconds before each. With ``counts``, keep editing past ``edits`` (up to ten
    times as many) until the mover has completed a rename: on a loaded machine a rename can
    lose every race in the first ``edits``, and a race with no rename tests nothing."""
    start.wait()
    rng = random.Random(7)
    for i in itertools.count():
        if i >= edits and (counts is None or counts["renames"] > 0 or i >= 10 * edits):
            break
        if pause:
            time.sleep(rng.uniform(0, pause))
        token = f"edit-{i}"
        for name in ("a.md", "b.md", "a.md", "b.md"):
            try:
                out = tool.call(
                    {
                        "command": "str_replace",
                        "path": f"/memories/{name}",
                        "old_str": MARK,
                        "new_str": f"{token}\n{MARK}",
                    }
                )
            except ToolError:
                continue  # moved away meanwhile (or the race was lost): try the other name
            if out.startswith("The memory file has been edited."):
                reported.append(token)
            break


def _mover(fs: MemFS, tool: Any, stop: threading.Event, counts: dict[str, int], start: Any) -> None:
    """Rename a.md <-> b.md until told to stop; a conflict is merged back, as an agent would."""
    start.wait()
    pause = random.Random(11)
    while not stop.is_set():
        time.sleep(pause.uniform(0, 0.002))
        src, dst = ("a.md", "b.md") if fs.exists("memory/a.md") else ("b.md", "a.md")
        try:
            tool.call(
                {
                    "command": "rename",
                    "old_path": f"/memories/{src}",
                    "new_path": f"/memories/{dst}",
                }
            )
            counts["renames"] += 1
        except ToolError as e:
            if "did not complete" in str(e):
                counts["conflicts"] += 1
                _merge_back(fs, f"memory/{src}", f"memory/{dst}")


def _merge_back(fs: MemFS, keep: str, stale: str) -> None:
    """Fold every line of ``stale`` into ``keep``, then delete ``stale`` if still unchanged."""
    while True:
        try:
            data = fs.raw.cat_file(stale)
        except FileNotFoundError:
            return
        extra = [ln for ln in data.decode().splitlines() if ln.startswith("edit-")]

        def fold(cur: bytes | None, extra: list[str] = extra) -> bytes:
            text = (cur or b"").decode()
            missing = [ln for ln in extra if ln not in text.splitlines()]
            return text.replace(MARK, "".join(f"{ln}\n" for ln in missing) + MARK).encode()

        try:
            fs.update(keep, fold)
        except UpdateConflictError:
            continue  # the editor kept winning: read both again
        try:
            fs.store.delete(stale, expected_sha256=content_sha256(data))
            return
        except PreconditionFailedError:
            continue


def race_edits_against_renames(fs: MemFS, edits: int, pause: float = 0.004) -> dict[str, int]:
    """One editor thread and one mover thread on one memory; counts what survived."""
    tool = MemFSMemoryTool(fs)
    tool.call({"command": "create", "path": "/memories/a.md", "file_text": f"{SEED}{MARK}\n"})
    reported: list[str] = []
    counts = {"renames": 0, "conflicts": 0}
    stop, start = threading.Event(), threading.Barrier(2)
    mover = threading.Thread(target=_mover, args=(fs, tool, stop, counts, start))
    mover.start()
    try:
        _editor(tool, edits, reported, start, pause, counts)
    finally:
        stop.set()
        mover.join()
    text = "".join(
        fs.raw.cat_file(p).decode() for p in ("memory/a.md", "memory/b.md") if fs.exists(p)
    )
    kept = set(re.findall(r"^edit-\d+$", text, re.M))
    return {**counts, "reported": len(reported), "survived": len(set(reported) & kept)}


@pytest.mark.parametrize("kind", ["local", "memory"])
def test_every_edit_reported_during_renames_survives(kind: str, tmp_path: Path) -> None:
    fs = _mount(make_store(kind, tmp_path), credential_guard=False)
    out = race_edits_against_renames(fs, 150)
    print(f"\n[edits racing renames, {kind}] {out}")
    assert out["reported"] > 0 and out["renames"] > 0
    assert out["survived"] == out["reported"]


@pytest.mark.slow
@pytest.mark.parametrize("pause", [0.0, 0.004], ids=["back-to-back", "pauses"])
def test_a_thousand_edits_racing_renames_all_survive(pause: float, tmp_path: Path) -> None:
    fs = _mount(make_store("local", tmp_path), credential_guard=False)
    out = race_edits_against_renames(fs, 1000, pause)
    print(f"\n[edits racing renames, local, pause {pause}] {out}")
    assert out["survived"] == out["reported"]


def test_the_race_files_are_left_clean(tmp_path: Path) -> None:
    """After the race only memory files remain: no temp or lock file in the memory area."""
    store = make_store("local", tmp_path)
    fs = _mount(store, credential_guard=False)
    race_edits_against_renames(fs, 30)
    assert isinstance(store, LocalFileStore)
    left = os.listdir(Path(store.root) / "memory")
    assert all(n in ("a.md", "b.md") for n in left), left


def race_edits_against_two_movers(fs: MemFS, edits: int, renames: int) -> dict[str, int]:
    """One editor thread and two mover threads on one memory, with no pauses, until the editor
    has had ``edits`` edits reported and the movers have done ``renames`` renames (both counts
    observed; the editor gives up after 100 times ``edits`` tries, so a stalled race fails
    rather than hangs). Counts what survived."""
    tool = MemFSMemoryTool(fs)
    tool.call({"command": "create", "path": "/memories/a.md", "file_text": f"{SEED}{MARK}\n"})
    reported: list[str] = []
    counts = {"renames": 0, "conflicts": 0, "tries": 0}
    lock, done = threading.Lock(), threading.Event()

    def mover() -> None:
        while not done.is_set():
            src, dst = ("a.md", "b.md") if fs.exists("memory/a.md") else ("b.md", "a.md")
            rename = {"command": "rename", "old_path": f"/memories/{src}"}
            try:
                tool.call({**rename, "new_path": f"/memories/{dst}"})
            except ToolError as e:  # the other mover won (gone, or its destination taken)
                if "did not complete" in str(e):
                    with lock:
                        counts["conflicts"] += 1
                    _merge_back(fs, f"memory/{src}", f"memory/{dst}")
                continue
            with lock:
                counts["renames"] += 1

    movers = [threading.Thread(target=mover) for _ in range(2)]
    for t in movers:
        t.start()
    try:
        for i in itertools.count():
            if (len(reported) >= edits and counts["renames"] >= renames) or i >= 100 * edits:
                break
            counts["tries"] += 1
            token = f"edit-{i}"
            for name in ("a.md", "b.md", "a.md", "b.md"):
                edit = {"command": "str_replace", "path": f"/memories/{name}", "old_str": MARK}
                try:
                    out = str(tool.call({**edit, "new_str": f"{token}\n{MARK}"}))
                except ToolError:
                    continue  # moved away meanwhile: try the other name
                if out.startswith("The memory file has been edited."):
                    reported.append(token)
                break
    finally:
        done.set()
        for t in movers:
            t.join()
    names = [p for p in ("memory/a.md", "memory/b.md") if fs.exists(p)]
    text = "".join(fs.raw.cat_file(p).decode() for p in names)
    kept = re.findall(r"^edit-\d+$", text, re.M)
    return {
        **counts,
        "files": len(names),
        "reported": len(reported),
        "survived": len(set(reported) & set(kept)),
        "lines": len(kept),
    }


@pytest.mark.parametrize("history", [True, False], ids=["history", "no-history"])
@pytest.mark.parametrize("kind", ["local", "memory"])
def test_an_edit_racing_two_renamers_keeps_every_reported_edit(
    kind: str, history: bool, tmp_path: Path
) -> None:
    """Every edit reported ``edited`` is in the one file left, once; no other line is. The
    store renames in one step, so no rename is ever half done (no conflict to merge)."""
    fs = _mount(make_store(kind, tmp_path), credential_guard=False, history=history)
    out = race_edits_against_two_movers(fs, edits=100, renames=30)
    print(f"\n[an edit racing two renamers, {kind}, history {history}] {out}")
    assert out["reported"] >= 100 and out["renames"] >= 30, out
    assert out["files"] == 1 and out["conflicts"] == 0
    assert out["survived"] == out["reported"] == out["lines"]
