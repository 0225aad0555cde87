"""Grouped writes and deletes on a local disk (LocalFileStore.write_many / delete_many) and how
history's callers take their failures: bad input, a key taken meanwhile, a rename or a delete
that fails part way."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from memfs import LocalFileStore, MemFS, versions
from memfs.conflicts import content_sha256
from memfs.errors import PathConflictError
from memfs.history import History

from tests.conftest import TODAY

MEMORY = b"---\nname: a\ndescription: d\nmetadata:\n  type: user\n---\nbody\n"


def test_write_many_refuses_a_path_twice_and_the_root(tmp_path: Path) -> None:
    store = LocalFileStore(tmp_path)
    with pytest.raises(ValueError, match="a path twice in one group"):
        store.write_many([("memory/a.md", b"1"), ("memory/./a.md", b"2")])
    with pytest.raises(IsADirectoryError):
        store.write_many([("", b"1")])
    assert store.ls("") == []  # nothing was written


def test_delete_many_answers_each_delete_in_place(tmp_path: Path) -> None:
    store = LocalFileStore(tmp_path)
    store.write("memory/a.md", b"a")
    results = store.delete_many([("", None), ("gone/x.md", None), ("memory/a.md", None)])
    assert isinstance(results[0], IsADirectoryError)
    assert isinstance(results[1], FileNotFoundError)  # its directory does not exist
    assert results[2] is None
    assert store.ls("") == []


class _FailingStore(LocalFileStore):
    """A local store whose grouped calls fail as told (the store's own code otherwise)."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.delete_error: OSError | None = None
        self.write_errors: list[BaseException] = []

    def delete_many(self, deletes: Any) -> list[OSError | None]:
        deletes = list(deletes)
        if self.delete_error is not None:
            return [self.delete_error for _ in deletes]
        return super().delete_many(deletes)

    def write_many(self, writes: Any) -> None:
        if self.write_errors:
            raise self.write_errors.pop(0)
        super().write_many(writes)


def _records(fs: MemFS) -> list[str]:
    return versions.record_keys(fs.store)


def test_a_delete_that_fails_otherwise_than_gone_is_raised(tmp_path: Path) -> None:
    store = _FailingStore(tmp_path)
    fs = MemFS(store, clock=lambda: TODAY)
    fs.pipe_file("memory/a.md", MEMORY)
    keys = _records(fs)
    store.delete_error = PermissionError(13, "denied")
    with pytest.raises(PermissionError):
        versions.delete_records(store, keys)
    with pytest.raises(PermissionError):
        versions.pack_records(store, "memory/a.md", keys)
    store.delete_error = None
    assert _records(fs) == keys  # the records are all there: loose, or in the pack


def test_gc_deleting_blobs_raises_a_failure_and_skips_what_another_took(tmp_path: Path) -> None:
    store = _FailingStore(tmp_path)
    fs = MemFS(store, clock=lambda: TODAY)
    sha = content_sha256(b"big content")
    store.write(versions.blob_key(sha), b"a blob nothing refers to")
    history = History(fs)
    store.delete_error = PermissionError(13, "denied")
    with pytest.raises(PermissionError):
        history._delete_blobs([sha])
    store.delete_error = FileNotFoundError(2, "gone")
    assert history._delete_blobs([sha]) == (0, 0)  # another gc took it: nothing to do


def test_a_move_retries_a_record_key_taken_meanwhile_and_takes_back_a_failed_group(
    tmp_path: Path,
) -> None:
    store = _FailingStore(tmp_path)
    fs = MemFS(store, clock=lambda: TODAY)
    fs.pipe_file("memory/a.md", MEMORY)
    before = len(_records(fs))
    taken = versions.record_keys(store)[0]
    store.write_errors = [PathConflictError(taken, None, None)]  # a key no record of the move has
    with pytest.raises(PathConflictError):
        fs.mv("memory/a.md", "memory/b.md")
    assert fs.exists("memory/a.md") and not fs.exists("memory/b.md")

    # a key of the group taken: a fresh id for it, and the move goes through
    original = store.write_many
    calls: list[int] = []

    def first_taken(writes: Any) -> None:
        calls.append(len(writes))
        if len(calls) == 1:
            raise PathConflictError(writes[0][0], None, None)
        original(writes)

    store.write_many = first_taken  # type: ignore[method-assign]
    fs.mv("memory/a.md", "memory/b.md")
    assert calls == [2, 2] and fs.exists("memory/b.md")
    assert len(_records(fs)) == before + 2
    store.write_many = original  # type: ignore[method-assign]
    # a rename failing part way: the records it stored are taken back, the move not made
    store.write_errors = [OSError(5, "I/O error")]
    with pytest.raises(OSError, match="I/O error"):
        fs.mv("memory/b.md", "memory/c.md")
    assert fs.exists("memory/b.md") and not fs.exists("memory/c.md")
    assert len(_records(fs)) == before + 2
