"""Version history across a power cut, simulated: what was fsynced survives, nothing else does.

A SIGKILL (``tests/test_history.py``) keeps every write the kernel accepted; a power cut keeps
only what reached the disk. :class:`PowerModel` stands between the local store and ``os``: every
file it writes, every rename, unlink and directory it makes goes to the real disk as usual and
is also kept, in the model, as *pending* until the matching fsync — of the file for its bytes,
of the directory for its entries. After each such call the test cuts the power: the disk as it
would come back (the durable entries and bytes alone; a file whose bytes were never synced
comes back empty) is written to a fresh directory and opened with memfs. There every memory
file must be whole, every record readable, and every file's content held by a stored version
or be the content it had before the change in flight; a change whose call returned survives.

The model is the strict one POSIX allows (no rename is durable before its directory's fsync,
no data before its file's), so a store that orders its writes right for it is right on any
file system that keeps those promises.
"""

from __future__ import annotations

import copy
import os
import stat
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from memfs import LocalFileStore, MemFS
from memfs.history import History
from memfs.stores import host, local
from memfs.versions import HistoryOptions, Retention, list_records

from tests.conftest import TODAY
from tests.test_history import Ticks, memory


class PowerModel:
    """What a disk holds durably, beside the real one: entries per directory and bytes per file,
    each made durable only by its fsync (see the module docstring)."""

    def __init__(self, root: Path) -> None:
        self.lock = threading.RLock()
        self.kind: dict[int, str] = {}
        self.entries: dict[int, dict[str, int]] = {}
        """Durable entries: directory node -> name -> node."""
        self.data: dict[int, bytes] = {}
        """Durable bytes of each file node."""
        self.pending: dict[int, list[tuple[str, int | None]]] = {}
        self.written: dict[int, bytearray] = {}
        self.by_ino: dict[int, int] = {}
        self.fd_node: dict[int, int] = {}
        self.cuts: list[tuple[dict[int, dict[str, int]], dict[int, bytes]]] = []
        self.root = self._scan(str(root))
        self.cut()

    def _new(self, ino: int, kind: str) -> int:
        node = len(self.kind)
        self.kind[node] = kind
        self.by_ino[ino] = node  # an inode number reused after an unlink is a new node
        if kind == "d":
            self.entries[node] = {}
        return node

    def _scan(self, path: str) -> int:
        st = os.lstat(path)
        if os.path.isdir(path):
            node = self._new(st.st_ino, "d")
            for name in os.listdir(path):
                self.entries[node][name] = self._scan(os.path.join(path, name))
            return node
        node = self._new(st.st_ino, "f")
        with open(path, "rb") as f:
            self.data[node] = f.read()
        return node

    def cut(self) -> None:
        """Remember the disk as a power cut now would leave it."""
        self.cuts.append((copy.deepcopy(self.entries), dict(self.data)))

    def _node(self, fd: int) -> int | None:
        return self.by_ino.get(os.fstat(fd).st_ino)

    def _entry(self, dir_fd: int, name: str, node: int | None) -> None:
        parent = self._node(dir_fd)
        assert parent is not None, "a directory the model never saw"
        self.pending.setdefault(parent, []).append((name, node))

    # -- the calls of ``os`` that change the disk ---------------------------------------------

    def open(self, path: str, flags: int, mode: int = 0o777, *, dir_fd: int | None = None) -> int:
        with self.lock:
            existed = flags & os.O_CREAT and _exists(path, dir_fd)
            fd = os.open(path, flags, mode, dir_fd=dir_fd)
            ino = os.fstat(fd).st_ino
            if flags & os.O_CREAT and not existed:
                node = self._new(ino, "f")
                self.written[node] = bytearray()
                assert dir_fd is not None
                self._entry(dir_fd, path, node)
                self.cut()
            if ino in self.by_ino:
                self.fd_node[fd] = self.by_ino[ino]
            return fd

    def write(self, fd: int, data: Any) -> int:
        with self.lock:
            n = os.write(fd, data)
            node = self.fd_node.get(fd)
            if node is not None:
                self.written.setdefault(node, bytearray()).extend(bytes(data[:n]))
                self.cut()
            return n

    def fsync(self, fd: int) -> None:
        with self.lock:
            os.fsync(fd)
            node = self.fd_node.get(fd, self._node(fd))
            if node is None:
                return
            if self.kind[node] == "d":
                for name, child in self.pending.pop(node, []):
                    if child is None:
                        self.entries[node].pop(name, None)
                    else:
                        self.entries[node][name] = child
            else:
                self.data[node] = bytes(self.written.get(node, b""))
            self.cut()

    def replace(self, src: str, dst: str, *, src_dir_fd: int, dst_dir_fd: int) -> None:
        with self.lock:
            node = self.by_ino[os.lstat(src, dir_fd=src_dir_fd).st_ino]
            os.replace(src, dst, src_dir_fd=src_dir_fd, dst_dir_fd=dst_dir_fd)
            self._entry(dst_dir_fd, dst, node)
            self._entry(src_dir_fd, src, None)
            self.cut()

    rename = replace  # a move: the same entries change (onto a free name)

    def unlink(self, name: str, *, dir_fd: int) -> None:
        with self.lock:
            os.unlink(name, dir_fd=dir_fd)
            self._entry(dir_fd, name, None)
            self.cut()

    def mkdir(self, name: str, mode: int = 0o777, *, dir_fd: int) -> None:
        with self.lock:
            os.mkdir(name, mode, dir_fd=dir_fd)
            node = self._new(os.lstat(name, dir_fd=dir_fd).st_ino, "d")
            self._entry(dir_fd, name, node)
            self.cut()

    def rmdir(self, name: str, *, dir_fd: int) -> None:
        with self.lock:
            os.rmdir(name, dir_fd=dir_fd)
            self._entry(dir_fd, name, None)
            self.cut()

    def close(self, fd: int) -> None:
        with self.lock:
            self.fd_node.pop(fd, None)
            os.close(fd)

    # -- after the cut ------------------------------------------------------------------------

    def restore(self, cut: int, where: Path) -> Path:
        """Write the disk as cut number ``cut`` left it under ``where``."""
        entries, data = self.cuts[cut]

        def build(node: int, path: Path) -> None:
            path.mkdir()
            for name, child in entries[node].items():
                if self.kind[child] == "d":
                    build(child, path / name)
                else:
                    (path / name).write_bytes(data.get(child, b""))

        build(self.root, where)
        return where


def _exists(path: str, dir_fd: int | None) -> bool:
    try:
        os.lstat(path, dir_fd=dir_fd)
    except FileNotFoundError:
        return False
    return True


class _Os(ModuleType):
    """``os`` with its disk-changing calls going through a :class:`PowerModel`."""

    def __init__(self, model: PowerModel) -> None:
        super().__init__("os")
        self._model = model

    def __getattr__(self, name: str) -> Any:
        if name in (
            "open",
            "write",
            "fsync",
            "replace",
            "rename",
            "unlink",
            "mkdir",
            "rmdir",
            "close",
        ):
            return getattr(self._model, name)
        return getattr(os, name)


@contextmanager
def power_model(root: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[PowerModel]:
    model = PowerModel(root)
    with monkeypatch.context() as m:
        m.setattr(host, "os", _Os(model))
        m.setattr(local, "os", _Os(model))
        yield model


# -- the stores under test -------------------------------------------------------------------------


class SequentialStore(LocalFileStore):
    """A local disk without grouped writes: the record and the file are two store writes."""

    grouped_writes = False


class FileFirstStore(LocalFileStore):
    """Groups the two writes in the wrong order: the file, then its record. Only here to show
    that the simulation catches a wrong order."""

    def write_after(self, first: str, first_data: bytes, path: str, data: bytes, **kw: Any) -> None:
        self.write(path, data, **kw)
        self.write(first, first_data, create=True)


A0 = memory("a", "Written before history was kept.")
A1, A2 = memory("a", "The build is green."), memory("a", "The build is red.")
B1, B2 = memory("b", "Deploys on Fridays."), memory("b", "No deploys on Fridays.")

Change = dict[str, tuple[bytes | None, bytes | None]]
"""What one step changes: path -> (content before, content after; None: no file)."""
Step = tuple[Change, Callable[[MemFS], object]]
STEPS: list[Step] = [
    ({"memory/a.md": (A0, A1)}, lambda fs: fs.pipe_file("memory/a.md", A1)),
    ({"memory/a.md": (A1, A2)}, lambda fs: fs.pipe_file("memory/a.md", A2)),
    ({"memory/a.md": (A2, None)}, lambda fs: fs.rm("memory/a.md")),
    ({"memory/sub/b.md": (None, B1)}, lambda fs: fs.pipe_file("memory/sub/b.md", B1)),
    ({"memory/sub/b.md": (B1, B2)}, lambda fs: fs.pipe_file("memory/sub/b.md", B2)),
    # a move: two records (one per name, in two directories) grouped, then one rename
    (
        {"memory/sub/b.md": (B2, None), "memory/c.md": (None, B2)},
        lambda fs: fs.mv("memory/sub/b.md", "memory/c.md"),
    ),
    ({"memory/c.md": (B2, B1)}, lambda fs: fs.pipe_file("memory/c.md", B1)),
]


def violations(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, make: type, **opts: Any
) -> list[str]:
    """Run :data:`STEPS` under the model, cut the power after every disk call, and say what
    each cut broke (nothing, for a store that orders its writes right)."""
    root = tmp_path / "ws"
    options = HistoryOptions(now=Ticks(), **opts)
    MemFS(make(root), clock=lambda: TODAY, history=False).pipe_file(
        "memory/a.md", A0
    )  # no version holds A0
    fs = MemFS(make(root), clock=lambda: TODAY, history=options)
    spans = []
    with power_model(root, monkeypatch) as model:
        for step in STEPS:
            start = len(model.cuts)
            step[1](fs)
            spans.append((start, len(model.cuts) - 1))
    found = []
    state: dict[str, bytes | None] = {"memory/a.md": A0, "memory/sub/b.md": None}
    state["memory/c.md"] = None
    for (changes, _), (start, end) in zip(STEPS, spans, strict=True):
        for cut in range(start, end + 1):
            disk = model.restore(cut, tmp_path / f"cut-{cut}")
            for problem in _check(disk, state, changes, returned=cut == end):
                found.append(f"cut {cut} in the change of {', '.join(changes)}: {problem}")
        state.update({path: after for path, (_, after) in changes.items()})
    return found


def _check(
    disk: Path, state: dict[str, bytes | None], changes: Change, *, returned: bool
) -> Iterator[str]:
    fs = MemFS(LocalFileStore(disk, create=False), history=HistoryOptions(now=Ticks()))
    h = History(fs)
    for log in h.log_all():
        if log.damaged:
            yield f"{log.path}: damaged records {[d.reason for d in log.damaged]}"
    for other, content in state.items():
        now = fs.raw.cat_file(other) if fs.raw.exists(other) else None
        before, after = changes.get(other, (content, content))
        if now not in (before, after):
            yield f"{other} holds {now!r}, neither its old content nor its new one"
        elif other in changes and returned and now != after:
            yield f"{other}: the change returned, and did not survive the cut"
        elif other in changes and now not in (None, before) and not h.restorable(other, now):
            yield f"{other} holds content no stored version holds"


@pytest.mark.parametrize(
    ("make", "opts"),
    [
        (LocalFileStore, {}),  # grouped: record and file in one call, fsyncs overlapped
        (SequentialStore, {}),
        (LocalFileStore, {"inline_limit": 0}),  # content in blobs, as large memories are
        # every change prunes the records past the newest two: grouped deletes
        (LocalFileStore, {"retention": Retention(keep=2)}),
        (SequentialStore, {"retention": Retention(keep=2)}),
    ],
    ids=["grouped", "sequential", "blobs", "pruned", "pruned-sequential"],
)
def test_a_power_cut_at_any_point_loses_no_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, make: type, opts: dict[str, Any]
) -> None:
    assert violations(tmp_path, monkeypatch, make, **opts) == []


def test_the_simulation_catches_a_file_put_in_place_before_its_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    found = violations(tmp_path, monkeypatch, FileFirstStore)
    assert any("no stored version holds" in f for f in found), found


def test_a_grouped_write_syncs_the_record_before_the_file_is_renamed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fs = MemFS(
        LocalFileStore(tmp_path / "ws"), clock=lambda: TODAY, history=HistoryOptions(now=Ticks())
    )
    fs.pipe_file("memory/a.md", A1)
    calls: list[str] = []

    class Tracing(_Os):
        def __getattr__(self, name: str) -> Any:
            real = super().__getattr__(name)
            if name not in ("fsync", "replace"):
                return real

            def traced(*args: Any, **kw: Any) -> Any:
                target = args[1] if name == "replace" else os.readlink(f"/proc/self/fd/{args[0]}")
                calls.append(f"{name} {os.path.basename(str(target))}")
                return real(*args, **kw)

            return traced

    model = PowerModel(tmp_path / "ws")
    with monkeypatch.context() as m:
        m.setattr(host, "os", Tracing(model))
        fs.pipe_file("memory/a.md", A2)
    renames = [c for c in calls if c.startswith("replace")]
    assert renames[-1] == "replace a.md" and renames[0].endswith(".json")
    record_dir_sync = max(i for i, c in enumerate(calls) if c.startswith("fsync") and len(c) == 38)
    assert record_dir_sync < calls.index("replace a.md")
    # four fsyncs: both temp files, then the record's directory, then the file's
    assert sum(c.startswith("fsync") for c in calls) == 4


@pytest.mark.parametrize("fails", ["record", "file", "record-rename"])
def test_a_grouped_write_that_fails_part_way_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fails: str
) -> None:
    import errno

    from memfs.errors import message
    from memfs.versions import record_keys

    root = tmp_path / "ws"
    fs = MemFS(LocalFileStore(root), clock=lambda: TODAY, history=HistoryOptions(now=Ticks()))
    fs.pipe_file("memory/a.md", A1)
    keys = record_keys(fs.store)
    real_open = local.open_temp

    def open_temp(fd: int, name: str, data: bytes, mode: int) -> tuple[str, int]:
        if (fails == "file") == (name == "a.md") and fails != "record-rename":
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_open(fd, name, data, mode)

    class FailingRename(ModuleType):
        def __getattr__(self, name: str) -> Any:
            return getattr(os, name)

        def replace(self, src: str, dst: str, **kw: Any) -> None:
            if fails == "record-rename" and dst.endswith(".json"):
                raise OSError(errno.EIO, "Input/output error")
            os.replace(src, dst, **kw)

    monkeypatch.setattr(local, "open_temp", open_temp)
    monkeypatch.setattr(host, "os", FailingRename("os"))
    with pytest.raises(OSError) as info:
        fs.pipe_file("memory/a.md", A2)
    monkeypatch.undo()
    text = message(info.value)
    assert "memory/a.md" in text and ".memfs" not in text and "othing was changed" in text, text
    assert fs.raw.cat_file("memory/a.md") == A1 and record_keys(fs.store) == keys
    assert [p for p in root.rglob("*") if p.name.startswith(host.TEMP_PREFIX)] == []


# -- grouped writes and deletes: one sync per directory ----------------------------------------


class UnsyncedGroupStore(LocalFileStore):
    """Groups a move's records and never syncs their directories: only here to show that the
    simulation catches a file moved before the records of the move were durable."""

    def write_many(self, writes: Any) -> None:
        real = local.sync_dirs
        local.sync_dirs = lambda fds: None  # type: ignore[assignment]
        try:
            super().write_many(writes)
        finally:
            local.sync_dirs = real


def test_the_simulation_catches_a_move_before_its_records_are_durable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    found = violations(tmp_path, monkeypatch, UnsyncedGroupStore)
    assert any("memory/c.md holds content no stored version holds" in f for f in found), found


def test_a_power_cut_in_a_grouped_write_or_delete_keeps_each_file_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "ws"
    store = LocalFileStore(root)
    old = {"x/gone-1": b"old one", "x/gone-2": b"old two", "y/gone-3": b"old three"}
    for path, data in old.items():
        store.write(path, data)
    new = {"x/new-1": b"first " * 50, "x/new-2": b"second " * 50, "y/new-3": b"third " * 50}
    with power_model(root, monkeypatch) as model:
        start = len(model.cuts)
        store.write_many(list(new.items()))
        middle = len(model.cuts)
        assert store.delete_many([(p, None) for p in old]) == [None, None, None]
        end = len(model.cuts)
    seen = set()
    for cut in range(start, end):
        disk = LocalFileStore(model.restore(cut, tmp_path / f"cut-{cut}"), create=False)
        held = {p: disk.read(p) if disk.exists(p) else None for p in {**old, **new}}
        for path, data in new.items():
            assert held[path] in (None, data), (cut, path, held[path])
            assert cut < middle - 1 or held[path] == data, (cut, path)  # it returned: durable
        for path, data in old.items():
            assert held[path] in (None, data) if cut >= middle else held[path] == data
            assert cut < end - 1 or held[path] is None, (cut, path)
        seen.add(tuple(v is not None for v in held.values()))
    assert len(seen) > 3  # the cuts fell between the steps, not only before and after


@contextmanager
def directory_syncs(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The directories (workspace-relative) each ``os.fsync`` of a directory synced, in order;
    ``replace a.md``-style entries for each rename between them."""
    calls: list[str] = []

    class Counting(ModuleType):
        def __getattr__(self, name: str) -> Any:
            return getattr(os, name)

        def fsync(self, fd: int) -> None:
            if stat.S_ISDIR(os.fstat(fd).st_mode):
                calls.append("sync " + os.readlink(f"/proc/self/fd/{fd}"))
            os.fsync(fd)

        def replace(self, src: str, dst: str, **kw: Any) -> None:
            calls.append(f"rename {dst}")
            os.replace(src, dst, **kw)

        def rename(self, src: str, dst: str, **kw: Any) -> None:
            calls.append(f"rename {dst}")
            os.rename(src, dst, **kw)

    with monkeypatch.context() as m:
        m.setattr(host, "os", Counting("os"))
        m.setattr(local, "os", Counting("os"))
        yield calls


def test_grouped_deletes_sync_each_directory_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = LocalFileStore(tmp_path / "ws")
    paths = [f"x/f{i}" for i in range(5)] + ["y/g"]
    for path in paths:
        store.write(path, b"bytes")
    with directory_syncs(monkeypatch) as calls:
        got = store.delete_many([(p, None) for p in [*paths, "x/missing"]])
    assert got[:-1] == [None] * 6 and isinstance(got[-1], FileNotFoundError)
    # once each, at once (in no fixed order)
    assert sorted(c.rsplit("/", 1)[-1] for c in calls) == ["x", "y"]
    assert store.ls("") == []


def test_an_edit_that_prunes_syncs_the_records_directory_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "ws"
    keep_all = HistoryOptions(now=Ticks(), retention=Retention())
    fs = MemFS(LocalFileStore(root), clock=lambda: TODAY, history=keep_all)
    for i in range(7):
        fs.pipe_file("memory/a.md", memory("a", f"Version {i}."))
    assert len(list_records(fs.store, "memory/a.md").loose) == 7
    pruning = HistoryOptions(now=Ticks(), retention=Retention(keep=2))
    fs = MemFS(LocalFileStore(root), clock=lambda: TODAY, history=pruning)
    with directory_syncs(monkeypatch) as calls:
        fs.pipe_file("memory/a.md", memory("a", "Version 7."))
    assert len(list_records(fs.store, "memory/a.md").loose) == 2  # six records deleted
    syncs = [c for c in calls if c.startswith("sync")]
    # the record's directory, the file's, and the six deletes' one: not one sync per delete
    assert len(syncs) == 3, calls


def test_a_moves_two_records_are_renamed_before_either_directory_is_synced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fs = MemFS(
        LocalFileStore(tmp_path / "ws"), clock=lambda: TODAY, history=HistoryOptions(now=Ticks())
    )
    fs.pipe_file("memory/a.md", A1)
    fs.mv("memory/a.md", "memory/b.md")  # both record directories exist from here
    with directory_syncs(monkeypatch) as calls:
        fs.mv("memory/b.md", "memory/a.md")
    assert [c.split()[0] for c in calls] == ["rename", "rename", "sync", "sync", "rename", "sync"]
    assert calls[0].endswith(".json") and calls[1].endswith(".json") and calls[4] == "rename a.md"
    assert calls[2] != calls[3]  # two records' directories, each synced once


def test_a_grouped_write_with_a_taken_path_stores_nothing(tmp_path: Path) -> None:
    from memfs.errors import PathConflictError

    store = LocalFileStore(tmp_path / "ws")
    store.write("x/taken", b"first")
    with pytest.raises(PathConflictError) as info:
        store.write_many([("x/free", b"new"), ("x/taken", b"new"), ("y/free", b"new")])
    assert info.value.path == "x/taken"
    assert store.ls("") == ["x/taken"] and store.read("x/taken") == b"first"
    assert [p for p in (tmp_path / "ws").rglob("*") if p.name.startswith(host.TEMP_PREFIX)] == []
