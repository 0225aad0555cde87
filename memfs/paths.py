"""Workspace path rules: one normaliser that every store and the filesystem share.

A workspace path is relative POSIX text such as ``memory/user-role.md``; ``""`` is the
workspace root. Anything that could reach outside the root is refused here, before a store
is touched, so no backend has to get confinement right on its own.
"""

from __future__ import annotations

import errno

MAX_SEGMENT_BYTES = 255
"""Longest path segment in UTF-8 bytes: the common limit of local filesystems and S3 tools."""


class UnsafePathError(PermissionError):
    """A path that would escape the workspace root or is malformed; nothing was read or written."""

    def __init__(self, path: object, why: str) -> None:
        shown = path if isinstance(path, str) else repr(path)
        super().__init__(
            errno.EACCES,
            f"Refused path {shown!r}: {why}. Use a path relative to the workspace root, "
            "such as 'memory/user-role.md' or 'MEMORY.md'.",
            shown,
        )


def normalize(path: str, *, allow_absolute: bool = False) -> str:
    """Return the canonical workspace path for ``path`` or raise :class:`UnsafePathError`.

    ``allow_absolute`` lets the filesystem layer accept ``/memory/x.md`` (fsspec's root is
    ``/``); stores never accept it, because there a leading slash means the host's root.
    """
    if not isinstance(path, str):
        raise UnsafePathError(path, "a path must be text")
    if "\x00" in path:
        raise UnsafePathError(path, "it contains a NUL byte")
    if "\\" in path:
        raise UnsafePathError(path, "backslashes are not path separators here; use '/'")
    if path.startswith("/") and not allow_absolute:
        raise UnsafePathError(path, "absolute paths are outside the workspace")
    parts = []
    for seg in path.split("/"):
        if seg in ("", "."):
            continue
        if seg == "..":
            raise UnsafePathError(
                path, "'..' segments are not allowed (they can leave the workspace)"
            )
        if len(seg.encode("utf-8", "surrogatepass")) > MAX_SEGMENT_BYTES:
            raise UnsafePathError(path, f"a path segment is longer than {MAX_SEGMENT_BYTES} bytes")
        parts.append(seg)
    return "/".join(parts)


def parent(path: str) -> str:
    """Parent of a normalised path (``""`` for top-level names)."""
    return path.rpartition("/")[0]


def join(*parts: str) -> str:
    return "/".join(p.strip("/") for p in parts if p.strip("/"))
