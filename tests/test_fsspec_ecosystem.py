"""MemFS among fsspec's own tools: its file objects, the caching filesystems chained over it,
copies out of it, what info() says about a size, and universal-pathlib's UPath."""

from __future__ import annotations

import datetime as dt
import errno
import subprocess
import sys
import warnings
from pathlib import Path

import fsspec
import pytest
from fsspec.spec import AbstractBufferedFile
from memfs import InMemoryFileStore, LocalFileStore, MemFS, reminder_text
from memfs.filesystem import MemFSFile

from tests.conftest import TODAY

# An 82-byte memory recorded 30 days before TODAY: read back, it carries the reminder.
ROLE = b"---\nname: role\ndescription: d\nmetadata:\n  type: user\n  recorded: 2026-11-01\n---\nE\n"
NOTE = b"plain notes, no reminder\n"


def decorated(days: int, raw: bytes = ROLE) -> bytes:
    return f"{reminder_text(days)}\n".encode() + raw


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    fs = MemFS(LocalFileStore(tmp_path / "ws"), clock=lambda: TODAY)
    fs.migrating().pipe_file("memory/user-role.md", ROLE)  # an old memory, its date kept
    fs.pipe_file("notes.txt", NOTE)
    assert fs.raw.cat_file("memory/user-role.md") == ROLE
    return tmp_path / "ws"


def test_an_82_byte_memory_a_month_old_is_326_bytes_as_read(ws: Path) -> None:
    info = MemFS(ws, clock=lambda: TODAY).info("memory/user-role.md")
    assert (len(ROLE), len(decorated(30))) == (82, 326)
    assert info == {
        "name": "memory/user-role.md",
        "size": 326,
        "type": "file",
        "view": "decorated",
        "stored_size": 82,
    }


# -- the file objects ------------------------------------------------------------------------------


def test_a_read_handle_has_the_buffered_file_surface(ws: Path) -> None:
    fs = MemFS(ws, clock=lambda: TODAY)
    with fs.open("memory/user-role.md", "rb") as f:
        assert isinstance(f, AbstractBufferedFile)
        assert f.fs is fs and f.path == f.name == "memory/user-role.md"
        assert f.mode == "rb" and f.blocksize == AbstractBufferedFile.DEFAULT_BLOCK_SIZE
        assert f.details == fs.info("memory/user-role.md") == f.info()
        assert f.size == len(decorated(30)) and f.readable() and f.seekable()
        assert f.read(17) == b"<system-reminder>" and f.tell() == 17
        assert f.seek(-10, 2) == f.size - 10 and f.read() == ROLE[-10:]
        f.seek(0)
        assert f.read() == decorated(30)
        assert not f.closed
    assert f.closed
    with pytest.raises(ValueError, match="closed file"):
        f.read()
    with fs.open("notes.txt", "rb", block_size=8) as f:
        assert f.blocksize == 8 and f.readline() == NOTE


def test_a_read_is_one_snapshot_of_the_view(ws: Path) -> None:
    fs = MemFS(ws, clock=lambda: TODAY)
    with fs.open("memory/user-role.md", "rb") as f:
        fs.raw.pipe_file("memory/user-role.md", ROLE + b"rewritten meanwhile\n")
        assert f.read() == decorated(30)  # size, details and bytes are the open's read


def test_write_handles_store_through_the_write_path_on_close(ws: Path) -> None:
    fs = MemFS(ws, clock=lambda: TODAY)
    unstamped = ROLE.replace(b"  recorded: 2026-11-01\n", b"")
    with fs.open("memory/new.md", "wb") as f:
        assert isinstance(f, MemFSFile) and f.mode == "wb" and f.writable()
        f.write(decorated(30, unstamped))  # a reminder copied from a read is stripped
        assert not fs.exists("memory/new.md")  # nothing is stored before close
    stored = fs.raw.cat_file("memory/new.md")
    assert stored == unstamped.replace(b"  type: user\n", b"  type: user\n  recorded: 2026-12-01\n")
    with fs.open("notes.txt", "wb") as f:
        f.write(b"0123456789")
        f.seek(2)
        f.write(b"ab")  # a whole-file buffer can seek, as a local file can
    assert fs.cat_file("notes.txt") == b"01ab456789"
    with pytest.raises(FileExistsError, match="opened with 'x'"):
        fs.open("notes.txt", "xb")


def test_a_read_only_mount_refuses_to_open_for_writing(ws: Path) -> None:
    ro = MemFS(ws, clock=lambda: TODAY, read_only=True)
    for mode in ("wb", "ab", "xb"):
        with pytest.raises(PermissionError) as e:
            ro.open("memory/user-role.md", mode)
        assert e.value.errno == errno.EROFS
    assert ro.open("memory/user-role.md").read() == decorated(30)


@pytest.mark.parametrize("decorate", [True, False])
def test_sizes_from_info_ls_and_du_match_what_a_read_returns(ws: Path, decorate: bool) -> None:
    fs = MemFS(ws, clock=lambda: TODAY, decorate=decorate)
    view = "decorated" if decorate else "raw"
    read = {p: fs.open(p).read() for p in ("memory/user-role.md", "notes.txt")}
    assert read["memory/user-role.md"] == (decorated(30) if decorate else ROLE)
    for path, data in read.items():
        info = fs.info(path)
        assert info["size"] == len(data) == len(fs.cat_file(path))
        assert info["view"] == view and info["stored_size"] == len(fs.raw.cat_file(path))
    (entry,) = fs.ls("memory", detail=True)
    assert entry == fs.info("memory/user-role.md")
    assert fs.du("memory") == len(read["memory/user-role.md"])
    assert fs.info("memory") == {"name": "memory", "size": 0, "type": "directory"}


# -- fsspec's caching filesystems over MemFS -------------------------------------------------------

CACHES = ["simplecache", "filecache", "blockcache"]


@pytest.mark.parametrize("cache", CACHES)
@pytest.mark.parametrize("decorate", [True, False])
def test_caching_filesystems_over_memfs(ws: Path, tmp_path: Path, cache: str, decorate: bool):
    cached = fsspec.filesystem(
        cache,
        target_protocol="memfs",
        target_options={"path": str(ws), "clock": lambda: TODAY, "decorate": decorate},
        cache_storage=str(tmp_path / cache),
    )
    want = decorated(30) if decorate else ROLE
    for _ in range(2):  # the second open is served from the cache
        with cached.open("memory/user-role.md", "rb") as f:
            assert f.read() == want
    assert cached.cat_file("notes.txt") == NOTE
    assert any((tmp_path / cache).iterdir())  # it did cache


@pytest.mark.parametrize("cache", CACHES)
def test_caches_chain_by_url(ws: Path, tmp_path: Path, cache: str) -> None:
    options = {"memfs": {"path": str(ws), "clock": lambda: TODAY}}
    options[cache] = {"cache_storage": str(tmp_path / cache)}
    with fsspec.open(f"{cache}::memfs://memory/user-role.md", "rb", **options) as f:
        assert f.read() == decorated(30)
    raw = {"memfs": {"path": str(ws), "decorate": False}, cache: options[cache]}
    with fsspec.open(f"{cache}::memfs://notes.txt", "rb", **raw) as f:
        assert f.read() == NOTE


def test_a_checked_cache_refetches_when_the_reminder_s_day_count_changes(ws: Path, tmp_path):
    today = [TODAY]
    cached = fsspec.filesystem(
        "blockcache",
        target_protocol="memfs",
        target_options={"path": str(ws), "clock": lambda: today[0]},
        cache_storage=str(tmp_path / "blocks"),
        check_files=True,
    )
    assert cached.cat_file("memory/user-role.md") == decorated(30)
    today[0] = TODAY + dt.timedelta(days=1)  # "31 days old": same length, other bytes
    assert len(decorated(31)) == len(decorated(30))
    with cached.open("memory/user-role.md", "rb") as f:
        assert f.read() == decorated(31)


def test_an_unchecked_cache_keeps_the_view_it_fetched(ws: Path, tmp_path: Path) -> None:
    """What docs/filesystem.md warns about: a cache holds the day's view until it expires."""
    today = [TODAY]
    cached = fsspec.filesystem(
        "simplecache",
        target_protocol="memfs",
        target_options={"path": str(ws), "clock": lambda: today[0]},
        cache_storage=str(tmp_path / "simple"),
    )
    assert cached.cat_file("memory/user-role.md") == decorated(30)
    today[0] = TODAY + dt.timedelta(days=5)
    assert cached.cat_file("memory/user-role.md") == decorated(30)
    assert MemFS(ws, clock=lambda: today[0]).cat_file("memory/user-role.md") == decorated(35)


# -- copies ----------------------------------------------------------------------------------------


def test_get_copies_the_view_and_decorate_false_copies_the_bytes(ws: Path, tmp_path: Path):
    fsspec.filesystem("memfs", path=str(ws), clock=lambda: TODAY).get(
        "memory/", str(tmp_path / "bak") + "/", recursive=True
    )
    assert (tmp_path / "bak" / "user-role.md").read_bytes() == decorated(30)
    exact = fsspec.filesystem("memfs", path=str(ws), decorate=False)
    exact.get("memory/", str(tmp_path / "exact") + "/", recursive=True)
    assert (tmp_path / "exact" / "user-role.md").read_bytes() == ROLE
    assert exact.info("memory/user-role.md")["size"] == 82
    with fsspec.open("memfs://memory/user-role.md", "rb", path=str(ws), decorate=False) as f:
        assert f.read() == ROLE


# -- MemFS(a directory) ----------------------------------------------------------------------------


def test_a_directory_where_a_store_is_expected(tmp_path: Path, ws: Path) -> None:
    for given in (str(ws), ws):
        fs = MemFS(given, clock=lambda: TODAY)
        assert isinstance(fs.store, LocalFileStore) or "LocalFileStore" in repr(fs.store)
        assert fs.cat_file("memory/user-role.md") == decorated(30)
    new = tmp_path / "new"
    MemFS(str(new)).pipe_file("MEMORY.md", b"")
    assert (new / "MEMORY.md").exists()
    with pytest.raises(FileNotFoundError):
        MemFS(str(tmp_path / "absent"), read_only=True)  # a read-only mount creates nothing
    assert not (tmp_path / "absent").exists()
    with pytest.raises(TypeError, match="both as its first argument and as path="):
        MemFS(str(ws), path=str(ws))


@pytest.mark.parametrize(
    "given", [fsspec.filesystem("memory"), {"path": "/x"}, 42], ids=["fsspec-fs", "dict", "int"]
)
def test_anything_else_where_a_store_is_expected_says_what_to_pass(given: object) -> None:
    with pytest.raises(TypeError, match=r"MemFS needs a FileStore .* FsspecFileStore\(fs\)"):
        MemFS(given)  # type: ignore[arg-type]
    assert MemFS(InMemoryFileStore()).ls("") == []


# -- universal-pathlib -----------------------------------------------------------------------------


def test_upath_has_an_implementation_for_memfs(ws: Path) -> None:
    upath = pytest.importorskip("upath")
    from memfs.upath import MemFSPath

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "not explicitly implemented" would fail here
        root = upath.UPath("memfs://", path=str(ws), clock=lambda: TODAY)
        role = root / "memory" / "user-role.md"
        assert type(role) is MemFSPath and str(role) == "memfs://memory/user-role.md"
        assert role.read_bytes() == decorated(30)
        assert sorted(p.name for p in root.iterdir()) == ["memory", "notes.txt"]
        assert [str(p) for p in root.glob("memory/*.md")] == ["memfs://memory/user-role.md"]
        new = root / "memory" / "new.md"
        new.write_text("---\nname: new\ndescription: n\nmetadata:\n  type: user\n---\nNew.\n")
        assert "recorded: 2026-12-01" in new.read_text()  # stamped by MemFS
        assert role.exists() and (root / "memory").is_dir() and role.stat().st_size == 326
        assert upath.UPath("memfs://notes.txt", path=str(ws), decorate=False).read_bytes() == NOTE
        ro = upath.UPath("memfs://notes.txt", path=str(ws), read_only=True)
        with pytest.raises(PermissionError, match="mounted read-only"):
            ro.write_text("x")
    assert MemFS(ws).raw.cat_file("notes.txt") == NOTE


def test_import_memfs_does_not_import_upath() -> None:
    code = "import sys, memfs, memfs.filesystem; print('upath' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
