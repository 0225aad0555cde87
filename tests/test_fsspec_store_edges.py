"""The fsspec store (memfs.stores.fsspec) at its edges, over fsspec's ``dir`` filesystem on the
local disk (a plain ``file`` filesystem gets the local store instead) and the HTTP filesystem:
a directory read as a file, a file removed as a directory, a killed writer's leftovers swept,
a filesystem whose paths are URLs."""

from __future__ import annotations

from pathlib import Path

import fsspec
import pytest
from fsspec.implementations.dirfs import DirFileSystem
from memfs import FsspecFileStore


@pytest.fixture
def store(tmp_path: Path) -> FsspecFileStore:
    disk = DirFileSystem(path=str(tmp_path), fs=fsspec.filesystem("file", auto_mkdir=True))
    s = FsspecFileStore(disk, "ws")
    assert type(s) is FsspecFileStore
    s.write("notes/a.txt", b"a")
    return s


def test_reading_a_directory_is_refused_as_a_directory(store: FsspecFileStore) -> None:
    with pytest.raises(IsADirectoryError) as caught:
        store.read("notes")
    assert str(caught.value).startswith("[Errno 21] 'notes' is a directory, not a file")


def test_listing_a_missing_directory_is_empty(store: FsspecFileStore) -> None:
    assert store.ls("missing") == []


def test_a_file_is_not_a_directory_to_remove(store: FsspecFileStore) -> None:
    with pytest.raises(NotADirectoryError):
        store.rmdir("notes/a.txt")
    assert store.read("notes/a.txt") == b"a"


def test_a_directory_holding_only_a_killed_writers_leftovers_is_swept_and_removed(
    store: FsspecFileStore, tmp_path: Path
) -> None:
    (tmp_path / "ws" / "empty").mkdir()
    (tmp_path / "ws" / "empty" / ".memfs-tmp-killed-writer").write_text("partial")
    store.rmdir("empty")
    assert not (tmp_path / "ws" / "empty").exists()


def test_the_url_of_a_filesystem_whose_paths_are_urls_is_its_root() -> None:
    s = FsspecFileStore(fsspec.filesystem("http"), "http://example.invalid/ws")
    assert s.url == "http://example.invalid/ws"
