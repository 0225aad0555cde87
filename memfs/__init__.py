"""memfs: Claude-Code-style persistent memory for LLM agents, as an fsspec filesystem.

Memory is plain markdown in an item's workspace: memory files with YAML frontmatter, and an
index ``MEMORY.md``; where they live is the workspace's :class:`Layout`. :class:`MemFS` is the
one place the rules live (staleness reminder, read-only mounts, path confinement, trusted write
dates, the credential guard). Every error a caller catches is exported here.
"""

from memfs.errors import (
    CredentialRefusedError,
    PathConflictError,
    PreconditionFailedError,
    ReadOnlyError,
    UnsafePathError,
    UpdateConflictError,
    WriteConflictError,
)
from memfs.filesystem import MemFS
from memfs.layout import INDEX_FILE, MEMORY_DIR, PLATFORM, Layout
from memfs.staleness import reminder_text
from memfs.stores import FileStore, FsspecFileStore, InMemoryFileStore, LocalFileStore

__all__ = [
    "INDEX_FILE",
    "MEMORY_DIR",
    "PLATFORM",
    "CredentialRefusedError",
    "FileStore",
    "FsspecFileStore",
    "InMemoryFileStore",
    "Layout",
    "LocalFileStore",
    "MemFS",
    "PathConflictError",
    "PreconditionFailedError",
    "ReadOnlyError",
    "UnsafePathError",
    "UpdateConflictError",
    "WriteConflictError",
    "reminder_text",
]
