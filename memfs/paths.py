"""Workspace path rules: one normaliser that every store and the filesystem share.

A workspace path is relative POSIX text such as ``memory/user-role.md``; ``""`` is the
workspace root. Anything that could reach outside the root is refused here, before a store
is touched, so no backend has to get confinement right on its own. So is every name a backend
would store under another key (object stores read ``?`` and ``#`` as a version or a fragment,
and XML listings cannot carry control characters), so two workspace paths are never one key,
the names reserved for memfs's own temporary and lock files (:data:`RESERVED_PREFIX`), and
memfs's own area (:data:`RESERVED_DIR`, where version history lives): no workspace path reaches
it and no listing shows it. Only a store, for the keys :mod:`memfs.versions` writes, passes
``reserved=True``.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from urllib.parse import unquote

from memfs.errors import UnsafePathError, reserved_area, reserved_name

MAX_SEGMENT_BYTES = 255
"""Longest path segment in UTF-8 bytes: the common limit of local filesystems and S3 tools."""

MAX_PATH_BYTES = 1024
"""Longest workspace path in UTF-8 bytes: the S3 key limit, well under local PATH_MAX."""

RESERVED_PREFIX = ".memfs-tmp-"
"""Names that begin with this (in any letter case) are memfs's in-flight temp files and lock
files. No workspace path may contain such a segment, so no agent can write, read, delete or
list one, whatever the store: a planted lock file could otherwise break mutual exclusion."""

RESERVED_DIR = ".memfs"
"""A path segment equal to this (in any letter case) is memfs's own area: version history
(:mod:`memfs.versions`) lives under ``.memfs/`` at the workspace root. No workspace path may
contain such a segment, so no agent, tool, server or command reads, writes, deletes or lists it
through a :class:`~memfs.filesystem.MemFS`; stores accept it (``reserved=True``) because the
history is written through them, and their listings never show it unless asked for a path
inside it."""

_KEY_CHARACTERS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029?#\ud800-\udfff]")
"""Characters a backend strips or reinterprets in a key, or that cannot be stored at all:
``?`` starts a query or a version id (s3fs cuts ``?versionId=…`` off a key), ``#`` a fragment
or a generation (gcsfs), control characters do not survive an S3 XML listing, control
characters and the Unicode line and paragraph separators would split a line of a file listing
into two names, and lone surrogates are not text any backend can encode."""


def normalize(path: str, *, allow_absolute: bool = False, reserved: bool = False) -> str:
    """Return the canonical workspace path for ``path`` or raise :class:`UnsafePathError`.

    ``allow_absolute`` lets the filesystem layer accept ``/memory/x.md`` (fsspec's root is
    ``/``); stores never accept it, because there a leading slash means the host's root.
    ``reserved`` lets a store accept a path into memfs's own area (:data:`RESERVED_DIR`); every
    workspace path, which is what everything above the stores handles, is refused there.
    """
    if type(path) is WorkspacePath:
        return path  # confirmed when it was made (see the class): valid under every flag
    if type(path) is str:
        # Every read normalises twice (filesystem, then store) the same few paths, turn after
        # turn; the checks below are pure, so their answer is cached (refusals are not).
        return _normalize_cached(path, allow_absolute, reserved)
    return _normalize(path, allow_absolute, reserved)


@functools.lru_cache(maxsize=4096)
def _normalize_cached(path: str, allow_absolute: bool, reserved: bool) -> str:
    return _normalize(path, allow_absolute, reserved)


def _normalize(path: str, allow_absolute: bool, reserved: bool) -> str:
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
        if seg[: len(RESERVED_PREFIX)].casefold() == RESERVED_PREFIX:
            raise reserved_name(path, RESERVED_PREFIX)
        if not reserved and seg.casefold() == RESERVED_DIR:
            raise reserved_area(path, RESERVED_DIR)
        bad = _KEY_CHARACTERS.search(seg)
        if bad:
            raise UnsafePathError(
                path, _why_character(bad.group()), advice="Name the file without it."
            )
        why = _disguised_traversal(seg)
        if why:
            raise UnsafePathError(path, why)
        parts.append(seg)
    rel = "/".join(parts)
    if len(rel.encode("utf-8", "surrogatepass")) > MAX_PATH_BYTES:
        raise UnsafePathError(path, f"the path is longer than {MAX_PATH_BYTES} bytes")
    return rel


class WorkspacePath(str):
    """A workspace path already confirmed canonical outside memfs's own area.

    A whole-store pass (``memfs stats``, search, the browser) lists thousands of paths and
    then reads each: re-validating every one at every layer (filesystem, then store) cost more
    than the read itself, and no cache of strings holds a whole store. A listing builds each
    path once, through :func:`listed_child`, from a base and a name it has checked, so the
    type carries the answer and :func:`normalize` returns it as it is. Made only here; any
    string operation on it gives a plain ``str``, which is checked again.
    """

    __slots__ = ()


def listed_child(base: str, name: str) -> WorkspacePath | None:
    """``base/name`` for an entry a store listed in the directory ``base`` (a normalised path
    outside memfs's own area, or ``""``), or None where no workspace path can name it."""
    if not name or "/" in name or not canonical_entry_name(name):
        return None
    rel = f"{base}/{name}" if base else name
    if len(rel.encode("utf-8", "surrogatepass")) > MAX_PATH_BYTES:
        return None
    return WorkspacePath(rel)


_PLAIN_ENTRY = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,254}")
"""A name :func:`normalize` takes as it is under every flag, by its characters alone: ASCII
letters, digits, ``_``, ``-`` and ``.``, not led by a dot (so neither ``.``, ``..``, a reserved
name nor memfs's own area), at most :data:`MAX_SEGMENT_BYTES` long."""


def canonical_entry_name(name: str, *, reserved: bool = False) -> bool:
    """:func:`is_canonical` of one directory entry's name. Most names are plain
    (:data:`_PLAIN_ENTRY`) and need no more; the others are cached: a listing of 10,000
    memories checks the same names on every call, more of them than the path cache holds."""
    if _PLAIN_ENTRY.fullmatch(name) is not None:
        return True
    return _canonical_entry_cached(name, reserved)


@functools.lru_cache(maxsize=1 << 15)
def _canonical_entry_cached(name: str, reserved: bool) -> bool:
    return is_canonical(name, reserved=reserved)


def _why_character(ch: str) -> str:
    if ch in "?#":
        return (
            f"it contains {ch!r}, which object stores and URLs read as the start of a "
            f"{'query or version id' if ch == '?' else 'fragment or generation'}, so the file "
            "would be stored under another name"
        )
    if 0xD800 <= ord(ch) <= 0xDFFF:
        return f"it contains U+{ord(ch):04X}, a lone surrogate, which is not valid text"
    if ch in "\u2028\u2029":
        return f"it contains U+{ord(ch):04X}, a line break, which would split a file listing"
    return f"it contains the control character U+{ord(ch):04X}, which names cannot hold"


def is_canonical(path: str, *, reserved: bool = False) -> bool:
    """Whether ``path`` (a name or a path found in a listing) is a workspace path as it stands.

    A name that :func:`normalize` refuses or changes (reserved, a control character, a '..' in
    disguise, bytes that are not UTF-8, a '?' another tool stored) cannot be read or written
    through memfs, so no listing offers it. ``reserved``: a listing inside memfs's own area
    (:func:`is_reserved`), which may show its entries.
    """
    try:
        return normalize(path, reserved=reserved) == path
    except UnsafePathError:
        return False


def is_reserved(path: str) -> bool:
    """Whether the normalised ``path`` lies in memfs's own area (a :data:`RESERVED_DIR` segment)."""
    folded = path.casefold()
    if RESERVED_DIR not in folded:  # the common case, without splitting
        return False
    return any(seg == RESERVED_DIR for seg in folded.split("/"))


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
