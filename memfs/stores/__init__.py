"""FileStore backends: the platform's storage protocol and the stores memfs ships.

* :class:`LocalFileStore` — a directory on disk; atomic writes, confined to its root.
* :class:`InMemoryFileStore` — a dict, for tests and ephemeral runs.
* :class:`FsspecFileStore` — any fsspec filesystem under a root prefix (``s3://bucket/ws``);
  S3 gets :class:`S3FileStore` (conditional PUTs), a local filesystem :class:`LocalFileStore`.

:mod:`memfs.stores.protocol` declares the protocol and the conditional-write capability;
:func:`with_preconditions` gives a store that lacks it a process-locked compare-and-write;
:func:`move_file` moves a file in one step where the store can, else by conditional copy + delete;
:func:`delete_all` deletes several files with one sync per directory where the store can.
"""

from typing import TYPE_CHECKING, Any

from memfs.stores.conditional import (
    ProcessLockedStore,
    copy_then_delete,
    delete_all,
    move_file,
    with_preconditions,
)
from memfs.stores.host import TEMP_PREFIX
from memfs.stores.local import LocalFileStore
from memfs.stores.memory import InMemoryFileStore
from memfs.stores.protocol import (
    BatchReadingStore,
    ConditionalFileStore,
    FileStore,
    GroupedWritesStore,
    MovingFileStore,
    VersionedFileStore,
    VersionedListingStore,
    supports_batch_reads,
    supports_grouped_writes,
    supports_moves,
    supports_preconditions,
    supports_versioned_listing,
    supports_versioned_reads,
)

if TYPE_CHECKING:
    from memfs.stores.fsspec import FsspecFileStore
    from memfs.stores.s3 import S3FileStore

_FSSPEC_STORES = ("FsspecFileStore", "S3FileStore")
"""The stores that import fsspec, loaded when first named: a local workspace never needs it."""


def __getattr__(name: str) -> Any:
    if name not in _FSSPEC_STORES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    # Both at once: the S3 store registers itself with FsspecFileStore when it is imported.
    from memfs.stores import fsspec, s3

    globals().update(FsspecFileStore=fsspec.FsspecFileStore, S3FileStore=s3.S3FileStore)
    return globals()[name]


__all__ = [
    "TEMP_PREFIX",
    "BatchReadingStore",
    "ConditionalFileStore",
    "FileStore",
    "FsspecFileStore",
    "GroupedWritesStore",
    "InMemoryFileStore",
    "LocalFileStore",
    "MovingFileStore",
    "ProcessLockedStore",
    "S3FileStore",
    "VersionedFileStore",
    "VersionedListingStore",
    "copy_then_delete",
    "delete_all",
    "move_file",
    "supports_batch_reads",
    "supports_grouped_writes",
    "supports_moves",
    "supports_preconditions",
    "supports_versioned_listing",
    "supports_versioned_reads",
    "with_preconditions",
]
