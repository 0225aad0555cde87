"""CountingFileStore: every protocol call counted once, results and errors passed through."""

from __future__ import annotations

import threading

import pytest
from memfs import InMemoryFileStore, LocalFileStore, MemFS
from memfs.counting import STORE_METHODS, CountingFileStore, StoreCalls
from memfs.stores import FileStore

from tests.conftest import TODAY


@pytest.fixture
def counting(store) -> CountingFileStore:
    return CountingFileStore(store)


def test_is_a_filestore_with_exactly_the_protocol_methods():
    wrapped = CountingFileStore(InMemoryFileStore())
    assert isinstance(wrapped, FileStore)
    protocol = {
        n for n in vars(FileStore) if not n.startswith("_") and callable(getattr(FileStore, n))
    }
    assert protocol == set(STORE_METHODS)


def test_each_method_counts_once_and_passes_results_through(counting, tmp_path):
    src = tmp_path / "src.bin"
    src.write_bytes(b"uploaded")
    counting.mkdir("memory")
    counting.write("memory/a.md", b"hello")
    counting.write_from_path("memory/b.md", str(src))
    assert counting.read("memory/a.md") == b"hello"
    counting.read_to_file("memory/b.md", str(tmp_path / "out.bin"))
    assert (tmp_path / "out.bin").read_bytes() == b"uploaded"
    assert counting.ls("memory") == ["memory/a.md", "memory/b.md"]
    assert counting.exists("memory/a.md") is True
    assert counting.is_dir("memory") is True
    assert counting.listdir("memory") == ["a.md", "b.md"]
    counting.delete("memory/b.md")
    counting.delete("memory/a.md")
    counting.mkdir("empty")
    counting.rmdir("empty")

    calls = counting.snapshot()
    assert calls.counts == {
        "delete": 2,
        "exists": 1,
        "is_dir": 1,
        "listdir": 1,
        "ls": 1,
        "mkdir": 2,
        "read": 1,
        "read_to_file": 1,
        "rmdir": 1,
        "write": 1,
        "write_from_path": 1,
    }
    assert calls.total == 13
    assert calls.reads == 2
    assert calls.writes == 2
    assert calls.bytes_read == 5
    assert calls.bytes_written == 5


def test_a_failing_call_is_counted_and_its_error_unchanged(counting):
    with pytest.raises(FileNotFoundError) as err:
        counting.read("memory/missing.md")
    assert "memory/missing.md" in str(err.value)
    assert counting.counts == {"read": 1}
    assert counting.snapshot().bytes_read == 0


def test_measure_counts_only_inside_the_block(counting):
    counting.write("MEMORY.md", b"- [a](memory/a.md)\n")
    with counting.measure() as calls:
        counting.read("MEMORY.md")
        counting.exists("MEMORY.md")
    counting.read("MEMORY.md")
    assert calls.counts == {"exists": 1, "read": 1}
    assert calls.bytes_read == len(b"- [a](memory/a.md)\n")
    assert counting.counts == {"exists": 1, "read": 2, "write": 1}


def test_reset_clears_counts_and_bytes(counting):
    counting.write("x.txt", b"abc")
    counting.reset()
    assert counting.snapshot() == StoreCalls()
    assert counting.total == 0


def test_memfs_decorated_read_is_one_store_read(tmp_path):
    inner = LocalFileStore(tmp_path / "ws")
    inner.write(
        "memory/role.md",
        b"---\nname: role\nmetadata:\n  type: user\n  recorded: 2026-10-01\n---\nBody\n",
    )
    counting = CountingFileStore(inner)
    fs = MemFS(counting, clock=lambda: TODAY)
    with counting.measure() as calls:
        text = fs.cat_file("memory/role.md").decode()
    assert text.startswith("<system-reminder>This memory is 61 days old.")
    assert calls.counts == {"read": 1}


def test_backend_attributes_stay_reachable_and_repr_names_the_inner_store(tmp_path):
    inner = LocalFileStore(tmp_path / "ws")
    counting = CountingFileStore(inner)
    assert counting.root == inner.root
    assert repr(counting) == f"CountingFileStore({inner!r})"
    with pytest.raises(AttributeError):
        _ = counting.no_such_attribute


def test_counts_are_exact_under_threads():
    counting = CountingFileStore(InMemoryFileStore())
    counting.write("f", b"x")

    def reader() -> None:
        for _ in range(500):
            counting.read("f")

    threads = [threading.Thread(target=reader) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert counting.counts["read"] == 4000
    assert counting.snapshot().bytes_read == 4000


def test_store_calls_difference_and_per_operation():
    after = StoreCalls(counts={"read": 10, "exists": 4}, bytes_read=100)
    before = StoreCalls(counts={"read": 4, "exists": 4}, bytes_read=40)
    diff = after - before
    assert diff.counts == {"read": 6}
    assert diff.bytes_read == 60
    assert diff.per_operation(3) == {"read": 2.0}
    with pytest.raises(ValueError, match="operations must be positive"):
        diff.per_operation(0)


class _PlainStore(InMemoryFileStore):
    """A platform store whose write takes no preconditions (and says so)."""

    conditional_writes = False

    def write(self, path: str, data: bytes) -> None:  # type: ignore[override]
        super().write(path, data)


def test_counting_declares_what_the_inner_store_declares():
    from memfs.stores import supports_preconditions

    assert supports_preconditions(CountingFileStore(InMemoryFileStore()))
    assert not supports_preconditions(CountingFileStore(_PlainStore()))


def test_a_conditional_write_through_memfs_is_one_store_write(tmp_path):
    from memfs.conflicts import content_sha256

    counting = CountingFileStore(LocalFileStore(tmp_path / "ws"))
    fs = MemFS(counting, clock=lambda: TODAY)
    fs.pipe_file("notes.txt", b"v1")
    with counting.measure() as calls:
        fs.save("notes.txt", b"v2", expected_sha256=content_sha256(b"v1"))
    assert calls.counts == {"write": 1}
    assert fs.cat_file("notes.txt") == b"v2"
