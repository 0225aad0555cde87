"""The host-file primitives of the local store (memfs.stores.host) beside another process: a
file swapped for a FIFO or grown between two calls, a lock file planted again and again, the
descriptors running out, a lock the filesystem refuses. Each race is forced by doing the other
process's step just before the call it races."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
from pathlib import Path
from typing import Any

import pytest
from memfs import LocalFileStore
from memfs.stores import host

from tests.test_local_store_edges import before, no_descriptor_left


def open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path / "ws"


def test_a_file_swapped_for_a_fifo_before_its_open_is_refused_and_closed(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = LocalFileStore(root)
    store.write("a.txt", b"a")

    def swap() -> None:
        os.unlink(root / "a.txt")
        os.mkfifo(root / "a.txt")

    before(monkeypatch, "open", "a.txt", swap)
    held = open_descriptors()
    with pytest.raises(OSError) as caught:
        store.read("a.txt")
    assert str(caught.value).startswith(
        "[Errno 13] Refused path 'a.txt': it is a FIFO (named pipe), not a regular file;"
    )
    assert open_descriptors() == held


def test_a_file_deleted_between_its_lstat_and_its_open_reads_as_absent(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = LocalFileStore(root)
    store.write("a.txt", b"a")
    seen = before(monkeypatch, "open", "a.txt", lambda: os.unlink(root / "a.txt"))
    held = open_descriptors()
    with pytest.raises(FileNotFoundError):
        store.read("a.txt")
    assert seen == [1] and open_descriptors() == held
    assert not store.exists("a.txt")


def test_a_file_that_grows_between_its_fstat_and_its_read_is_read_to_its_end(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = LocalFileStore(root)
    store.write("a.txt", b"first")
    real_read = os.read
    grown: list[bool] = []

    def read(fd: int, n: int) -> bytes:
        if not grown:
            grown.append(True)
            with open(root / "a.txt", "ab") as f:  # another writer appends in place
                f.write(b" and more" * 100_000)
        return real_read(fd, n)

    monkeypatch.setattr(os, "read", read)
    assert store.read("a.txt") == b"first" + b" and more" * 100_000


def test_running_out_of_descriptors_just_before_a_file_is_opened_is_raised(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = LocalFileStore(root)
    store.write("notes/a.txt", b"a")
    exhausted = contextlib.ExitStack()
    before(monkeypatch, "open", "a.txt", lambda: exhausted.enter_context(no_descriptor_left()))
    with exhausted, pytest.raises(OSError) as caught:
        store.read("notes/a.txt")
    assert caught.value.errno == errno.EMFILE
    assert str(root) not in str(caught.value)


def test_a_lock_file_planted_as_a_fifo_again_and_again_is_refused(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = LocalFileStore(root)
    store.write("a.txt", b"a")
    lock = host.lock_name("a.txt")
    os.mkfifo(root / lock)
    real_unlink = os.unlink
    planted = [0]

    def unlink(path: Any, *args: Any, **kwargs: Any) -> None:
        real_unlink(path, *args, **kwargs)
        if path == lock:  # another process plants it again as soon as it is removed
            planted[0] += 1
            os.mkfifo(root / lock)

    monkeypatch.setattr(os, "unlink", unlink)
    with pytest.raises(OSError) as caught:
        store.write("a.txt", b"b")
    assert planted[0] == 3
    assert lock in str(caught.value)
    assert store.read("a.txt") == b"a"


def test_a_lock_the_filesystem_refuses_is_raised_and_its_descriptor_closed(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = LocalFileStore(root)
    store.write("a.txt", b"a")

    def no_locks(fd: int, operation: int) -> None:
        raise OSError(errno.ENOLCK, "No locks available")  # what some network filesystems say

    monkeypatch.setattr(fcntl, "flock", no_locks)
    held = open_descriptors()
    with pytest.raises(OSError) as caught:
        store.write("a.txt", b"b")
    assert caught.value.errno == errno.ENOLCK
    assert open_descriptors() == held
    monkeypatch.undo()
    assert store.read("a.txt") == b"a"
