"""A FileStore wrapper that counts calls: the cost that matters on an object store.

On S3 every store call is a request with its own latency and price, so "how many store calls
does this operation make" is the stable, portable figure of an operation's cost; wall time on a
local disk is not. Wrap any backend, run the operation, read the counts::

    store = CountingFileStore(LocalFileStore(root))
    fs = MemFS(store)
    with store.measure() as calls:
        fs.cat_file("memory/role.md")
    calls.counts  # {"read": 1}

The wrapper changes nothing else: results and exceptions pass through untouched, and a call
that raises is still counted (it still cost a request).
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from typing import Any

from pydantic import BaseModel, Field

from memfs.stores import FileStore, supports_preconditions, supports_versioned_reads

STORE_METHODS: tuple[str, ...] = (
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
)
"""The FileStore protocol's eleven methods, the only calls a store can be charged for."""

READ_METHODS = frozenset({"read", "read_to_file"})
WRITE_METHODS = frozenset({"write", "write_from_path"})


class StoreCalls(BaseModel):
    """Store calls made over some span: per-method counts and the bytes moved."""

    counts: dict[str, int] = Field(default_factory=dict)
    """Calls per FileStore method; methods never called are absent."""
    bytes_read: int = 0
    """Bytes returned by ``read`` (``read_to_file`` copies are not sized)."""
    bytes_written: int = 0
    """Bytes passed to ``write`` (``write_from_path`` uploads are not sized)."""

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def reads(self) -> int:
        return sum(n for m, n in self.counts.items() if m in READ_METHODS)

    @property
    def writes(self) -> int:
        return sum(n for m, n in self.counts.items() if m in WRITE_METHODS)

    def __sub__(self, other: StoreCalls) -> StoreCalls:
        counts = {
            m: self.counts.get(m, 0) - other.counts.get(m, 0) for m in {*self.counts, *other.counts}
        }
        return StoreCalls(
            counts={m: n for m, n in sorted(counts.items()) if n},
            bytes_read=self.bytes_read - other.bytes_read,
            bytes_written=self.bytes_written - other.bytes_written,
        )

    def per_operation(self, operations: int) -> dict[str, float]:
        """Counts divided by ``operations``: the calls one operation made, on average."""
        if operations <= 0:
            raise ValueError(f"operations must be positive, got {operations}.")
        return {m: n / operations for m, n in sorted(self.counts.items())}


class CountingFileStore:
    """Wraps a :class:`~memfs.stores.FileStore` and counts every call, per method. Thread-safe."""

    def __init__(self, inner: FileStore) -> None:
        self.inner = inner
        self._lock = threading.Lock()
        self._counts: Counter[str] = Counter()
        self._bytes_read = 0
        self._bytes_written = 0
        # Declare exactly what the inner store can do: counting must not change which
        # paths MemFS takes.
        self.conditional_writes = supports_preconditions(inner)
        self.versioned_reads = supports_versioned_reads(inner)

    def __repr__(self) -> str:
        # MemFS and fsspec key caches on repr: keep it stable and distinct from the inner store.
        return f"CountingFileStore({self.inner!r})"

    def __getattr__(self, name: str) -> Any:
        # Backend-specific attributes (``root``, ``fs``) stay reachable; only protocol calls count.
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

    # -- the counts ------------------------------------------------------------------------------

    def snapshot(self) -> StoreCalls:
        with self._lock:
            return StoreCalls(
                counts=dict(sorted(self._counts.items())),
                bytes_read=self._bytes_read,
                bytes_written=self._bytes_written,
            )

    @property
    def counts(self) -> dict[str, int]:
        return self.snapshot().counts

    @property
    def total(self) -> int:
        return self.snapshot().total

    def reset(self) -> None:
        with self._lock:
            self._counts.clear()
            self._bytes_read = self._bytes_written = 0

    @contextmanager
    def measure(self) -> Iterator[StoreCalls]:
        """Count the calls made inside the ``with`` block; the yielded object fills in on exit."""
        before = self.snapshot()
        result = StoreCalls()
        try:
            yield result
        finally:
            delta = self.snapshot() - before
            result.counts = delta.counts
            result.bytes_read = delta.bytes_read
            result.bytes_written = delta.bytes_written

    def _count(self, method: str, *, read: int = 0, written: int = 0) -> None:
        with self._lock:
            self._counts[method] += 1
            self._bytes_read += read
            self._bytes_written += written

    # -- the protocol ----------------------------------------------------------------------------

    def write(
        self,
        path: str,
        data: bytes,
        *,
        expected_sha256: str | None = None,
        create: bool = False,
    ) -> None:
        self._count("write", written=len(data))
        if expected_sha256 is None and not create:
            self.inner.write(path, data)
        else:
            inner: Any = self.inner
            inner.write(path, data, expected_sha256=expected_sha256, create=create)

    def write_from_path(self, path: str, local_path: str) -> None:
        self._count("write_from_path")
        self.inner.write_from_path(path, local_path)

    def read(self, path: str) -> bytes:
        try:
            data = self.inner.read(path)
        except BaseException:
            self._count("read")
            raise
        self._count("read", read=len(data))
        return data

    def read_versioned(self, path: str) -> tuple[bytes, Hashable | None]:
        """A ``read`` that also returns the version (counted as the one read it is)."""
        inner: Any = self.inner
        try:
            data, version = inner.read_versioned(path)
        except BaseException:
            self._count("read")
            raise
        self._count("read", read=len(data))
        return data, version

    def read_to_file(self, path: str, local_path: str) -> None:
        self._count("read_to_file")
        self.inner.read_to_file(path, local_path)

    def ls(self, path: str = "") -> list[str]:
        self._count("ls")
        return self.inner.ls(path)

    def exists(self, path: str) -> bool:
        self._count("exists")
        return self.inner.exists(path)

    def delete(self, path: str, *, expected_sha256: str | None = None) -> None:
        self._count("delete")
        if expected_sha256 is None:
            self.inner.delete(path)
        else:
            inner: Any = self.inner
            inner.delete(path, expected_sha256=expected_sha256)

    def mkdir(self, path: str) -> None:
        self._count("mkdir")
        self.inner.mkdir(path)

    def rmdir(self, path: str) -> None:
        self._count("rmdir")
        self.inner.rmdir(path)

    def is_dir(self, path: str) -> bool:
        self._count("is_dir")
        return self.inner.is_dir(path)

    def listdir(self, path: str = "") -> list[str]:
        self._count("listdir")
        return self.inner.listdir(path)
