"""One behavioural suite for every FileStore backend, plus what only the local store promises."""

from __future__ import annotations

import errno
import os

import pytest
from memfs import LocalFileStore, UnsafePathError
from memfs.stores import TEMP_PREFIX, FileStore


def test_every_backend_satisfies_the_protocol(store: FileStore) -> None:
    assert isinstance(store, FileStore)


def test_protocol_is_exactly_the_platform_methods() -> None:
    methods = {
        n for n in vars(FileStore) if not n.startswith("_") and callable(getattr(FileStore, n))
    }
    assert methods == {
        "write",
        "write_from_path",
        "read",
        "read_to_file",
        "ls",
        "exists",
        "delete",
        "mkdir",
        "rmdir",
        "is_dir",
        "listdir",
    }


def test_write_read_round_trip_creates_parents(store: FileStore) -> None:
    store.write("memory/deep/a.md", b"hello")
    assert store.read("memory/deep/a.md") == b"hello"
    assert store.is_dir("memory") and store.is_dir("memory/deep")
    assert store.exists("memory/deep/a.md")
    assert not store.is_dir("memory/deep/a.md")


def test_write_replaces_content(store: FileStore) -> None:
    store.write("a.txt", b"one")
    store.write("a.txt", b"two")
    assert store.read("a.txt") == b"two"


def test_read_missing_is_file_not_found_naming_the_path(store: FileStore) -> None:
    with pytest.raises(FileNotFoundError) as e:
        store.read("memory/nope.md")
    assert "memory/nope.md" in str(e.value)
    assert e.value.errno == errno.ENOENT


def test_read_a_directory_is_is_a_directory(store: FileStore) -> None:
    store.write("memory/a.md", b"x")
    with pytest.raises(IsADirectoryError):
        store.read("memory")


def test_ls_is_recursive_and_relative(store: FileStore) -> None:
    for p in ["MEMORY.md", "memory/a.md", "memory/sub/b.md", "other/c.txt"]:
        store.write(p, p.encode())
    assert store.ls("") == ["MEMORY.md", "memory/a.md", "memory/sub/b.md", "other/c.txt"]
    assert store.ls("memory") == ["memory/a.md", "memory/sub/b.md"]
    assert store.ls("missing") == []
    assert store.ls("memory/a.md") == ["memory/a.md"]


def test_listdir_names_direct_children(store: FileStore) -> None:
    store.write("memory/a.md", b"1")
    store.write("memory/sub/b.md", b"2")
    store.write("MEMORY.md", b"3")
    assert store.listdir("") == ["MEMORY.md", "memory"]
    assert store.listdir("memory") == ["a.md", "sub"]
    with pytest.raises(FileNotFoundError):
        store.listdir("missing")
    with pytest.raises(NotADirectoryError):
        store.listdir("MEMORY.md")


def test_delete_file_and_errors(store: FileStore) -> None:
    store.write("memory/a.md", b"1")
    store.delete("memory/a.md")
    assert not store.exists("memory/a.md")
    with pytest.raises(FileNotFoundError):
        store.delete("memory/a.md")
    store.write("memory/b.md", b"1")
    with pytest.raises(IsADirectoryError):
        store.delete("memory")


def test_mkdir_rmdir(store: FileStore) -> None:
    store.mkdir("a/b")
    store.mkdir("a/b")  # existing directories are fine
    assert store.is_dir("a/b") or not store.exists("a/b")  # object stores keep no empty dirs
    store.write("a/b/f", b"1")
    with pytest.raises(OSError) as e:
        store.rmdir("a/b")
    assert e.value.errno == errno.ENOTEMPTY
    store.delete("a/b/f")
    if store.exists("a/b"):
        store.rmdir("a/b")
    assert not store.exists("a/b/f")
    with pytest.raises(FileNotFoundError):
        store.rmdir("never/was")


def test_root_cannot_be_removed(store: FileStore) -> None:
    with pytest.raises(UnsafePathError):
        store.rmdir("")


def test_write_onto_directory_refused(store: FileStore) -> None:
    store.write("memory/a.md", b"1")
    with pytest.raises(IsADirectoryError):
        store.write("memory", b"x")
    assert store.read("memory/a.md") == b"1"


def test_write_from_path_and_read_to_file(store: FileStore, tmp_path) -> None:
    src = tmp_path / "src.bin"
    src.write_bytes(b"\x00\x01binary\xff")
    store.write_from_path("blobs/x.bin", str(src))
    dst = tmp_path / "dst.bin"
    store.read_to_file("blobs/x.bin", str(dst))
    assert dst.read_bytes() == b"\x00\x01binary\xff"
    with pytest.raises(FileNotFoundError):
        store.read_to_file("blobs/none.bin", str(tmp_path / "n"))


@pytest.mark.parametrize(
    "bad",
    ["../x", "memory/../../etc/passwd", "/etc/passwd", "a\x00b", "a\\..\\b", "x/" + "y" * 300],
)
def test_hostile_paths_refused_before_any_io(store: FileStore, bad: str) -> None:
    for call in (
        lambda: store.read(bad),
        lambda: store.write(bad, b"x"),
        lambda: store.exists(bad),
        lambda: store.delete(bad),
    ):
        with pytest.raises(UnsafePathError) as e:
            call()
        assert "workspace" in str(e.value)
    assert store.ls("") == []


def test_empty_and_dot_segments_collapse(store: FileStore) -> None:
    store.write("./memory//a.md", b"1")
    assert store.read("memory/a.md") == b"1"


# -- local store only ---------------------------------------------------------------------------


def test_local_symlink_out_of_root_refused(tmp_path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret").write_text("s3cret")
    store = LocalFileStore(tmp_path / "ws")
    os.symlink(outside, tmp_path / "ws" / "link")
    with pytest.raises(UnsafePathError):
        store.read("link/secret")
    with pytest.raises(UnsafePathError):
        store.write("link/new", b"x")
    assert not (outside / "new").exists()
    assert (outside / "secret").read_text() == "s3cret"


def test_local_symlink_inside_root_refused(tmp_path) -> None:
    """A link is refused wherever it points: a check of its target would race a swap."""
    store = LocalFileStore(tmp_path / "ws")
    store.write("memory/a.md", b"1")
    os.symlink(tmp_path / "ws" / "memory", tmp_path / "ws" / "alias")
    with pytest.raises(UnsafePathError, match="'alias' on the way to it is a symlink"):
        store.read("alias/a.md")
    with pytest.raises(UnsafePathError, match="is a symlink"):
        store.write("alias/b.md", b"2")
    assert store.ls("") == ["memory/a.md"]
    assert store.read("memory/a.md") == b"1"


def test_local_write_is_atomic_rename(tmp_path, monkeypatch) -> None:
    """A failure mid-write leaves the old file whole and no temp file behind."""
    store = LocalFileStore(tmp_path / "ws")
    store.write("memory/a.md", b"old content")

    def boom(*args: object, **kwargs: object) -> None:
        raise OSError(errno.EIO, "disk gone")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        store.write("memory/a.md", b"new content")
    monkeypatch.undo()
    assert store.read("memory/a.md") == b"old content"
    assert [n for n in os.listdir(tmp_path / "ws" / "memory") if n.startswith(TEMP_PREFIX)] == []


def test_local_temp_files_hidden_from_listings(tmp_path) -> None:
    store = LocalFileStore(tmp_path / "ws")
    store.write("memory/a.md", b"1")
    (tmp_path / "ws" / "memory" / f"{TEMP_PREFIX}abc").write_bytes(b"partial")
    assert store.ls("") == ["memory/a.md"]
    assert store.listdir("memory") == ["a.md"]


def test_local_store_under_pyfakefs(fs) -> None:  # pyfakefs's fixture is named `fs`
    fs.create_dir("/data/items/42")
    store = LocalFileStore("/data/items/42")
    store.write("memory/a.md", b"hello")
    assert fs.exists("/data/items/42/memory/a.md")
    assert store.read("memory/a.md") == b"hello"
    assert store.ls("") == ["memory/a.md"]
    fs.create_file("/data/secret", contents="no")
    with pytest.raises(UnsafePathError):
        store.read("../secret")
    store.delete("memory/a.md")
    store.rmdir("memory")
    assert store.listdir("") == []


def test_local_versioned_listing_is_the_listing_with_each_read_s_version(tmp_path) -> None:
    from memfs import supports_versioned_listing

    s = LocalFileStore(str(tmp_path / "ws"))
    assert supports_versioned_listing(s)
    s.write("memory/a.md", b"a")
    s.write("memory/deep/b.md", b"bb")
    s.write("MEMORY.md", b"- x\n")
    listing = s.ls_versioned("")
    assert sorted(listing) == s.ls("")
    assert all(listing[p] == s.read_versioned(p)[1] for p in listing)
    assert s.ls_versioned("memory/a.md") == {"memory/a.md": listing["memory/a.md"]}
    assert s.ls_versioned("nothing/here") == {} and s.ls_versioned("memory/none.md") == {}
    before = listing["memory/a.md"]
    with open(tmp_path / "ws" / "memory" / "a.md", "ab") as f:  # in place: same inode
        f.write(b"!")
    assert s.ls_versioned("memory")["memory/a.md"] != before
