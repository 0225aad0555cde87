"""MemFS's fsspec surface (memfs.filesystem) at its edges: settings normalised, calls that are
refused in one line, calls that do nothing, file objects, and a listing taken while another
process removes a file."""

from __future__ import annotations

import datetime as dt
import io
from pathlib import Path

import fsspec
import pytest
from memfs import FsspecFileStore, InMemoryFileStore, MemFS
from memfs.conflicts import content_sha256
from memfs.errors import PreconditionFailedError, UnsafePathError

from tests.test_history_refusals import Racing

TODAY = dt.date(2026, 12, 1)


@pytest.fixture
def fs() -> MemFS:
    fs = MemFS(InMemoryFileStore(), clock=lambda: TODAY)
    fs.pipe_file("notes/a.txt", b"hello\n")
    return fs


def test_guarded_paths_are_normalised_and_listed_protocols_stripped() -> None:
    fs = MemFS(InMemoryFileStore(), guarded_paths=["./notes//a.md", "MEMORY.md"])
    assert fs.guarded_paths == frozenset({"notes/a.md", "MEMORY.md"})
    assert MemFS._strip_protocol(["memfs://notes/a.md", "b.md"]) == ["notes/a.md", "b.md"]


def test_a_conditional_write_of_a_memory_file_gone_since_its_read_is_refused(fs: MemFS) -> None:
    with pytest.raises(PreconditionFailedError) as caught:
        fs.save("memory/a.md", b"x", expected_sha256=content_sha256(b"what was read"))
    assert "the file does not exist any more" in str(caught.value)
    assert not fs.exists("memory/a.md")


def test_an_update_needs_at_least_one_attempt(fs: MemFS) -> None:
    with pytest.raises(ValueError) as caught:
        fs.update("notes/a.txt", lambda b: b or b"", attempts=0)
    assert str(caught.value) == "attempts must be at least 1, got 0."


def test_a_directory_of_a_store_without_directory_entries_is_described_as_one() -> None:
    fs = MemFS(FsspecFileStore(fsspec.filesystem("memory"), "/edges-ws"), clock=lambda: TODAY)
    fs.pipe_file("notes/x/a.txt", b"hi")
    try:
        assert fs.info("notes/x") == {"name": "notes/x", "size": 0, "type": "directory"}
    finally:
        fs.rm("notes", recursive=True)


class DirectoriesReadAsMissing(InMemoryFileStore):
    """A store that says a directory it is asked to read is missing (an object store with no
    directory entries may)."""

    def read(self, path: str) -> bytes:
        if self.is_dir(path):
            raise FileNotFoundError(2, "No such file", path)
        return super().read(path)


def test_a_directory_of_a_store_that_reads_it_as_missing_is_described_as_one() -> None:
    store = DirectoriesReadAsMissing()
    store.write("notes/a.txt", b"a")
    fs = MemFS(store, clock=lambda: TODAY)
    assert fs.info("notes") == {"name": "notes", "size": 0, "type": "directory"}
    with pytest.raises(FileNotFoundError):
        fs.info("nothing")


def test_move_refuses_the_root_and_does_nothing_onto_itself(fs: MemFS) -> None:
    with pytest.raises(UnsafePathError, match="the workspace root cannot be moved"):
        fs.move("", "elsewhere")
    fs.move("notes/a.txt", "notes/a.txt")
    assert fs.cat_file("notes/a.txt") == b"hello\n"


def test_move_of_a_tree_makes_its_nested_directories(fs: MemFS) -> None:
    fs.pipe_file("notes/deep/er/b.txt", b"b\n")
    fs.move("notes", "archive")
    assert sorted(fs.find("archive")) == ["archive/a.txt", "archive/deep/er/b.txt"]
    assert fs.isdir("archive/deep/er") and not fs.exists("notes")


def test_checksum_is_the_views_sha256_as_a_number(fs: MemFS) -> None:
    assert fs.checksum("notes/a.txt") == int(content_sha256(b"hello\n"), 16)


def test_an_exists_the_store_cannot_answer_is_false() -> None:
    class Unanswering(InMemoryFileStore):
        def exists(self, path: str) -> bool:
            raise PermissionError(13, "Permission denied", path)

    assert MemFS(Unanswering()).exists("notes/a.txt") is False


def test_get_file_writes_the_view_to_an_outfile_or_a_file_object(fs: MemFS) -> None:
    out = io.BytesIO()
    fs.get_file("notes/a.txt", "ignored", outfile=out)
    assert out.getvalue() == b"hello\n"
    target = io.BytesIO()
    fs.get_file("notes/a.txt", target)
    assert target.getvalue() == b"hello\n"


def test_mkdir_without_parents_needs_the_parent(fs: MemFS) -> None:
    with pytest.raises(FileNotFoundError) as caught:
        fs.mkdir("nope/deeper", create_parents=False)
    assert caught.value.filename == "nope"
    assert not fs.isdir("nope")


def test_moving_the_root_is_refused_and_a_file_onto_itself_does_nothing(fs: MemFS) -> None:
    with pytest.raises(UnsafePathError, match="the workspace root cannot be moved"):
        fs.mv("", "elsewhere")
    fs.mv("notes/a.txt", "notes/a.txt")
    assert fs.ls("notes", detail=False) == ["notes/a.txt"]
    assert fs.cat_file("notes/a.txt") == b"hello\n"


def test_moving_a_tree_moves_its_nested_directories(fs: MemFS) -> None:
    fs.pipe_file("notes/deep/er/b.txt", b"b\n")
    fs.mv("notes", "archive", recursive=True)
    assert sorted(fs.find("archive")) == ["archive/a.txt", "archive/deep/er/b.txt"]
    assert not fs.exists("notes")


def test_a_transaction_is_refused_on_a_read_only_mount_and_started_otherwise(fs: MemFS) -> None:
    assert fs.start_transaction() is not None
    fs.end_transaction()
    with pytest.raises(PermissionError):
        fs.read_only().start_transaction()


def test_open_modes_other_than_read_or_whole_writes_are_refused(fs: MemFS) -> None:
    with pytest.raises(ValueError) as caught:
        fs.open("notes/a.txt", "qb")
    assert str(caught.value) == "Unsupported file mode 'qb'; use rb, wb, ab or xb."
    with pytest.raises(ValueError) as caught:
        fs.open("notes/a.txt", "r+b")
    assert str(caught.value) == "Mode 'r+b' is not supported: read with 'rb', write with 'wb'."


def test_copying_lists_pairs_sources_with_destinations(fs: MemFS) -> None:
    fs.pipe_file("notes/b.txt", b"bee\n")
    fs.copy(["notes/a.txt", "notes/b.txt"], ["copies/1.txt", "copies/2.txt"])
    assert (fs.cat_file("copies/1.txt"), fs.cat_file("copies/2.txt")) == (b"hello\n", b"bee\n")


def test_moving_lists_pairs_sources_with_destinations(fs: MemFS) -> None:
    fs.pipe_file("notes/b.txt", b"bee\n")
    fs.mv(["notes/a.txt", "notes/b.txt"], ["moved/1.txt", "moved/2.txt"])
    assert (fs.cat_file("moved/1.txt"), fs.cat_file("moved/2.txt")) == (b"hello\n", b"bee\n")
    assert fs.find("notes") == []


def test_a_write_larger_than_the_block_is_stored_whole_at_close(fs: MemFS) -> None:
    data = b"0123456789" * 50
    with fs.open("notes/big.txt", "wb", block_size=16) as f:
        for i in range(0, len(data), 7):
            f.write(data[i : i + 7])
        assert not fs.exists("notes/big.txt")  # nothing stored before the close
    assert fs.cat_file("notes/big.txt") == data


def test_seeking_a_closed_write_file_is_refused(fs: MemFS) -> None:
    f = fs.open("notes/c.txt", "wb")
    f.write(b"abc")
    f.close()
    with pytest.raises(ValueError, match="I/O operation on closed file"):
        f.seek(0)
    assert fs.cat_file("notes/c.txt") == b"abc"


def test_a_file_removed_between_the_listing_and_its_read_is_left_out_of_ls() -> None:
    store = Racing()
    fs = MemFS(store, clock=lambda: TODAY)
    fs.pipe_file("notes/a.txt", b"a\n")
    fs.pipe_file("notes/b.txt", b"b\n")
    store.before_read["notes/a.txt"] = lambda: InMemoryFileStore.delete(store, "notes/a.txt")
    assert [e["name"] for e in fs.ls("notes")] == ["notes/b.txt"]


def test_get_file_to_a_path_writes_the_view(fs: MemFS, tmp_path: Path) -> None:
    fs.get_file("notes/a.txt", str(tmp_path / "out" / "a.txt"))
    assert (tmp_path / "out" / "a.txt").read_bytes() == b"hello\n"
