"""A local read checks the entry before it opens it and the descriptor after it reads it.

Each test changes the entry at one exact point of the read (between the ``lstat`` and the
``open``, or between the ``read`` and the ``fstat``), by wrapping the call that comes next:
no sleeps, the swap happens on the call it names, every run.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from memfs import MemFS
from memfs.errors import UnsafePathError
from memfs.stores import LocalFileStore, host


@pytest.fixture
def store(tmp_path: Path) -> Iterator[LocalFileStore]:
    root = tmp_path / "ws"
    s = LocalFileStore(root)
    s.write("memory/a.md", b"old\n")
    yield s


def _before_open(monkeypatch: pytest.MonkeyPatch, name: str, swap: Callable[[], None]) -> None:
    """Run ``swap`` once, just before the read's ``open`` of ``name`` (after its ``lstat``)."""
    real = os.open
    done = threading.Event()

    def opening(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if path == name and kwargs.get("dir_fd") is not None and not done.is_set():
            done.set()
            swap()
        return real(path, flags, *args, **kwargs)

    monkeypatch.setattr(host.os, "open", opening)


def _after_read(monkeypatch: pytest.MonkeyPatch, change: Callable[[], None]) -> None:
    """Run ``change`` once, just after the read's ``read`` (before its ``fstat``)."""
    real = os.read
    done = threading.Event()

    def reading(fd: int, n: int) -> bytes:
        data = real(fd, n)
        if not done.is_set():
            done.set()
            change()
        return data

    monkeypatch.setattr(host.os, "read", reading)


def test_a_file_replaced_before_the_open_is_read_with_no_version(
    store: LocalFileStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = Path(store.root) / "memory" / "a.md"
    new = Path(store.root) / "memory" / "b.tmp"
    new.write_bytes(b"new contents\n")
    _before_open(monkeypatch, "a.md", lambda: os.replace(new, target))
    data, version = store.read_versioned("memory/a.md")
    assert data == b"new contents\n"
    assert version is None  # the lstat saw the old file: the bytes are not its version
    monkeypatch.undo()
    assert store.read_versioned("memory/a.md")[1] is not None


def test_a_file_written_in_place_during_the_read_has_no_version(
    store: LocalFileStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = Path(store.root) / "memory" / "a.md"

    def append() -> None:
        with open(target, "ab") as f:
            f.write(b"more\n")

    _after_read(monkeypatch, append)
    data, version = store.read_versioned("memory/a.md")
    assert data == b"old\n"
    assert version is None


def test_an_unchanged_file_keeps_its_listed_version(store: LocalFileStore) -> None:
    data, version = store.read_versioned("memory/a.md")
    assert data == b"old\n"
    assert version == store.ls_versioned("memory")["memory/a.md"]


def test_a_fifo_swapped_in_before_the_open_is_refused_without_blocking(
    store: LocalFileStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = Path(store.root) / "memory" / "a.md"
    writer: list[int] = []

    def to_fifo() -> None:
        os.unlink(target)
        os.mkfifo(target)
        # a writer with bytes waiting: a read that did not check would return them
        writer.append(os.open(target, os.O_RDWR | os.O_NONBLOCK))
        os.write(writer[0], b"from the pipe\n")

    _before_open(monkeypatch, "a.md", to_fifo)
    try:
        with pytest.raises(UnsafePathError, match=r"it is a FIFO \(named pipe\)"):
            store.read_versioned("memory/a.md")
    finally:
        for fd in writer:
            os.close(fd)


def test_an_empty_fifo_swapped_in_is_refused_too(
    store: LocalFileStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = Path(store.root) / "memory" / "a.md"

    def to_fifo() -> None:
        os.unlink(target)
        os.mkfifo(target)

    _before_open(monkeypatch, "a.md", to_fifo)
    with pytest.raises(UnsafePathError, match=r"it is a FIFO \(named pipe\)"):
        store.read("memory/a.md")


def test_a_hard_link_made_before_the_open_is_refused(
    store: LocalFileStore, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    target = Path(store.root) / "memory" / "a.md"
    _before_open(monkeypatch, "a.md", lambda: os.link(target, tmp_path / "outside.md"))
    fs = MemFS(store)
    with pytest.raises(UnsafePathError, match="has 2 hard links"):
        fs.raw.cat_file("memory/a.md")


def test_a_file_grown_after_the_lstat_is_read_whole(
    store: LocalFileStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = Path(store.root) / "memory" / "a.md"
    big = b"x" * (3 << 20) + b"\n"

    def grow() -> None:
        with open(target, "ab") as f:
            f.write(big)

    _before_open(monkeypatch, "a.md", grow)
    data, version = store.read_versioned("memory/a.md")
    assert data == b"old\n" + big
    assert version is None


def test_a_file_removed_before_the_open_is_not_found(
    store: LocalFileStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = Path(store.root) / "memory" / "a.md"
    _before_open(monkeypatch, "a.md", lambda: os.unlink(target))
    with pytest.raises(FileNotFoundError, match=r"memory/a\.md"):
        store.read_versioned("memory/a.md")
