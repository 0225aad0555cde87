"""History under faults: gc frees space on a full disk, leftovers of killed writers are removed
by the next gc, and a change whose version cannot be stored (a full disk, a read-only remount)
names the memory file, says nothing was changed, and changes nothing.

The disk faults are real where this machine allows it (a 1 MiB tmpfs, remounted read-only;
root only) and injected otherwise."""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from memfs import InMemoryFileStore, LocalFileStore, MemFS
from memfs.errors import message
from memfs.history import History
from memfs.stores.host import TEMP_PREFIX, lock_name, path_lock
from memfs.versions import BLOBS_DIR, GC_GRACE, GC_PENDING, HISTORY_DIR, Retention

from tests.conftest import TODAY
from tests.killed_writer import kill_after_steps
from tests.test_history import Ticks, memory


@contextlib.contextmanager
def tmpfs(where: Path, size: str = "1m") -> Iterator[Path]:
    where.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)], capture_output=True
    )
    if done.returncode != 0:  # pragma: no cover - not root, or no mount here
        pytest.skip("cannot mount a tmpfs here (needs root)")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def leftovers(root: Path) -> list[str]:
    """Temp and lock files anywhere in the workspace (a change writes its record and its file
    at once, so a kill can leave one beside a memory file too)."""
    out = []
    for d, _, files in os.walk(root):
        out += [os.path.join(d, f) for f in files if f.startswith(TEMP_PREFIX)]
    return out


# -- a full disk ---------------------------------------------------------------------------------


def _fill(fs: MemFS) -> bytes:
    """Write versions of one memory until the disk is full; the last content that landed."""
    last = b""
    for i in range(10_000):
        data = memory("a", f"version {i} " + "x" * 40_000)
        try:
            fs.pipe_file("memory/a.md", data)
        except OSError as e:
            assert e.errno == errno.ENOSPC
            text = message(e)
            assert "memory/a.md" in text and ".memfs" not in text, text
            assert "nothing was changed" in text.lower()
            return last
        last = data
    raise AssertionError("the disk never filled")


def test_gc_frees_space_on_a_full_tmpfs(tmp_path: Path) -> None:
    with tmpfs(tmp_path / "disk") as disk:
        clock = Ticks()
        fs = MemFS(
            LocalFileStore(disk / "ws"),
            clock=lambda: TODAY,
            credential_guard=False,
            history=_options(clock),
        )
        last = _fill(fs)
        assert fs.raw.cat_file("memory/a.md") == last  # the refused write changed nothing
        report = History(fs).gc(Retention(keep=1), pod="p")
        assert report.records_deleted > 5 and report.blobs_pending >= report.records_deleted
        clock.now += GC_GRACE
        report = History(fs).gc(Retention(keep=1), pod="p")
        assert report.blobs_deleted > 5 and report.blobs_pending == 0
        assert fs.raw.cat_file("memory/a.md") == last
        fs.pipe_file("memory/a.md", memory("a", "there is room again"))
        assert History(fs).log("memory/a.md").versions[-1].status == "current"


class FullDisk:
    """A store whose writes fail with ENOSPC once ``full`` is set (deletes still work)."""

    conditional_writes = True

    def __init__(self, inner: Any) -> None:
        self.inner, self.full = inner, False

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def write(self, path: str, data: bytes, **kw: Any) -> None:
        if self.full:
            raise OSError(errno.ENOSPC, "No space left on device", path)
        self.inner.write(path, data, **kw)


def test_gc_frees_what_retention_released_when_the_list_cannot_be_stored() -> None:
    store = FullDisk(InMemoryFileStore())
    clock = Ticks()
    fs = MemFS(store, clock=lambda: TODAY, history=_options(clock))
    for i in range(4):
        fs.pipe_file("memory/a.md", memory("a", f"v{i}"))
    from memfs.versions import put_blob

    put_blob(store, b"a writer's blob, its record not yet stored")  # waits: maybe in flight
    store.full = True
    report = History(fs).gc(Retention(keep=1))
    assert (report.records_deleted, report.blobs_deleted, report.blobs_pending) == (3, 3, 1)
    assert report.pending_saved is False and not store.inner.exists(GC_PENDING)
    assert len(store.inner.ls(BLOBS_DIR)) == 2
    with pytest.raises(OSError) as info:
        fs.pipe_file("memory/a.md", memory("a", "v4"))
    assert "memory/a.md" in str(info.value) and BLOBS_DIR not in str(info.value)
    assert fs.raw.cat_file("memory/a.md") == memory("a", "v3")


def _options(clock: Callable[[], Any]) -> Any:
    from memfs.versions import HistoryOptions

    # versions in blobs, as large memories are: retention frees an inline version's content
    # at once, so only blobs can fill a disk that gc then frees
    return HistoryOptions(now=clock, inline_limit=0)


# -- leftovers of killed writers -------------------------------------------------------------------


def _killed_writer(root: str, run: int, step_done: Callable[[], None]) -> None:
    fs = MemFS(LocalFileStore(root), clock=lambda: TODAY, credential_guard=False)
    for i in range(1_000_000):
        fs.pipe_file("memory/log.md", memory("log", f"run {run} write {i} " * 2000))
        step_done()


def test_the_next_gc_removes_what_killed_writers_left(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    fs = MemFS(LocalFileStore(root), clock=lambda: TODAY, credential_guard=False)
    fs.pipe_file("memory/log.md", memory("log", "start"))
    step_s = 0.002
    runs = 0
    # kill writers inside a write until some left temp or lock files (the count decides)
    while runs < 40 or not leftovers(root):
        assert runs < 400, "no kill landed inside a history write"
        kill = kill_after_steps(
            functools.partial(_killed_writer, str(root), runs), runs % 3, pause_s=step_s * 0.5
        )
        step_s = kill.step_s or step_s
        runs += 1
    left = leftovers(root)
    # a writer alive now, holding the lock of a blob it is writing: gc leaves its files alone
    blobs = root / HISTORY_DIR / "blobs"
    blobs.mkdir(parents=True, exist_ok=True)
    live_temp = blobs / f"{lock_name('f' * 64)[: -len('.lock')]}-livewriter"
    fd = os.open(blobs, os.O_RDONLY)
    try:
        with path_lock(fd, "f" * 64):
            live_temp.write_bytes(b"in flight")
            report = History(fs).gc()
            assert live_temp.exists() and (blobs / lock_name("f" * 64)).exists()
        live_temp.unlink()
    finally:
        os.close(fd)
    assert report.leftovers_removed == len(left) and leftovers(root) == []
    statuses = [v.status for v in History(fs).log("memory/log.md").versions]
    assert statuses.count("current") == 1  # the versions are intact
    assert fs.store.sweep_leftovers("memory") == 0  # type: ignore[attr-defined]
    assert LocalFileStore(tmp_path / "empty").sweep_leftovers(HISTORY_DIR) == 0


# -- a read-only remount ---------------------------------------------------------------------------


def test_a_write_on_a_read_only_remount_names_the_memory_file(tmp_path: Path) -> None:
    with tmpfs(tmp_path / "disk") as disk:
        fs = MemFS(LocalFileStore(disk / "ws"), clock=lambda: TODAY)
        fs.pipe_file("memory/a.md", memory("a", "before"))
        subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
        try:
            with pytest.raises(OSError) as info:
                fs.pipe_file("memory/a.md", memory("a", "after"))
            text = message(info.value)
            assert info.value.errno == errno.EROFS
            assert "memory/a.md" in text and ".memfs" not in text, text
            assert "nothing was changed" in text and "read-only" in text
            with pytest.raises(OSError) as gone:
                fs.rm_file("memory/a.md")
            assert "memory/a.md" in message(gone.value) and ".memfs" not in message(gone.value)
        finally:
            subprocess.run(["mount", "-o", "remount,rw", str(disk)], check=True)
        assert fs.raw.cat_file("memory/a.md") == memory("a", "before")


def test_an_error_of_another_kind_is_described_as_it_is() -> None:
    from memfs.errors import version_not_stored

    e = version_not_stored(OSError(None, "odd"), "memory/a.md", "write")
    assert e.errno == errno.EIO and "nothing was changed" in str(e)
