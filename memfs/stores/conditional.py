"""Conditional writes for a store that does not declare them: compare-and-write under a lock.

The platform's own FileStore (and fsspec filesystems other than S3 and local disks) have no
precondition on ``write``. MemFS wraps such a store once, when it is built
(:func:`with_preconditions`), so every conditional write goes through one path. The compare and
the write are atomic among the writers of one process; a store shared between processes needs
native preconditions (local disk: per-path flock; S3: If-Match) for that.
"""

from __future__ import annotations

import threading
from collections.abc import Hashable, Sequence
from typing import Any

from memfs import errors
from memfs.conflicts import check_delete, check_precondition, check_sha256, content_sha256
from memfs.paths import normalize
from memfs.stores.protocol import (
    ConditionalFileStore,
    FileStore,
    supports_grouped_writes,
    supports_moves,
    supports_preconditions,
    supports_versioned_reads,
)

_PROCESS_LOCK = threading.RLock()


class ProcessLockedStore:
    """``inner`` with ``write(..., expected_sha256=, create=)`` decided under a process lock."""

    conditional_writes = True

    def __init__(self, inner: FileStore) -> None:
        self.inner = inner
        self.versioned_reads = supports_versioned_reads(inner)

    def __repr__(self) -> str:
        return f"ProcessLockedStore({self.inner!r})"

    def __getattr__(self, name: str) -> Any:
        # Backend attributes (``root``, ``fs``) stay reachable through the wrapper.
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

    def write(
        self,
        path: str,
        data: bytes,
        *,
        expected_sha256: str | None = None,
        create: bool = False,
    ) -> None:
        if expected_sha256 is None and not create:
            self.inner.write(path, data)
            return
        expected = None if expected_sha256 is None else check_sha256(expected_sha256)
        rel = normalize(path, reserved=True)
        with _PROCESS_LOCK:
            try:
                current: bytes | None = self.inner.read(rel)
            except FileNotFoundError:
                current = None
            if not check_precondition(rel, current, data, expected_sha256=expected, create=create):
                self.inner.write(rel, data)

    def write_from_path(self, path: str, local_path: str) -> None:
        self.inner.write_from_path(path, local_path)

    def read(self, path: str) -> bytes:
        return self.inner.read(path)

    def read_versioned(self, path: str) -> tuple[bytes, Hashable | None]:
        inner: Any = self.inner
        return inner.read_versioned(path)  # type: ignore[no-any-return]

    def read_to_file(self, path: str, local_path: str) -> None:
        self.inner.read_to_file(path, local_path)

    def ls(self, path: str = "") -> list[str]:
        return self.inner.ls(path)

    def exists(self, path: str) -> bool:
        return self.inner.exists(path)

    def delete(self, path: str, *, expected_sha256: str | None = None) -> None:
        if expected_sha256 is None:
            self.inner.delete(path)
            return
        expected = check_sha256(expected_sha256)
        rel = normalize(path, reserved=True)
        with _PROCESS_LOCK:
            try:
                current: bytes | None = self.inner.read(rel)
            except FileNotFoundError:
                current = None
            check_delete(rel, current, expected)
            self.inner.delete(rel)

    def mkdir(self, path: str) -> None:
        self.inner.mkdir(path)

    def rmdir(self, path: str) -> None:
        self.inner.rmdir(path)

    def is_dir(self, path: str) -> bool:
        return self.inner.is_dir(path)

    def listdir(self, path: str = "") -> list[str]:
        return self.inner.listdir(path)


def with_preconditions(store: FileStore) -> ConditionalFileStore:
    """``store`` itself when it declares conditional writes, else :class:`ProcessLockedStore`."""
    if supports_preconditions(store):
        return store  # type: ignore[return-value]
    return ProcessLockedStore(store)


def move_file(
    store: ConditionalFileStore,
    src: str,
    dst: str,
    *,
    expected_sha256: str | None = None,
    replace_sha256: str | None = None,
) -> None:
    """Move the file ``src`` to ``dst`` with :class:`~memfs.stores.protocol.MovingFileStore`'s
    preconditions: one ``store.move`` where the store declares moves, else
    :func:`copy_then_delete`."""
    if supports_moves(store):
        mover: Any = store
        mover.move(src, dst, expected_sha256=expected_sha256, replace_sha256=replace_sha256)
        return
    copy_then_delete(
        store, src, dst, expected_sha256=expected_sha256, replace_sha256=replace_sha256
    )


def copy_then_delete(
    store: ConditionalFileStore,
    src: str,
    dst: str,
    *,
    expected_sha256: str | None = None,
    replace_sha256: str | None = None,
) -> None:
    """A move for a store that cannot rename (S3, other fsspec backends): read ``src``, write
    its bytes to ``dst`` create-only (or conditional on ``replace_sha256``), then delete
    ``src`` conditional on the bytes copied. On S3 that is a GET, a conditional PUT and a
    conditional DELETE. A writer that changed ``src`` in between keeps its change: the source
    stays and :class:`~memfs.errors.MoveConflictError` says both files exist."""
    data = store.read(src)
    sha = content_sha256(data)
    if expected_sha256 is not None and sha != check_sha256(expected_sha256):
        raise errors.PreconditionFailedError(src, expected_sha256, sha)
    if normalize(src, reserved=True) == normalize(dst, reserved=True):
        return  # a move onto itself: the copy would find its own destination taken
    store.write(dst, data, create=replace_sha256 is None, expected_sha256=replace_sha256)
    try:
        store.delete(src, expected_sha256=sha)
    except errors.PreconditionFailedError as e:
        raise errors.MoveConflictError(
            src, e.expected_sha256, e.actual_sha256, destination=dst
        ) from None


def delete_all(
    store: ConditionalFileStore, deletes: Sequence[tuple[str, str | None]]
) -> list[OSError | None]:
    """Delete each ``(path, expected_sha256)``; for each, None when deleted, else its error as
    a value. One ``delete_many`` (one sync per directory) where the store declares grouped
    writes, else one conditional delete after another."""
    if supports_grouped_writes(store):
        grouped: Any = store
        return list(grouped.delete_many(deletes))
    results: list[OSError | None] = []
    for path, expected in deletes:
        try:
            if expected is None:
                store.delete(path)
            else:
                store.delete(path, expected_sha256=expected)
        except OSError as e:
            results.append(e)
        else:
            results.append(None)
    return results
