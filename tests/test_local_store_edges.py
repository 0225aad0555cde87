"""The local-disk store (memfs.stores.local) at its edges: a root that is not a directory or
was replaced by a link, descriptors exhausted, paths too long to name, entries memfs cannot
use, and another process acting on the disk at the moment between two system calls (each
race is forced by doing the other process's step just before the call it races)."""

from __future__ import annotations

import contextlib
import errno
import os
import resource
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from memfs import LocalFileStore


def before(
    monkeypatch: pytest.MonkeyPatch, call: str, name: str, act: Callable[[], object], nth: int = 1
) -> list[int]:
    """Run ``act`` (the other process's step) just before the ``nth`` ``os.<call>`` whose
    first argument is ``name``; the count of such calls so far is returned, to check."""
    real = getattr(os, call)
    seen = [0]

    def racing(*args: Any, **kwargs: Any) -> Any:
        if args and args[0] == name:
            seen[0] += 1
            if seen[0] == nth:
                act()
        return real(*args, **kwargs)

    monkeypatch.setattr(os, call, racing)
    return seen


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path / "ws"


def test_a_root_that_is_a_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(NotADirectoryError) as caught:
        LocalFileStore(tmp_path / "file")
    assert str(caught.value).startswith(f"[Errno 20] {str(tmp_path / 'file')!r} is not a directory")


def test_a_root_replaced_by_a_link_is_a_workspace_gone(root: Path, tmp_path: Path) -> None:
    store = LocalFileStore(root)
    store.write("a.txt", b"a")
    (tmp_path / "elsewhere").mkdir()
    root.rename(tmp_path / "moved")
    root.symlink_to(tmp_path / "elsewhere")
    with pytest.raises(FileNotFoundError) as caught:
        store.read("a.txt")
    assert str(caught.value).startswith("[Errno 2] The workspace directory no longer exists")
    assert list((tmp_path / "elsewhere").iterdir()) == []


@contextlib.contextmanager
def no_descriptor_left() -> Iterator[None]:
    """Every descriptor number below the process's limit in use (the limit lowered to just
    above those open now, the free numbers below it then taken)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    highest = max(int(fd) for fd in os.listdir("/proc/self/fd"))
    held: list[int] = []
    resource.setrlimit(resource.RLIMIT_NOFILE, (highest + 1, hard))
    try:
        with contextlib.suppress(OSError):
            while True:
                held.append(os.open(os.devnull, os.O_RDONLY))
        yield
    finally:
        for fd in held:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_no_descriptor_left_to_open_the_root_is_one_line_naming_no_host_path(root: Path) -> None:
    store = LocalFileStore(root)
    store.write("a.txt", b"a")
    with no_descriptor_left(), pytest.raises(OSError) as caught:
        store.read("a.txt")
    assert caught.value.errno == errno.EMFILE
    assert str(root) not in str(caught.value)
    assert store.read("a.txt") == b"a"


def test_a_file_is_not_a_directory_to_remove(root: Path) -> None:
    store = LocalFileStore(root)
    store.write("notes/a.txt", b"a")
    with pytest.raises(NotADirectoryError):
        store.rmdir("notes/a.txt")
    assert store.read("notes/a.txt") == b"a"


def test_a_file_whose_path_is_too_long_to_name_is_not_listed(root: Path) -> None:
    store = LocalFileStore(root)
    store.write("short.txt", b"s")
    deep = root
    for _ in range(5):
        deep = deep / ("d" * 240)
    deep.mkdir(parents=True)
    (deep / "far.txt").write_text("far")
    assert store.ls("") == ["short.txt"]


def test_a_directory_holding_a_name_memfs_cannot_use_is_not_removed(root: Path) -> None:
    store = LocalFileStore(root)
    store.mkdir("notes")
    (root / "notes" / "bad\x01name").write_text("x")
    with pytest.raises(OSError) as caught:
        store.rmdir("notes")
    assert caught.value.errno == errno.ENOTEMPTY
    assert "an entry whose name memfs cannot use ('bad\\x01name')" in str(caught.value)
    assert (root / "notes" / "bad\x01name").exists()


# -- another process between two calls -----------------------------------------------------------


def test_a_parent_made_concurrently_while_the_root_is_created_is_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parent = tmp_path / "items"
    real_mkdir = os.mkdir
    seen = before(monkeypatch, "mkdir", str(parent), lambda: real_mkdir(parent))
    store = LocalFileStore(parent / "42")
    store.write("a.txt", b"a")
    assert seen == [1] and (parent / "42" / "a.txt").read_bytes() == b"a"


def test_a_directory_made_concurrently_while_a_write_makes_it_is_used(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = LocalFileStore(root)
    real_mkdir = os.mkdir
    seen = before(monkeypatch, "mkdir", "notes", lambda: real_mkdir(root / "notes"))
    store.write("notes/a.txt", b"a")
    assert seen == [1] and store.read("notes/a.txt") == b"a"


def test_a_directory_removed_just_before_it_is_opened_is_not_found(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = LocalFileStore(root)
    store.mkdir("notes/sub")
    before(monkeypatch, "open", "sub", lambda: os.rmdir(root / "notes" / "sub"))
    with pytest.raises(FileNotFoundError) as caught:
        store.listdir("notes/sub")
    assert caught.value.filename == "notes/sub"


def test_a_directory_replaced_by_a_file_just_before_it_is_opened_is_not_a_directory(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = LocalFileStore(root)
    store.mkdir("notes/sub")

    def replace() -> None:
        os.rmdir(root / "notes" / "sub")
        (root / "notes" / "sub").write_text("now a file")

    before(monkeypatch, "open", "sub", replace)
    with pytest.raises(NotADirectoryError) as caught:
        store.listdir("notes/sub")
    assert caught.value.filename == "notes/sub"


def test_a_file_deleted_by_another_process_during_a_delete_is_not_found(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = LocalFileStore(root)
    store.write("notes/a.txt", b"a")
    before(monkeypatch, "unlink", "a.txt", lambda: os.unlink(root / "notes" / "a.txt"))
    with pytest.raises(FileNotFoundError) as caught:
        store.delete("notes/a.txt")
    assert caught.value.filename == "notes/a.txt"


def test_a_file_written_while_leftovers_are_swept_keeps_the_directory(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = LocalFileStore(root)
    store.mkdir("notes")
    leftover = root / "notes" / ".memfs-tmp-killed-writer"
    leftover.write_text("partial")
    # the second rmdir, after the sweep, races a writer that stores a file there
    before(monkeypatch, "rmdir", "notes", lambda: (root / "notes" / "new.txt").write_text("n"), 2)
    with pytest.raises(OSError) as caught:
        store.rmdir("notes")
    assert caught.value.errno == errno.ENOTEMPTY
    assert store.read("notes/new.txt") == b"n" and not leftover.exists()


def test_a_directory_removed_while_the_workspace_is_listed_is_left_out(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = LocalFileStore(root)
    store.write("a/one.txt", b"1")
    store.write("b/two.txt", b"2")
    before(monkeypatch, "open", "a", lambda: shutil.rmtree(root / "a"))
    assert store.ls("") == ["b/two.txt"]


def test_an_entry_gone_while_a_directory_is_checked_for_removal_is_named_as_an_entry(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = LocalFileStore(root)
    store.mkdir("notes")
    os.mkfifo(root / "notes" / "pipe")
    real_scandir = os.scandir

    @contextlib.contextmanager
    def listed_then_removed(fd: int) -> Iterator[list[os.DirEntry[str]]]:
        with real_scandir(fd) as it:
            entries = list(it)
        os.unlink(root / "notes" / "pipe")  # removed after the listing, before its stat
        yield entries

    monkeypatch.setattr(os, "scandir", listed_then_removed)
    with pytest.raises(OSError) as caught:
        store.rmdir("notes")
    assert caught.value.errno == errno.ENOTEMPTY
    assert "'notes/pipe' (an entry)" in str(caught.value)


def test_running_out_of_descriptors_while_walking_to_a_directory_or_listing_is_raised(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = LocalFileStore(root)
    store.write("notes/sub/a.txt", b"a")
    for call, name in ((store.listdir, "notes/sub"), (store.ls, "")):
        exhausted = contextlib.ExitStack()

        def exhaust(stack: contextlib.ExitStack = exhausted) -> None:
            stack.enter_context(no_descriptor_left())

        before(monkeypatch, "open", "sub", exhaust)
        with exhausted, pytest.raises(OSError) as caught:
            call(name)
        assert caught.value.errno == errno.EMFILE
        assert str(root) not in str(caught.value)
        monkeypatch.undo()
    assert store.ls("") == ["notes/sub/a.txt"]
