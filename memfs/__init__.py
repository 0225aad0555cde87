"""memfs: Claude-Code-style persistent memory for LLM agents, as an fsspec filesystem.

Memory is plain markdown in an item's workspace: ``memory/<name>.md`` files with YAML
frontmatter, and an index ``MEMORY.md`` at the workspace root. :class:`MemFS` is the one place
the rules live (staleness reminder, read-only mounts, path confinement, trusted write dates).
"""

from memfs.filesystem import MemFS, read_only_error
from memfs.layout import INDEX_FILE, MEMORY_DIR, PLATFORM, Layout
from memfs.paths import UnsafePathError
from memfs.staleness import reminder_text
from memfs.stores import FileStore, FsspecFileStore, InMemoryFileStore, LocalFileStore

__all__ = [
    "INDEX_FILE",
    "MEMORY_DIR",
    "PLATFORM",
    "FileStore",
    "FsspecFileStore",
    "InMemoryFileStore",
    "Layout",
    "LocalFileStore",
    "MemFS",
    "UnsafePathError",
    "read_only_error",
    "reminder_text",
]
