"""What a reader gets of a stored file, decided here for every surface.

A memory file is read with the staleness reminder in front of it (:mod:`memfs.staleness`); any
other file has MemFS's own tags in it escaped (:mod:`memfs.tags`), so no surface can show a
forged reminder or frame. :class:`~memfs.filesystem.MemFS` reads through :func:`agent_view`
and :func:`workspace_path`; so does ``memfs cat`` on a local workspace, which opens no fsspec
filesystem (importing fsspec costs a command-line start-up more than everything else it does).

A whole-store pass on the command line (``memfs stats``, ``memfs grep``) reads through a
:class:`RawReader`: the stored bytes, read only, as a read-only MemFS's ``raw`` view reads them,
from the same store calls, again without fsspec. What such a pass needs of the workspace is
:class:`RawWorkspace`, which a MemFS and a RawReader both are.

This module imports nothing heavy at the top: the reminder's frontmatter reader (and YAML with
it) loads on the first memory file read.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Callable, Hashable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, Protocol

from memfs.paths import WorkspacePath, normalize

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
    if type(path) is WorkspacePath:
        return path  # a listed path: confirmed when the listing made it
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
        return _decorate()(raw, today, version)
    return _escape()(raw, version)


# Loaded at the first read that needs each (YAML comes with the reminder), then held: an import
# statement run at every read cost about a microsecond of a 25-microsecond turn.
@functools.cache
def _decorate() -> Callable[[bytes, dt.date, Hashable | None], bytes]:
    from memfs.staleness import decorate

    return decorate


@functools.cache
def _escape() -> Callable[[bytes, Hashable | None], bytes]:
    from memfs.tags import escape_for_agent_bytes

    return escape_for_agent_bytes


def read_many(
    store: FileStore, rels: Iterable[str]
) -> Iterator[tuple[bytes, Hashable | None] | OSError]:
    """:func:`read_stored` of each of ``rels`` (workspace paths) in order, its error in place of
    its bytes (never raised); a store that reads many files at once
    (:class:`~memfs.stores.protocol.BatchReadingStore`) opens each directory once for all."""
    from memfs.stores.protocol import supports_batch_reads

    if supports_batch_reads(store):
        batch: Any = store
        yield from batch.read_many_versioned(rels)
    else:
        for rel in rels:
            try:
                yield read_stored(store, rel)
            except OSError as e:
                yield e


def read_paths(
    store: FileStore, paths: Iterable[str], to_rel: Callable[[str], str]
) -> Iterator[tuple[str, tuple[str, bytes, Hashable | None] | OSError]]:
    """``(path, (rel, bytes, version))`` for each of ``paths`` in order, ``rel`` its workspace
    path by ``to_rel``, or ``(path, error)`` where ``to_rel`` or the read failed (never
    raised). Every path is confined first; the confined ones are read by :func:`read_many`."""
    items: list[tuple[str, str | OSError]] = []
    for path in paths:
        try:
            items.append((path, to_rel(path)))
        except OSError as e:
            items.append((path, e))
    reads = read_many(store, [rel for _, rel in items if isinstance(rel, str)])
    for path, rel in items:
        if isinstance(rel, OSError):
            yield path, rel
            continue
        got = next(reads)
        yield path, (got if isinstance(got, OSError) else (rel, *got))


class RawWorkspace(Protocol):
    """What a read-only whole-store pass (:func:`memfs.stats.collect_stats`,
    :func:`memfs.search.search_memory`) reads a workspace through: a
    :class:`~memfs.filesystem.MemFS` or a :class:`RawReader`."""

    @property
    def layout(self) -> Layout: ...

    @property
    def store(self) -> FileStore: ...

    @property
    def raw(self) -> RawWorkspace: ...

    def read_only(self) -> RawWorkspace: ...

    def today(self) -> dt.date: ...

    def is_memory_file(self, path: str) -> bool: ...

    def find(self, path: str) -> Any: ...

    def cat_file(self, path: str) -> bytes: ...

    def cat_many(self, paths: Iterable[str]) -> Iterator[tuple[str, bytes | OSError]]: ...


class RawReader:
    """A workspace read as ``MemFS(store, layout=layout, read_only=True).raw`` reads it: the
    stored bytes, no reminder, every path confined (:func:`workspace_path`) and read through
    the same store calls, with none written. Built by a command-line pass that needs nothing
    else of a MemFS, so that it loads no fsspec (see the module docstring)."""

    def __init__(
        self, store: FileStore, layout: Layout, clock: Callable[[], dt.date] = utc_today
    ) -> None:
        from memfs.stores import with_preconditions

        self.store = with_preconditions(store)  # the store a MemFS reads, and its repr
        self.layout = layout
        self._clock = clock

    def __repr__(self) -> str:
        return f"RawReader({self.store!r})"

    @property
    def raw(self) -> RawReader:
        return self

    def read_only(self) -> RawReader:
        return self

    def today(self) -> dt.date:
        return self._clock()

    def is_memory_file(self, path: str) -> bool:
        return self.layout.is_memory_file(workspace_path(path))

    def find(self, path: str) -> list[str]:
        """Every file under ``path``: one store listing."""
        return self.store.ls(workspace_path(path))

    def cat_file(self, path: str) -> bytes:
        return read_stored(self.store, workspace_path(path))[0]

    def cat_many(self, paths: Iterable[str]) -> Iterator[tuple[str, bytes | OSError]]:
        """``(path, stored bytes)`` for each of ``paths`` in order, a read's error in place of
        its bytes (never raised): :meth:`MemFS.cat_many <memfs.filesystem.MemFS.cat_many>`."""
        for path, got in read_paths(self.store, paths, workspace_path):
            yield path, (got if isinstance(got, OSError) else got[1])
