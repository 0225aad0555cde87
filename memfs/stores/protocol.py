"""The platform's FileStore protocol, and the optional capabilities a store may declare.

The protocol is exactly the platform's eleven methods: no timestamps, no stat. Paths are
workspace-relative POSIX text (``memory/x.md``; ``""`` is the root) and every backend passes
them through :func:`memfs.paths.normalize` first.

Conditional writes are the optional capability. A store that can refuse a write atomically
when the stored bytes changed declares it with the class attribute ``conditional_writes = True``
and takes two keyword-only preconditions on ``write``: ``expected_sha256`` (lowercase hex
sha256 of the bytes the writer read; a mismatch raises
:class:`~memfs.errors.PreconditionFailedError`) and ``create`` (the path must be free, else
:class:`~memfs.errors.PathConflictError`), and ``expected_sha256`` on ``delete`` (deleted only
if the stored bytes still hash to it: a move deletes its source only if nobody changed it since
it was copied). A store that does not declare it still satisfies
:class:`FileStore`; :func:`memfs.stores.with_preconditions` wraps it once, when a MemFS is
built over it, in a process-locked compare-and-write.

Moves are the second optional capability: a store that can rename a file in one step declares
``moves = True`` and a ``move(src, dst, *, expected_sha256=None, replace_sha256=None)`` (see
:class:`MovingFileStore`). Every other store is moved by a conditional copy and delete
(:func:`memfs.stores.move_file` picks the way).

Grouped writes are the third: a store whose durable writes cost a sync of the directory each
lands in (a local disk) declares ``grouped_writes = True`` and the calls of
:class:`GroupedWritesStore`, so the writes or deletes of one change share those syncs. Every
other store is written one call at a time (:func:`memfs.stores.delete_all` picks the way).
"""

from __future__ import annotations

import inspect
from collections.abc import Hashable, Iterable, Iterator, Sequence
from typing import Protocol, runtime_checkable


@runtime_checkable
class FileStore(Protocol):
    """The platform's FileStore. Do not add methods: the platform has exactly these."""

    def write(self, path: str, data: bytes) -> None:
        """Store ``data`` at ``path``, creating parent directories; replaces atomically."""

    def write_from_path(self, path: str, local_path: str) -> None:
        """Store the bytes of the local file ``local_path`` at ``path``."""

    def read(self, path: str) -> bytes:
        """Return the bytes stored at ``path``."""

    def read_to_file(self, path: str, local_path: str) -> None:
        """Copy the bytes stored at ``path`` into the local file ``local_path``."""

    def ls(self, path: str = "") -> list[str]:
        """Every file under ``path``, recursively, as workspace paths (``[]`` if none)."""

    def exists(self, path: str) -> bool:
        """Whether a file or directory exists at ``path``."""

    def delete(self, path: str) -> None:
        """Delete the file at ``path``."""

    def mkdir(self, path: str) -> None:
        """Create the directory ``path`` and its parents; existing directories are fine."""

    def rmdir(self, path: str) -> None:
        """Remove the empty directory ``path``."""

    def is_dir(self, path: str) -> bool:
        """Whether ``path`` is a directory (the root always is)."""

    def listdir(self, path: str = "") -> list[str]:
        """Names (not paths) of the direct children of the directory ``path``."""


@runtime_checkable
class ConditionalFileStore(FileStore, Protocol):
    """A FileStore that declares ``conditional_writes = True`` (see the module docstring)."""

    conditional_writes: bool

    def write(
        self,
        path: str,
        data: bytes,
        *,
        expected_sha256: str | None = None,
        create: bool = False,
    ) -> None:
        """Store ``data``; refuse it if the stored bytes changed or (``create``) exist."""

    def delete(self, path: str, *, expected_sha256: str | None = None) -> None:
        """Delete the file; refuse (PreconditionFailedError) if its bytes changed or it is gone."""


def supports_preconditions(store: object) -> bool:
    """Whether ``store`` declares conditional writes.

    Read statically, so a wrapper that forwards unknown attributes to an inner store through
    ``__getattr__`` does not inherit a capability its own ``write`` may not have.
    """
    return inspect.getattr_static(store, "conditional_writes", False) is True


@runtime_checkable
class VersionedFileStore(FileStore, Protocol):
    """A FileStore that also says which version of a file a read returned.

    Declared with ``versioned_reads = True``. ``read_versioned`` returns the bytes and a token
    that changes whenever the file's content can have changed (None when the store could not
    tell for this read), so a view built from those bytes can be reused on a later read of the
    same version without comparing the bytes again.
    """

    versioned_reads: bool

    def read_versioned(self, path: str) -> tuple[bytes, Hashable | None]:
        """The bytes stored at ``path`` and the version they are."""


def supports_versioned_reads(store: object) -> bool:
    """Whether ``store`` declares versioned reads (read statically, like the preconditions)."""
    return inspect.getattr_static(store, "versioned_reads", False) is True


@runtime_checkable
class BatchReadingStore(VersionedFileStore, Protocol):
    """A versioned store that reads many files in one call; declared with ``batch_reads = True``.

    ``read_many_versioned`` gives, for each path in order, what :meth:`read_versioned` returns
    for it, or the error it raises, as a value (never raised), so that a whole-store pass
    (``memfs stats``, search) does not walk from the root again for each of thousands of files.
    """

    batch_reads: bool

    def read_many_versioned(
        self, paths: Iterable[str]
    ) -> Iterator[tuple[bytes, Hashable | None] | OSError]:
        """:meth:`read_versioned` of each of ``paths``, in order, its error in place."""


def supports_batch_reads(store: object) -> bool:
    """Whether ``store`` declares batch reads (read statically, like the rest)."""
    return inspect.getattr_static(store, "batch_reads", False) is True


@runtime_checkable
class MovingFileStore(FileStore, Protocol):
    """A FileStore that renames a file in one step; declared with ``moves = True``.

    ``move`` moves the file ``src`` to ``dst`` (creating ``dst``'s parents). ``expected_sha256``:
    only if ``src`` still holds bytes hashing to it (else
    :class:`~memfs.errors.PreconditionFailedError` naming ``src``). The destination is never
    overwritten unread: without ``replace_sha256`` it must be free (else
    :class:`~memfs.errors.PathConflictError` naming it); with it, it must hold bytes hashing to
    it (else PreconditionFailedError naming ``dst``). Nothing changes when either is refused.
    """

    moves: bool

    def move(
        self,
        src: str,
        dst: str,
        *,
        expected_sha256: str | None = None,
        replace_sha256: str | None = None,
    ) -> None:
        """Rename ``src`` to ``dst`` under the preconditions above."""


def supports_moves(store: object) -> bool:
    """Whether ``store`` declares one-step moves (read statically, like the preconditions)."""
    return inspect.getattr_static(store, "moves", False) is True


@runtime_checkable
class VersionedListingStore(VersionedFileStore, Protocol):
    """A versioned store whose listing also says each file's version.

    Declared with ``versioned_listing = True``. ``ls_versioned`` is :meth:`FileStore.ls` with
    the token :meth:`VersionedFileStore.read_versioned` would return for each file at the time
    it was listed, so a caller holding what it built from each version can tell, from one
    listing, which files to read again (``memfs serve``'s overview at 10,000 memories).
    """

    versioned_listing: bool

    def ls_versioned(self, path: str = "") -> dict[str, Hashable]:
        """Every file under ``path``, recursively, and its version (``{}`` if none), in no
        particular order."""


def supports_versioned_listing(store: object) -> bool:
    """Whether ``store`` declares versioned listings (read statically, like the rest)."""
    return inspect.getattr_static(store, "versioned_listing", False) is True


@runtime_checkable
class GroupedWritesStore(ConditionalFileStore, Protocol):
    """A conditional store that makes several writes durable at once; ``grouped_writes = True``.

    ``write_after`` stores ``first_data`` at ``first`` create-only, then writes ``path`` as
    ``write`` does, durable in that order (a version before its file). ``write_many`` stores
    each ``(path, data)`` create-only, all or (a taken path, PathConflictError naming it)
    none; all are durable when it returns, but a power cut before that may keep any subset,
    so it groups only writes whose order among themselves nothing relies on. ``delete_many``
    is ``delete`` of each ``(path, expected_sha256)``, durable when it returns, each one's
    error as a value (None: deleted).
    """

    grouped_writes: bool

    def write_after(
        self,
        first: str,
        first_data: bytes,
        path: str,
        data: bytes,
        *,
        expected_sha256: str | None = None,
        create: bool = False,
    ) -> None:
        """Store ``first`` create-only, then ``path``; durable in that order."""

    def write_many(self, writes: Sequence[tuple[str, bytes]]) -> None:
        """Store each ``(path, data)`` create-only, all or none; durable on return."""

    def delete_many(self, deletes: Iterable[tuple[str, str | None]]) -> list[OSError | None]:
        """Delete each ``(path, expected_sha256)``; each one's error in place, durable on return."""


def supports_grouped_writes(store: object) -> bool:
    """Whether ``store`` declares grouped writes (read statically, like the rest: a wrapper that
    forwards unknown attributes to an inner store must not inherit calls that would bypass its
    own ``write``)."""
    return inspect.getattr_static(store, "grouped_writes", False) is True
