"""What a reader gets of a stored file, decided here for every surface.

A memory file is read with the staleness reminder in front of it (:mod:`memfs.staleness`); any
other file has MemFS's own tags in it escaped (:mod:`memfs.tags`), so no surface can show a
forged reminder or frame. :class:`~memfs.filesystem.MemFS` reads through :func:`agent_view`
and :func:`workspace_path`; so does ``memfs cat`` on a local workspace, which opens no fsspec
filesystem (importing fsspec costs a command-line start-up more than everything else it does).

This module imports nothing heavy at the top: the reminder's frontmatter reader (and YAML with
it) loads on the first memory file read.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Hashable
from typing import TYPE_CHECKING, Any

from memfs.paths import normalize

if TYPE_CHECKING:
    from memfs.layout import Layout
    from memfs.stores import FileStore

PROTOCOL_PREFIX = "memfs://"


def utc_today() -> dt.date:
    return dt.datetime.now(dt.UTC).date()


def strip_protocol(path: str) -> str:
    """``path`` without ``memfs://``, leading slashes and a trailing slash."""
    if path.startswith(PROTOCOL_PREFIX):
        path = path[len(PROTOCOL_PREFIX) :]
    path = path.rstrip("/")
    while path.startswith("/"):
        path = path[1:]
    return path


def workspace_path(path: str) -> str:
    """The canonical workspace path a caller's ``path`` names (confined, see :mod:`memfs.paths`)."""
    return normalize(strip_protocol(path), allow_absolute=True)


def read_stored(store: FileStore, rel: str) -> tuple[bytes, Hashable | None]:
    """One store read, with the version when the store declares versioned reads."""
    from memfs.stores.protocol import supports_versioned_reads

    if supports_versioned_reads(store):
        versioned: Any = store
        return versioned.read_versioned(rel)  # type: ignore[no-any-return]
    return store.read(rel), None


def agent_view(
    layout: Layout, rel: str, raw: bytes, today: dt.date, version: Hashable | None = None
) -> bytes:
    """What an agent reads of ``rel``, stored as ``raw``: a memory file of ``layout`` decorated
    for ``today``, any other file with MemFS's tags escaped. ``version`` (from a store with
    versioned reads) lets a view of the same version be reused without comparing the bytes
    again."""
    if layout.is_memory_file(rel):
        from memfs import staleness

        return staleness.decorate(raw, today, version)
    from memfs.tags import escape_for_agent_bytes

    return escape_for_agent_bytes(raw, version)
