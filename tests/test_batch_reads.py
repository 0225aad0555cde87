"""Batch reads: ``LocalFileStore.read_many_versioned`` and ``MemFS.cat_many`` give, path by
path, exactly what one read at a time gives, errors included (as values)."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest
from memfs import PLATFORM, InMemoryFileStore, LocalFileStore, MemFS
from memfs.search import search_memory
from memfs.stats import collect_stats
from memfs.stores import supports_batch_reads
from memfs.views import RawReader

from tests.conftest import TODAY

MEMORY = b"---\nname: a\nmetadata:\n  recorded: 2026-01-01\n---\nbody\n"

PATHS = [
    "memory/a.md",
    "memory/b.md",
    "memory/missing.md",
    "memory/link.md",  # a symlink: refused
    "memory/sub",  # a directory
    "memory/sub/c.md",
    "MEMORY.md",
    "memory/a.md",  # again, after another directory
    "gone/x.md",  # a directory that is not there
    "../outside.md",  # unsafe
    "",  # the root
    "memory/fifo.md",  # not a regular file
    "memory/hard.md",  # two links
    "memory/b.md",
]


def _workspace(tmp_path: Path) -> LocalFileStore:
    root = tmp_path / "ws"
    (root / "memory" / "sub").mkdir(parents=True)
    (root / "memory" / "a.md").write_bytes(MEMORY)
    (root / "memory" / "b.md").write_bytes(b"plain\n")
    (root / "memory" / "sub" / "c.md").write_bytes(MEMORY.replace(b"body", b"deeper"))
    (root / "MEMORY.md").write_bytes(b"- [a](memory/a.md)\n")
    (tmp_path / "outside.md").write_bytes(b"secret\n")
    (root / "memory" / "link.md").symlink_to(tmp_path / "outside.md")
    os.mkfifo(root / "memory" / "fifo.md")
    (root / "memory" / "hard.md").write_bytes(b"x\n")
    os.link(root / "memory" / "hard.md", tmp_path / "second-name.md")
    return LocalFileStore(root)


def _one_at_a_time(read, path):  # type: ignore[no-untyped-def]
    try:
        return read(path)
    except OSError as e:
        return e


def _same(got: object, want: object) -> None:
    if isinstance(want, OSError):
        assert type(got) is type(want) and str(got) == str(want) and got.errno == want.errno
    else:
        assert got == want


def test_the_local_store_reads_many_as_it_reads_one(tmp_path: Path) -> None:
    store = _workspace(tmp_path)
    assert supports_batch_reads(store)
    got = list(store.read_many_versioned(PATHS))
    assert len(got) == len(PATHS)
    # read() is its own code path (no version): the batch gives its bytes and its refusals
    for path, one in zip(PATHS, got, strict=True):
        alone = _one_at_a_time(store.read, path)
        _same(one if isinstance(one, OSError) else one[0], alone)
    assert isinstance(got[0], tuple) and got[0][0] == MEMORY
    st = os.lstat(tmp_path / "ws" / "memory" / "a.md")
    assert got[0][1] == (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def test_a_batch_left_early_closes_its_directory(tmp_path: Path) -> None:
    store = _workspace(tmp_path)
    before = len(os.listdir("/proc/self/fd"))
    reads = store.read_many_versioned(["memory/a.md", "memory/b.md"])
    assert next(reads)[0] == MEMORY  # type: ignore[index]
    reads.close()
    assert len(os.listdir("/proc/self/fd")) == before


@pytest.mark.parametrize("decorate", [True, False])
def test_cat_many_is_cat_file_path_by_path(tmp_path: Path, decorate: bool) -> None:
    fs = MemFS(_workspace(tmp_path), clock=lambda: TODAY)
    view = fs if decorate else fs.raw
    got = list(view.cat_many(PATHS))
    assert [p for p, _ in got] == PATHS
    for path, data in got:
        _same(data, _one_at_a_time(view.cat_file, path))
    assert dict(got)["memory/a.md"].startswith(b"<system-reminder>") == decorate  # type: ignore[union-attr]


def test_cat_many_over_a_store_without_batch_reads(memfs: MemFS) -> None:
    memfs.pipe_file("memory/a.md", MEMORY)
    memfs.pipe_file("MEMORY.md", b"- [a](memory/a.md)\n")
    paths = ["memory/a.md", "memory/none.md", "MEMORY.md", "../x", "memory"]
    for path, data in memfs.cat_many(paths):
        _same(data, _one_at_a_time(memfs.cat_file, path))


class _FailingStore(InMemoryFileStore):
    """An in-memory store whose disk fails under one file, once it is ``failing``."""

    failing = False

    def read(self, path: str) -> bytes:
        if self.failing and path.endswith("bad.md"):
            raise OSError(errno.EIO, "Input/output error", path)
        return super().read(path)


def test_a_read_that_fails_fails_stats_and_search_as_the_read_does() -> None:
    store = _FailingStore()
    fs = MemFS(store, clock=lambda: TODAY)
    fs.pipe_file("memory/a.md", MEMORY)
    fs.pipe_file("memory/bad.md", MEMORY)
    store.failing = True
    for whole_store_pass in (lambda: collect_stats(fs), lambda: search_memory(fs, "body")):
        with pytest.raises(OSError, match="Input/output error") as e:
            whole_store_pass()
        assert e.value.errno == errno.EIO


@pytest.mark.parametrize("store_kind", ["local", "in-memory"])
def test_a_raw_reader_reads_what_a_read_only_raw_mount_reads(
    tmp_path: Path, store_kind: str
) -> None:
    """`memfs stats` and `memfs grep` read through a RawReader (no MemFS, no fsspec): path by
    path it gives what the mount's raw view gives, refusals included, and so do the passes."""
    if store_kind == "local":
        store: object = _workspace(tmp_path)
        paths = PATHS
    else:
        store = InMemoryFileStore()
        MemFS(store, history=False).pipe_file("memory/a.md", MEMORY)  # type: ignore[arg-type]
        MemFS(store, history=False).pipe_file("MEMORY.md", b"- [a](memory/a.md)\n")  # type: ignore[arg-type]
        paths = ["memory/a.md", "memory/none.md", "MEMORY.md", "../x", "memory", "/MEMORY.md"]
    fs = MemFS(store, read_only=True, clock=lambda: TODAY).raw  # type: ignore[arg-type]
    reader = RawReader(store, PLATFORM, clock=lambda: TODAY)  # type: ignore[arg-type]
    assert reader.raw is reader and reader.read_only() is reader and reader.today() == TODAY
    assert repr(reader) == f"RawReader({fs.store!r})"
    got = list(reader.cat_many(paths))
    assert [p for p, _ in got] == paths
    for (path, data), (_, want) in zip(got, fs.cat_many(paths), strict=True):
        _same(data, want)
        _same(_one_at_a_time(reader.cat_file, path), _one_at_a_time(fs.cat_file, path))
    assert reader.find("") == fs.find("") and reader.find("memory") == fs.find("memory")
    listed = reader.find("")
    assert [reader.is_memory_file(p) for p in listed] == [fs.is_memory_file(p) for p in listed]
    assert collect_stats(reader) == collect_stats(fs)
    assert collect_stats(reader, files=listed) == collect_stats(fs)
    assert search_memory(reader, "body", files=listed) == search_memory(fs, "body")
