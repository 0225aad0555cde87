"""Moves: one store step where the store can rename, never over a file the mover has not read,
and one version per rename.

* The store capability (:func:`memfs.stores.move_file`): one ``renameat`` on local disk (the
  inode stays), one step under the lock in memory, a conditional copy + delete on a store that
  cannot rename. Every precondition refuses with nothing changed.
* ``mv`` / ``move`` onto an existing destination is refused on every backend, history on or off.
* A recorded rename stores no second blob, and both names' logs tell the move; the source's
  last version can be restored.
* Each step where a move can fail (the source changed or vanished between the read and the
  move, a store error) leaves no record behind it.

The S3 flavour (moto) is ``tests/test_moves_s3.py``; the race of edits against renames is in
``tests/test_lost_updates.py``.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import pytest
from memfs import InMemoryFileStore, LocalFileStore, MemFS
from memfs.conflicts import content_sha256
from memfs.errors import (
    MoveConflictError,
    PathConflictError,
    PreconditionFailedError,
    UpdateConflictError,
)
from memfs.history import History
from memfs.stores import (
    MovingFileStore,
    ProcessLockedStore,
    copy_then_delete,
    move_file,
    supports_moves,
    with_preconditions,
)
from memfs.versions import BLOBS_DIR, HistoryOptions, record_keys

from tests.conftest import BACKENDS, TODAY, make_store

STORES = ["local", "memory", "fsspec-memory"]
"""A renaming store on disk, one in memory, and one moved by conditional copy + delete."""


def memory(name: str, body: str) -> bytes:
    head = f"---\nname: {name}\nmetadata:\n  type: user\n  recorded: {TODAY}\n---\n"
    return f"{head}{body}\n".encode()


def mount(store: Any, *, history: bool = True) -> MemFS:
    return MemFS(store, clock=lambda: TODAY, history=history, actor="tester")


def conditional(kind: str, tmp_path: Path) -> Any:
    return with_preconditions(make_store(kind, tmp_path))


# -- the store capability ------------------------------------------------------------------------


def test_which_stores_rename_in_one_step(tmp_path: Path) -> None:
    local, mem = LocalFileStore(tmp_path / "ws"), InMemoryFileStore()
    assert supports_moves(local) and supports_moves(mem)
    assert isinstance(local, MovingFileStore) and isinstance(mem, MovingFileStore)
    assert not supports_moves(conditional("fsspec-memory", tmp_path))  # copied + deleted


@pytest.mark.parametrize("kind", STORES)
def test_a_store_move_carries_the_bytes_and_frees_the_source(kind: str, tmp_path: Path) -> None:
    store = conditional(kind, tmp_path)
    store.write("a/x.txt", b"x")
    move_file(store, "a/x.txt", "b/deeper/y.txt", expected_sha256=content_sha256(b"x"))
    assert store.read("b/deeper/y.txt") == b"x" and not store.exists("a/x.txt")
    move_file(store, "b/deeper/y.txt", "b/deeper/z.txt")  # the same directory
    assert store.read("b/deeper/z.txt") == b"x" and not store.exists("b/deeper/y.txt")
    move_file(store, "b/deeper/z.txt", "b/deeper/z.txt", expected_sha256=content_sha256(b"x"))
    assert store.read("b/deeper/z.txt") == b"x"  # onto itself: nothing to do


def test_a_local_move_is_one_rename(tmp_path: Path) -> None:
    """The inode stays: the bytes were not copied, and a reader holding the file keeps it."""
    store = LocalFileStore(tmp_path / "ws")
    store.write("a/x.txt", b"x")
    before = os.stat(tmp_path / "ws" / "a" / "x.txt").st_ino
    store.move("a/x.txt", "b/x.txt")
    assert os.stat(tmp_path / "ws" / "b" / "x.txt").st_ino == before


@pytest.mark.parametrize("kind", STORES)
def test_a_store_move_never_overwrites_a_destination_unread(kind: str, tmp_path: Path) -> None:
    store = conditional(kind, tmp_path)
    store.write("a.txt", b"mine")
    store.write("b.txt", b"theirs")
    with pytest.raises(PathConflictError) as info:
        move_file(store, "a.txt", "b.txt")
    assert info.value.path == "b.txt"
    assert (store.read("a.txt"), store.read("b.txt")) == (b"mine", b"theirs")
    with pytest.raises(PreconditionFailedError) as failed:
        move_file(store, "a.txt", "b.txt", replace_sha256=content_sha256(b"other"))
    assert failed.value.path == "b.txt"
    assert (store.read("a.txt"), store.read("b.txt")) == (b"mine", b"theirs")
    # Conditional on what the mover read: the destination it read is replaced.
    move_file(store, "a.txt", "b.txt", replace_sha256=content_sha256(b"theirs"))
    assert store.read("b.txt") == b"mine" and not store.exists("a.txt")


@pytest.mark.parametrize("kind", STORES)
def test_a_store_move_of_a_changed_or_missing_source_moves_nothing(
    kind: str, tmp_path: Path
) -> None:
    store = conditional(kind, tmp_path)
    store.write("a.txt", b"now")
    with pytest.raises(PreconditionFailedError) as info:
        move_file(store, "a.txt", "b.txt", expected_sha256=content_sha256(b"read before"))
    assert (info.value.path, info.value.actual_sha256) == ("a.txt", content_sha256(b"now"))
    assert store.read("a.txt") == b"now" and not store.exists("b.txt")
    with pytest.raises(FileNotFoundError):
        move_file(store, "gone.txt", "b.txt")
    with pytest.raises(FileNotFoundError):
        move_file(store, "no/such/dir.txt", "b.txt")
    assert not store.exists("b.txt")


def test_a_local_move_refuses_directories_and_the_root(tmp_path: Path) -> None:
    store = LocalFileStore(tmp_path / "ws")
    store.write("d/x.txt", b"x")
    store.write("f.txt", b"f")
    for src, dst in [("d", "e"), ("", "e"), ("f.txt", ""), ("f.txt", "d")]:
        with pytest.raises(IsADirectoryError):
            store.move(src, dst)
    assert store.read("f.txt") == b"f" and store.read("d/x.txt") == b"x"
    with pytest.raises(PreconditionFailedError):
        store.move("f.txt", "f.txt", expected_sha256=content_sha256(b"other"))


def test_an_in_memory_move_refuses_directories(tmp_path: Path) -> None:
    store = InMemoryFileStore()
    store.write("d/x.txt", b"x")
    store.write("f.txt", b"f")
    with pytest.raises(IsADirectoryError):
        store.move("d", "e")
    with pytest.raises(PathConflictError) as info:
        store.move("f.txt", "d")  # a directory there: taken, with no content to name
    assert info.value.actual_sha256 is None
    assert store.read("f.txt") == b"f" and store.read("d/x.txt") == b"x"


def test_a_copy_then_delete_keeps_a_source_changed_after_its_copy() -> None:
    """A writer that changes the source between the copy and the delete keeps its change."""
    inner = InMemoryFileStore()
    store = ProcessLockedStore(inner)
    store.write("a.txt", b"a")
    write = inner.write

    def write_then_edit(path: str, data: bytes, **kwargs: Any) -> None:
        write(path, data, **kwargs)
        if path == "b.txt":
            write("a.txt", b"edited")

    inner.write = write_then_edit  # type: ignore[method-assign]
    with pytest.raises(MoveConflictError) as info:
        copy_then_delete(store, "a.txt", "b.txt")
    assert info.value.destination == "b.txt"
    assert (inner.read("a.txt"), inner.read("b.txt")) == (b"edited", b"a")


# -- mv and move never overwrite -----------------------------------------------------------------


@pytest.mark.parametrize("history", [True, False], ids=["history", "no-history"])
@pytest.mark.parametrize("kind", BACKENDS)
def test_mv_onto_an_existing_file_is_refused(kind: str, history: bool, tmp_path: Path) -> None:
    fs = mount(make_store(kind, tmp_path), history=history)
    fs.pipe_file("memory/a.md", memory("a", "A."))
    fs.pipe_file("memory/b.md", memory("b", "B."))
    records = record_keys(fs.store)
    for move in (fs.mv, fs.move, fs.rename):
        with pytest.raises(PathConflictError) as info:
            move("memory/a.md", "memory/b.md")
        message = str(info.value)
        assert "\n" not in message
        assert "'memory/b.md' already exists" in message and "Nothing was moved" in message
        assert "delete it first" in message and "choose another name" in message
    assert fs.raw.cat_file("memory/a.md") == memory("a", "A.")
    assert fs.raw.cat_file("memory/b.md") == memory("b", "B.")
    assert record_keys(fs.store) == records


# -- one version per rename ----------------------------------------------------------------------


@pytest.mark.parametrize("kind", STORES)
def test_a_rename_records_one_version_and_both_logs_tell_it(kind: str, tmp_path: Path) -> None:
    fs = mount(make_store(kind, tmp_path))
    one, two = memory("a", "First."), memory("a", "Second.")
    fs.pipe_file("memory/a.md", one)
    fs.pipe_file("memory/a.md", two)
    blobs, records = fs.store.ls(BLOBS_DIR), len(record_keys(fs.store))
    fs.mv("memory/a.md", "memory/b.md")
    assert fs.store.ls(BLOBS_DIR) == blobs  # no second copy of the bytes
    assert len(record_keys(fs.store)) == records + 2  # the destination's, the source's end
    assert fs.raw.cat_file("memory/b.md") == two and not fs.exists("memory/a.md")
    h = History(fs)
    src, dst = h.log("memory/a.md").versions, h.log("memory/b.md").versions
    assert [(v.record.operation, v.status) for v in src] == [
        ("created", "applied"),
        ("modified", "applied"),
        ("deleted", "current"),
    ]
    assert (src[-1].record.moved_to, src[-1].record.parent) == ("memory/b.md", content_sha256(two))
    assert [(v.record.operation, v.record.moved_from, v.status) for v in dst] == [
        ("created", "memory/a.md", "current")
    ]
    assert dst[0].record.sha256 == content_sha256(two) and h.show("memory/b.md", dst[0].id) == two
    h.restore("memory/a.md", src[1].id)  # the source's last version comes back
    assert fs.raw.cat_file("memory/a.md") == two
    h.restore("memory/a.md", src[0].id)
    assert fs.raw.cat_file("memory/a.md") == one


def test_a_recorded_rename_on_disk_is_one_rename(tmp_path: Path) -> None:
    fs = mount(LocalFileStore(tmp_path / "ws"))
    fs.pipe_file("memory/a.md", memory("a", "A."))
    before = os.stat(tmp_path / "ws" / "memory" / "a.md").st_ino
    fs.mv("memory/a.md", "memory/b.md")
    assert os.stat(tmp_path / "ws" / "memory" / "b.md").st_ino == before


@pytest.mark.parametrize("kind", STORES)
def test_a_rename_in_and_out_of_the_versioned_area(kind: str, tmp_path: Path) -> None:
    """Out of memory: the source's log ends in a delete (the destination keeps no log). Into
    memory: the destination's log starts at the move, and the moved bytes are its version."""
    fs = mount(make_store(kind, tmp_path))
    fs.pipe_file("memory/a.md", memory("a", "A."))
    fs.mv("memory/a.md", "notes/a.md")
    h = History(fs)
    last = h.log("memory/a.md").versions[-1].record
    assert (last.operation, last.moved_to) == ("deleted", None)
    fs.mv("notes/a.md", "memory/c.md")
    first = h.log("memory/c.md").versions[0]
    assert (first.record.operation, first.record.moved_from) == ("created", "notes/a.md")
    assert h.show("memory/c.md", first.id) == memory("a", "A.")


def test_an_unrecorded_source_is_kept_before_it_moves(tmp_path: Path) -> None:
    """Bytes written with history off are recorded (``unrecorded``) before their name goes."""
    store = LocalFileStore(tmp_path / "ws")
    mount(store, history=False).pipe_file("memory/a.md", memory("a", "Old."))
    fs = mount(store)
    fs.mv("memory/a.md", "memory/b.md")
    ops = [v.record.operation for v in History(fs).log("memory/a.md").versions]
    assert ops == ["unrecorded", "deleted"]


@pytest.mark.parametrize("kind", ["local", "memory"])
def test_a_move_without_history_is_the_store_move(kind: str, tmp_path: Path) -> None:
    fs = mount(make_store(kind, tmp_path), history=False)
    fs.pipe_file("memory/a.md", memory("a", "A."))
    calls: list[tuple[str, str]] = []
    store: Any = fs.store
    move = store.move

    def counted(src: str, dst: str, **kwargs: Any) -> None:
        calls.append((src, dst))
        move(src, dst, **kwargs)

    store.move = counted
    fs.mv("memory/a.md", "memory/b.md")
    assert calls == [("memory/a.md", "memory/b.md")]
    assert fs.raw.cat_file("memory/b.md") == memory("a", "A.")


# -- what a failed move leaves -------------------------------------------------------------------


class EditsBeforeMove:
    """Wraps a store's ``move``: before each of the first ``times`` moves, ``edit()`` runs."""

    def __init__(self, fs: MemFS, edit: Any, times: int) -> None:
        self.edit, self.left = edit, times
        store: Any = fs.store
        self.move = store.move
        store.move = self

    def __call__(self, src: str, dst: str, **kwargs: Any) -> None:
        if self.left:
            self.left -= 1
            self.edit()
        self.move(src, dst, **kwargs)


@pytest.mark.parametrize("history", [True, False], ids=["history", "no-history"])
@pytest.mark.parametrize("kind", ["local", "memory"])
def test_a_source_changed_before_the_move_is_read_again(
    kind: str, history: bool, tmp_path: Path
) -> None:
    """The move is conditional on the bytes read: an edit landing in between moves with it,
    and the refused round leaves no record."""
    fs = mount(make_store(kind, tmp_path), history=history)
    fs.pipe_file("memory/a.md", memory("a", "A."))
    EditsBeforeMove(fs, lambda: fs.pipe_file("memory/a.md", memory("a", "Edited.")), 1)
    fs.mv("memory/a.md", "memory/b.md")
    assert fs.raw.cat_file("memory/b.md") == memory("a", "Edited.")
    if history:
        ops = [v.record.operation for v in History(fs).log("memory/b.md").versions]
        assert ops == ["created"]
        ops = [v.record.operation for v in History(fs).log("memory/a.md").versions]
        assert ops == ["created", "modified", "deleted"]


@pytest.mark.parametrize("history", [True, False], ids=["history", "no-history"])
def test_a_source_deleted_before_the_move_is_not_found(history: bool) -> None:
    fs = mount(InMemoryFileStore(), history=history)
    fs.pipe_file("memory/a.md", memory("a", "A."))
    records = record_keys(fs.store)
    EditsBeforeMove(fs, lambda: fs.store.delete("memory/a.md"), 1)
    with pytest.raises(FileNotFoundError):
        fs.mv("memory/a.md", "memory/b.md")
    assert record_keys(fs.store) == records and not fs.exists("memory/b.md")


def test_a_source_that_keeps_changing_gives_up(tmp_path: Path) -> None:
    fs = mount(InMemoryFileStore())
    fs.pipe_file("memory/a.md", memory("a", "0"))
    edits = iter(range(1, 100))
    EditsBeforeMove(fs, lambda: fs.pipe_file("memory/a.md", memory("a", str(next(edits)))), 99)
    with pytest.raises(UpdateConflictError):
        fs.mv("memory/a.md", "memory/b.md")
    assert not fs.exists("memory/b.md")
    assert all(v.record.operation != "deleted" for v in History(fs).log("memory/a.md").versions)


def test_a_store_error_during_a_recorded_move_leaves_no_record(tmp_path: Path) -> None:
    fs = mount(LocalFileStore(tmp_path / "ws"))
    fs.pipe_file("memory/a.md", memory("a", "A."))
    records = record_keys(fs.store)

    def full(src: str, dst: str, **kwargs: Any) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", dst)

    store: Any = fs.store
    store.move = full
    with pytest.raises(OSError) as info:
        fs.mv("memory/a.md", "memory/b.md")
    assert info.value.errno == errno.ENOSPC
    assert record_keys(fs.store) == records
    assert fs.raw.cat_file("memory/a.md") == memory("a", "A.")


def test_a_recorded_move_by_copy_keeps_the_destinations_record_on_a_conflict() -> None:
    """On a store that copies and deletes, an edit landing between the two keeps its source:
    the destination's record stays (its file was written), the source's end does not."""
    store = ProcessLockedStore(InMemoryFileStore())
    fs = MemFS(store, clock=lambda: TODAY, history=HistoryOptions(), actor="tester")
    fs.pipe_file("memory/a.md", memory("a", "A."))
    inner: Any = store.inner
    write = inner.write

    def write_then_edit(path: str, data: bytes, **kwargs: Any) -> None:
        write(path, data, **kwargs)
        if path == "memory/b.md":
            write("memory/a.md", memory("a", "Edited."))

    inner.write = write_then_edit
    with pytest.raises(MoveConflictError):
        fs.mv("memory/a.md", "memory/b.md")
    h = History(fs)
    assert [v.record.operation for v in h.log("memory/a.md").versions] == ["created"]
    assert [v.record.operation for v in h.log("memory/b.md").versions] == ["created"]
    assert fs.raw.cat_file("memory/a.md") == memory("a", "Edited.")


@pytest.mark.parametrize("how", ["move", "mv"])
@pytest.mark.parametrize("history", [True, False], ids=["history", "no-history"])
@pytest.mark.parametrize("kind", STORES)
def test_a_tree_moved_onto_a_taken_name_moves_the_rest(
    kind: str, history: bool, how: str, tmp_path: Path
) -> None:
    """A file whose destination exists stays (with its directory); the others move, then the
    refusal is raised. (``mv`` into an existing directory moves the tree inside it, as
    fsspec's does; ``move`` moves it to exactly that path.)"""
    fs = mount(make_store(kind, tmp_path), history=history)
    for name in ("a", "b", "c"):
        fs.pipe_file(f"memory/old/{name}.md", memory(name, name.upper()))
    to = "memory/new" if how == "move" else "memory/new/old"
    fs.pipe_file(f"{to}/b.md", memory("b", "Theirs."))
    with pytest.raises(PathConflictError) as info:
        if how == "move":
            fs.move("memory/old", "memory/new")
        else:
            fs.mv("memory/old", "memory/new", recursive=True)
    assert info.value.path == f"{to}/b.md"
    assert fs.raw.cat_file(f"{to}/b.md") == memory("b", "Theirs.")
    assert sorted(fs.find("memory")) == [
        f"{to}/a.md",
        f"{to}/b.md",
        f"{to}/c.md",
        "memory/old/b.md",
    ]


@pytest.mark.parametrize("kind", STORES)
def test_a_file_moved_into_memory_is_dated_by_the_move(kind: str, tmp_path: Path) -> None:
    """Its bytes change (today's date), so it is written through the write path and its
    source deleted conditionally; an edit of the source in between keeps the source."""
    fs = mount(make_store(kind, tmp_path))
    old = memory("a", "A.").replace(str(TODAY).encode(), b"2020-01-02")
    fs.pipe_file("notes/a.md", old)
    fs.mv("notes/a.md", "memory/a.md")
    assert fs.raw.cat_file("memory/a.md") == memory("a", "A.") and not fs.exists("notes/a.md")
    first = History(fs).log("memory/a.md").versions[0].record
    assert (first.operation, first.moved_from) == ("created", None)  # notes/ keeps no history
    fs.pipe_file("notes/b.md", old)
    save = fs.save

    def save_then_edit(path: str, data: bytes, **kwargs: Any) -> bytes:
        stored = save(path, data, **kwargs)
        if path == "memory/b.md":  # the move's copy: the source is edited right after
            fs.pipe_file("notes/b.md", old + b"edited\n")
        return stored

    fs.save = save_then_edit  # type: ignore[method-assign]
    with pytest.raises(MoveConflictError):
        fs.mv("notes/b.md", "memory/b.md")
    assert fs.raw.cat_file("notes/b.md").endswith(b"edited\n")
    assert fs.raw.cat_file("memory/b.md") == memory("a", "A.")
