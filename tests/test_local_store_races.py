"""The local store beside another process that changes the tree between two of its system
calls: a directory swapped for a link or removed after it was opened or listed, the workspace
directory itself swapped for a link, a directory that stays busy when removed, a lock file that
cannot be made, a reserved path longer than any workspace path. Each other party's step is
injected at the exact call, so each race happens every run."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import pytest
from memfs import LocalFileStore
from memfs.stores import local
from memfs.stores.host import TEMP_PREFIX


def _store(tmp_path: Path) -> tuple[Path, LocalFileStore]:
    root = tmp_path / "ws"
    root.mkdir()
    return root, LocalFileStore(root)


def test_a_workspace_directory_swapped_for_a_link_is_gone(tmp_path: Path) -> None:
    root, store = _store(tmp_path)
    store.write("memory/a.md", b"a")
    elsewhere = tmp_path / "elsewhere"
    root.rename(elsewhere)
    root.symlink_to(elsewhere)  # the open with O_NOFOLLOW answers ELOOP
    with pytest.raises(FileNotFoundError, match="workspace directory no longer exists"):
        store.read("memory/a.md")
    with pytest.raises(FileNotFoundError, match="workspace directory no longer exists"):
        store.write("memory/b.md", b"b")
    assert sorted(os.listdir(elsewhere / "memory")) == ["a.md"]


def _link_removed_at_lstat(
    monkeypatch: pytest.MonkeyPatch, link: Path, *, put_back: bool = False
) -> list[str]:
    """After the open of ``link`` failed on the link, the other party removes it just before
    the store's lstat (and, with ``put_back``, makes it again at once)."""
    real = local.lstat_at
    target = os.readlink(link)
    seen: list[str] = []

    def lstat_at(fd: int, name: str) -> Any:
        if name == link.name:
            seen.append(name)
            link.unlink()
            st = real(fd, name)
            if put_back:
                link.symlink_to(target)
            return st
        return real(fd, name)

    monkeypatch.setattr(local, "lstat_at", lstat_at)
    return seen


def test_a_link_removed_after_the_open_refused_it_is_walked_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, store = _store(tmp_path)
    (tmp_path / "outside").mkdir()
    (root / "memory").symlink_to(tmp_path / "outside")
    seen = _link_removed_at_lstat(monkeypatch, root / "memory")
    store.write("memory/a.md", b"a")  # the next try finds nothing there and makes the directory
    assert seen == ["memory"]
    assert (root / "memory").is_dir() and not (root / "memory").is_symlink()
    assert (root / "memory" / "a.md").read_bytes() == b"a"
    assert os.listdir(tmp_path / "outside") == []


def test_a_directory_that_keeps_changing_is_a_host_error_after_eight_tries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, store = _store(tmp_path)
    (tmp_path / "outside").mkdir()
    (root / "memory").symlink_to(tmp_path / "outside")
    seen = _link_removed_at_lstat(monkeypatch, root / "memory", put_back=True)
    with pytest.raises(BlockingIOError) as got:
        store.write("memory/a.md", b"a")
    assert got.value.errno == errno.EAGAIN
    assert str(got.value.strerror).startswith("Cannot open directory 'memory'")
    assert len(seen) == 8
    assert os.listdir(tmp_path / "outside") == []


def test_a_directory_swapped_for_a_link_then_removed_while_listed_is_not_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, store = _store(tmp_path)
    store.write("memory/sub/a.md", b"a")
    sub, moved = root / "memory" / "sub", tmp_path / "moved"
    real_open, real_lstat = os.open, local.lstat_at
    steps: list[str] = []

    def fake_open(path: Any, flags: int, *args: Any, **kw: Any) -> int:
        if path == "sub" and not steps:  # looked at as a directory; swapped before the open
            steps.append("swapped")
            sub.rename(moved)
            sub.symlink_to(moved)
        return real_open(path, flags, *args, **kw)

    def lstat_at(fd: int, name: str) -> Any:
        if name == "sub" and steps == ["swapped"]:  # and the link removed before the next look
            steps.append("removed")
            sub.unlink()
        return real_lstat(fd, name)

    monkeypatch.setattr(os, "open", fake_open)
    monkeypatch.setattr(local, "lstat_at", lstat_at)
    with pytest.raises(FileNotFoundError) as got:
        store.ls("memory/sub")
    assert got.value.filename == "memory/sub"
    assert steps == ["swapped", "removed"]
    assert os.listdir(moved) == ["a.md"]


def _rmdir_fails(monkeypatch: pytest.MonkeyPatch, at_call: int) -> list[str]:
    """os.rmdir answers EBUSY (a mount point there) at its ``at_call``-th call."""
    real = os.rmdir
    calls: list[str] = []

    def rmdir(path: Any, *args: Any, **kw: Any) -> None:
        calls.append(os.fspath(path))
        if len(calls) == at_call:
            raise OSError(errno.EBUSY, os.strerror(errno.EBUSY), path)
        real(path, *args, **kw)

    monkeypatch.setattr(os, "rmdir", rmdir)
    return calls


def test_an_empty_directory_that_cannot_be_removed_is_a_host_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, store = _store(tmp_path)
    store.mkdir("memory/busy")
    calls = _rmdir_fails(monkeypatch, at_call=1)
    with pytest.raises(OSError) as got:
        store.rmdir("memory/busy")
    assert got.value.errno == errno.EBUSY and got.value.filename == "memory/busy"
    assert calls == ["busy"] and (root / "memory" / "busy").is_dir()


def test_a_directory_that_cannot_be_removed_after_its_leftovers_were_swept_is_a_host_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, store = _store(tmp_path)
    store.mkdir("memory/busy")
    leftover = root / "memory" / "busy" / f"{TEMP_PREFIX}abc-1"
    leftover.write_bytes(b"half")  # what a killed writer left: the first rmdir meets it
    calls = _rmdir_fails(monkeypatch, at_call=2)
    with pytest.raises(OSError) as got:
        store.rmdir("memory/busy")
    assert got.value.errno == errno.EBUSY and got.value.filename == "memory/busy"
    assert calls == ["busy", "busy"]
    assert (root / "memory" / "busy").is_dir() and not leftover.exists()


def test_a_reserved_path_longer_than_any_workspace_path_is_not_listed(tmp_path: Path) -> None:
    root, store = _store(tmp_path)
    store.write(".memfs/history/short.json", b"{}")
    deep = root / ".memfs" / "history"
    for _ in range(6):  # 6 * 201 bytes: past the 1024 a workspace path may have
        deep = deep / ("d" * 200)
    deep.mkdir(parents=True)
    (deep / "long.json").write_bytes(b"{}")
    assert store.ls(".memfs/history") == [".memfs/history/short.json"]


def test_a_directory_removed_after_the_sweep_listed_it_is_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, store = _store(tmp_path)
    (root / "memory" / "gone").mkdir(parents=True)
    (root / "memory" / "kept").mkdir()
    for d in ("gone", "kept"):
        (root / "memory" / d / f"{TEMP_PREFIX}abc-1").write_bytes(b"half")
    real = os.open
    removed: list[str] = []

    def fake_open(path: Any, flags: int, *args: Any, **kw: Any) -> int:
        if path == "gone" and kw.get("dir_fd") is not None and not removed:
            removed.append(path)  # another process removes it between the listing and the open
            os.unlink(f"gone/{TEMP_PREFIX}abc-1", dir_fd=kw["dir_fd"])
            os.rmdir("gone", dir_fd=kw["dir_fd"])
        return real(path, flags, *args, **kw)

    monkeypatch.setattr(os, "open", fake_open)
    assert store.sweep_leftovers("") == 1
    assert removed == ["gone"]
    assert not (root / "memory" / "gone").exists()
    assert os.listdir(root / "memory" / "kept") == []


def test_a_leftover_whose_lock_cannot_be_made_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, store = _store(tmp_path)
    (root / "memory").mkdir()
    leftover = root / "memory" / f"{TEMP_PREFIX}abc-1"
    leftover.write_bytes(b"half")
    real = os.open
    refused: list[str] = []

    def fake_open(path: Any, flags: int, *args: Any, **kw: Any) -> int:
        if path == f"{TEMP_PREFIX}abc.lock":
            refused.append(path)  # a full disk: the lock file cannot be made
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), path)
        return real(path, flags, *args, **kw)

    monkeypatch.setattr(os, "open", fake_open)
    assert store.sweep_leftovers("") == 0
    assert refused == [f"{TEMP_PREFIX}abc.lock"]
    assert leftover.read_bytes() == b"half"  # not provably abandoned: kept
