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


# -- backends that raise where the ones here answer ------------------------------------------


def _memory_store() -> FsspecFileStore:
    fs = fsspec.filesystem("memory")
    root = f"/raise-{id(fs)}-{len(fs.store)}"
    store = FsspecFileStore(fs, root)
    store.write("memory/a.md", b"a")
    return store


def test_a_backend_whose_find_raises_for_a_missing_folder_lists_nothing(monkeypatch) -> None:
    # fsspec's own backends list [] for a folder that is not there; gcsfs-style ones raise
    store = _memory_store()

    def find(path: str, **kwargs: object) -> list[str]:
        raise FileNotFoundError(path)

    monkeypatch.setattr(store.fs, "find", find)
    assert store.ls("memory/none") == []


def test_a_folder_removed_between_its_check_and_its_listing_lists_nothing(monkeypatch) -> None:
    store = _memory_store()
    real_ls = store.fs.ls

    def ls(path: str, detail: bool = False, **kwargs: object) -> list[str]:
        store.fs.rm(path, recursive=True)  # another process removes it after the isdir
        return real_ls(path, detail=detail, **kwargs)

    monkeypatch.setattr(store.fs, "ls", ls)
    assert store.listdir("memory") == []


def test_an_import_error_naming_no_module_is_raised_as_it_is(monkeypatch) -> None:
    from memfs.stores import fsspec as stores_fsspec

    def url_to_fs(url: str, **options: object) -> object:
        raise ImportError("a backend failed to import, saying nothing of what")

    monkeypatch.setattr(stores_fsspec.fsspec.core, "url_to_fs", url_to_fs)
    with pytest.raises(ImportError, match="saying nothing"):
        stores_fsspec._url_to_fs("nosuchproto://bucket/ws")
