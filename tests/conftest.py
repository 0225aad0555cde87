"""Shared fixtures: a MemFS over each backend, and a fixed clock."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator

import fsspec
import pytest
from memfs import FsspecFileStore, InMemoryFileStore, LocalFileStore, MemFS
from memfs.stores import FileStore

TODAY = dt.date(2026, 12, 1)

BACKENDS = ["local", "memory", "fsspec-memory", "fsspec-file"]


def make_store(kind: str, tmp_path) -> FileStore:
    if kind == "local":
        return LocalFileStore(tmp_path / "ws")
    if kind == "memory":
        return InMemoryFileStore()
    if kind == "fsspec-memory":
        fs = fsspec.filesystem("memory", skip_instance_cache=True)
        fs.store.clear()
        fs.pseudo_dirs.clear()
        fs.pseudo_dirs.append("")
        return FsspecFileStore(fs, root=f"/ws-{tmp_path.name}")
    if kind == "fsspec-file":
        return FsspecFileStore(f"file://{tmp_path / 'fws'}")
    raise ValueError(kind)


@pytest.fixture(params=BACKENDS)
def store(request, tmp_path) -> Iterator[FileStore]:
    yield make_store(request.param, tmp_path)


@pytest.fixture
def clock() -> Callable[[], dt.date]:
    return lambda: TODAY


@pytest.fixture
def memfs(store, clock) -> MemFS:
    return MemFS(store, clock=clock)
