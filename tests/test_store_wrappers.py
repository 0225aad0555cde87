"""The store wrappers (counting, process-locked) and the in-memory store: the calls other tests
leave out, each checked for what it returns, counts or refuses."""

from __future__ import annotations

import copy
import pickle

import pytest
from memfs import InMemoryFileStore, LocalFileStore
from memfs.conflicts import content_sha256
from memfs.counting import CountingFileStore
from memfs.errors import PreconditionFailedError
from memfs.stores.conditional import ProcessLockedStore


class Plain:
    """A platform store with the eleven methods only: no preconditions, no versioned reads."""

    def __init__(self) -> None:
        self.inner = InMemoryFileStore()

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        if name in ("conditional_writes", "versioned_reads"):
            raise AttributeError(name)
        return getattr(self.__dict__["inner"], name)

    def write(self, path: str, data: bytes) -> None:
        self.inner.write(path, data)

    def delete(self, path: str) -> None:
        self.inner.delete(path)


@pytest.mark.parametrize("wrap", [CountingFileStore, ProcessLockedStore])
def test_a_wrapper_copies_without_recursing_into_its_own_getattr(wrap, tmp_path) -> None:
    store = wrap(LocalFileStore(tmp_path / "ws"))
    store.write("a.md", b"a\n")
    clones = [copy.copy(store)]
    if wrap is ProcessLockedStore:  # the counting store holds a lock: it copies, never pickles
        clones.append(pickle.loads(pickle.dumps(store)))
    for clone in clones:
        assert clone.read("a.md") == b"a\n"
        assert clone.root == store.root  # the backend's own attributes reach through
    bare = wrap.__new__(wrap)  # what copy and pickle start from: no inner yet
    with pytest.raises(AttributeError, match="inner"):
        bare.inner  # noqa: B018


def test_counting_counts_a_versioned_read_that_fails_as_one_read(tmp_path) -> None:
    store = CountingFileStore(LocalFileStore(tmp_path / "ws"))
    store.write("a.md", b"abc")
    data, version = store.read_versioned("a.md")
    assert data == b"abc" and version is not None
    with pytest.raises(FileNotFoundError):
        store.read_versioned("none.md")
    snap = store.snapshot()
    assert store.counts["read"] == 2 and snap.bytes_read == 3


def test_counting_passes_a_conditional_delete_on_and_counts_it() -> None:
    store = CountingFileStore(InMemoryFileStore())
    store.write("a.md", b"abc")
    with pytest.raises(PreconditionFailedError):
        store.delete("a.md", expected_sha256=content_sha256(b"other"))
    assert store.exists("a.md")
    store.delete("a.md", expected_sha256=content_sha256(b"abc"))
    assert not store.exists("a.md")
    assert store.counts["delete"] == 2


def test_process_locked_store_passes_a_versioned_read_through(tmp_path) -> None:
    inner = LocalFileStore(tmp_path / "ws")
    inner.write("a.md", b"abc")
    store = ProcessLockedStore(inner)
    assert store.read_versioned("a.md") == inner.read_versioned("a.md")
    assert ProcessLockedStore(Plain()).versioned_reads is False  # type: ignore[arg-type]


def test_the_memory_store_refuses_a_file_under_a_file_and_rmdir_of_a_file() -> None:
    store = InMemoryFileStore()
    store.write("memory/a.md", b"a")
    with pytest.raises(NotADirectoryError, match=r"memory/a\.md"):
        store.write("memory/a.md/b.md", b"b")
    with pytest.raises(NotADirectoryError, match=r"memory/a\.md"):
        store.rmdir("memory/a.md")
    assert store.read("memory/a.md") == b"a" and store.ls("memory") == ["memory/a.md"]
