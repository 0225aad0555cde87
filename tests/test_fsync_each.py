"""host.fsync_each: a group's fsyncs at once, each one's error in its place, and after a fork."""

from __future__ import annotations

import errno
import multiprocessing
import os
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from memfs import LocalFileStore
from memfs.errors import message
from memfs.stores import host, local


def _files(tmp_path: Path, n: int) -> list[int]:
    fds = []
    for i in range(n):
        fds.append(os.open(tmp_path / f"f{i}", os.O_CREAT | os.O_WRONLY, 0o600))
        os.write(fds[-1], b"x" * i)
    return fds


def test_each_fsync_s_error_is_in_its_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fds = _files(tmp_path, 4)
    failing = {fds[0], fds[2]}
    synced: list[int] = []

    class Failing(ModuleType):
        def __getattr__(self, name: str) -> Any:
            return getattr(os, name)

        def fsync(self, fd: int) -> None:
            if fd in failing:
                raise OSError(errno.EIO, "Input/output error")
            synced.append(fd)
            os.fsync(fd)

    monkeypatch.setattr(host, "os", Failing("os"))
    try:
        got = host.fsync_each(fds)
    finally:
        for fd in fds:
            os.close(fd)
    assert [e is None for e in got] == [False, True, False, True]
    assert all(isinstance(e, OSError) and e.errno == errno.EIO for e in (got[0], got[2]))
    assert sorted(synced) == sorted([fds[1], fds[3]])


def test_a_failed_fsync_in_a_group_stores_nothing_and_names_its_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = LocalFileStore(tmp_path / "ws")

    class Failing(ModuleType):
        def __getattr__(self, name: str) -> Any:
            return getattr(os, name)

        def fsync(self, fd: int) -> None:
            target = os.readlink(f"/proc/self/fd/{fd}")
            if "/ws/b/" in target and os.path.isfile(target):  # b/b2's temp file
                raise OSError(errno.EIO, "Input/output error")
            os.fsync(fd)

    monkeypatch.setattr(local, "os", Failing("os"))
    monkeypatch.setattr(host, "os", Failing("os"))
    with pytest.raises(OSError) as info:
        store.write_many([("a/a1", b"one"), ("b/b2", b"two"), ("c/c3", b"three")])
    monkeypatch.undo()
    assert "b/b2" in message(info.value) and str(tmp_path) not in message(info.value)
    assert store.ls("") == []
    assert [p for p in (tmp_path / "ws").rglob("*") if p.name.startswith(host.TEMP_PREFIX)] == []


def _child(path: str) -> None:
    fds = [os.open(os.path.join(path, f"c{i}"), os.O_CREAT | os.O_WRONLY, 0o600) for i in range(3)]
    assert host.fsync_each(fds) == [None, None, None]
    os._exit(0)


def test_a_forked_child_syncs_on_threads_of_its_own(tmp_path: Path) -> None:
    fds = _files(tmp_path, 3)
    assert host.fsync_each(fds) == [None, None, None]  # the parent's threads exist now
    for fd in fds:
        os.close(fd)
    child = multiprocessing.get_context("fork").Process(target=_child, args=(str(tmp_path),))
    child.start()
    child.join(60)  # the parent's dead threads would leave it waiting for ever
    if child.is_alive():
        child.kill()
    assert child.exitcode == 0
