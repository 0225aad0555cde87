"""Workspace path rules: one normaliser that every store and the filesystem share.

A workspace path is relative POSIX text such as ``memory/user-role.md``; ``""`` is the
workspace root. Anything that could reach outside the root is refused here, before a store
is touched, so no backend has to get confinement right on its own.
"""

from __future__ import annotations

import functools
import unicodedata
from urllib.parse import unquote

from memfs.errors import UnsafePathError

MAX_SEGMENT_BYTES = 255
"""Longest path segment in UTF-8 bytes: the common limit of local filesystems and S3 tools."""

MAX_PATH_BYTES = 1024
"""Longest workspace path in UTF-8 bytes: the S3 key limit, well under local PATH_MAX."""


def normalize(path: str, *, allow_absolute: bool = False) -> str:
    """Return the canonical workspace path for ``path`` or raise :class:`UnsafePathError`.

    ``allow_absolute`` lets the filesystem layer accept ``/memory/x.md`` (fsspec's root is
    ``/``); stores never accept it, because there a leading slash means the host's root.
    """
    if type(path) is str:
        # Every read normalises twice (filesystem, then store) the same few paths, turn after
        # turn; the checks below are pure, so their answer is cached (refusals are not).
        return _normalize_cached(path, allow_absolute)
    return _normalize(path, allow_absolute)


@functools.lru_cache(maxsize=4096)
def _normalize_cached(path: str, allow_absolute: bool) -> str:
    return _normalize(path, allow_absolute)


def _normalize(path: str, allow_absolute: bool) -> str:
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
        why = _disguised_traversal(seg)
        if why:
            raise UnsafePathError(path, why)
        parts.append(seg)
    rel = "/".join(parts)
    if len(rel.encode("utf-8", "surrogatepass")) > MAX_PATH_BYTES:
        raise UnsafePathError(path, f"the path is longer than {MAX_PATH_BYTES} bytes")
    return rel


def _disguised_traversal(seg: str) -> str | None:
    """Why ``seg`` is a ``..`` or a separator in disguise, or None.

    Such a name is harmless here, but a layer that decodes percent-escapes (a proxy, a UI,
    S3 tooling), folds Unicode compatibility forms (NFKC: fullwidth '．．／', '‥', '∕') or
    trims trailing dots and spaces (Windows) would turn it into a step out of the workspace.
    """
    forms = [seg]
    if not seg.isascii() or "%" in seg:
        decoded = seg
        for _ in range(3):  # double and triple encoding
            decoded = unquote(decoded, errors="surrogateescape")
            forms.append(decoded)
        forms += [unicodedata.normalize("NFKC", f) for f in list(forms)]
    for form in forms:
        if any(sep in form for sep in _SEPARATORS):
            return "it contains a percent-encoded or look-alike path separator"
        dots = form.strip(" \t")
        if dots and set(dots) == {"."} and form != ".":
            return "it is a '..' in disguise (percent-encoded, look-alike or padded dots)"
    return None


_SEPARATORS = ("/", "\\", "\x00", "\u2215", "\u2044", "\u29f8", "\u29f9")


def parent(path: str) -> str:
    """Parent of a normalised path (``""`` for top-level names)."""
    return path.rpartition("/")[0]


def join(*parts: str) -> str:
    return "/".join(p.strip("/") for p in parts if p.strip("/"))
