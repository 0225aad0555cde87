"""MemFS: the fsspec filesystem of one item workspace, where the memory rules live.

Every caller that touches memory — agent file tools, the context builder, workflow runs, the
CLI, the MCP server and the Anthropic memory tool — goes through a :class:`MemFS`, so each rule
is written once, here:

* reading ``memory/**.md`` returns the file with the staleness reminder in front of it, and
  reminder-like tags inside the file neutralised (:mod:`memfs.staleness`);
* ``fs.raw`` reads the exact stored bytes (editors, ``edit_file``, stats);
* writing ``memory/**.md`` strips a reminder copied from a read, and a change of a memory's
  body sets the layout's date key to the change date from the clock, whatever date the caller
  wrote (a move, a copy or a change to the frontmatter alone keeps the date the file had): the
  filesystem, not the model, knows when a change happened; only a migration
  (:meth:`MemFS.migrating`) keeps a store's own dates; a rewrite that would leave a readable
  memory without readable frontmatter is refused. Those rules and the credential guard are
  one :class:`~memfs.write_rules.WriteRules`, applied at every write path below;
* ``read_only=True`` (or ``fs.read_only()``) refuses every mutation with
  ``PermissionError(errno.EROFS)`` — the mount workflow runs get;
* every path is confined to the workspace (:mod:`memfs.paths`);
* every change to a memory file or the index is kept as a version in the same store, with the
  actor that made it (:mod:`memfs.versions`), written by the instance's one
  :class:`~memfs.recorder.Recorder` at the write, delete and move paths below
  (:mod:`memfs.history` reads, restores and redacts them).
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import os
import random
import time
from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import fsspec
from fsspec.core import has_magic
from fsspec.implementations.local import trailing_sep
from fsspec.spec import AbstractBufferedFile, AbstractFileSystem
from fsspec.utils import other_paths

from memfs import errors, moves
from memfs.conflicts import DEFAULT_ATTEMPTS, check_sha256, content_sha256, retrying
from memfs.layout import PLATFORM, Layout
from memfs.paths import WorkspacePath, normalize, parent
from memfs.recorder import Recorder
from memfs.stores import (
    ConditionalFileStore,
    FileStore,
    FsspecFileStore,
    LocalFileStore,
    supports_versioned_reads,
    with_preconditions,
)
from memfs.versions import NO_HISTORY, HistoryOptions
from memfs.views import agent_view, read_paths, strip_protocol, utc_today
from memfs.write_rules import WriteRules

Clock = Callable[[], dt.date]
Change = Callable[[bytes | None], bytes]

APPEND_ATTEMPTS = 64
"""Rounds an append ('ab') tries: it commutes with any other change, so re-applying it to new
content is always right, and only a writer that never pauses could outlast this many."""

DEFAULT_MAX_MEMORY_FILE_BYTES = 8 << 20
"""Largest memory file :meth:`MemFS.save` stores (``max_memory_file_bytes``; None: no cap).

A memory file is read whole into a turn, and 8 MiB is already more than any model's context
window; the cap also keeps every memory write far below the size where a backend stops
honouring a conditional write (s3fs switches to a multipart upload at 100 MiB). The index has
no cap (the design leaves its size to the agent's curation)."""


UNKNOWN_ACTOR = "unknown"
"""Who a version is attributed to when the surface that wrote it did not say
(:meth:`MemFS.acting_as`)."""


def _resolve_store(
    store: FileStore | str | os.PathLike[str] | None,
    path: str | None,
    target_protocol: str | None,
    target_options: dict[str, Any] | None,
    read_only: bool,
) -> FileStore:
    """The store :class:`MemFS`'s first arguments name (see its docstring)."""
    if isinstance(store, (str, os.PathLike)):
        # MemFS("/data/items/42"): a local directory, as path= gives one.
        if path is not None or target_protocol is not None:
            raise TypeError(
                "MemFS got a directory both as its first argument and as path=; pass one."
            )
        path = os.fspath(store)
    elif store is not None and not isinstance(store, FileStore):
        raise TypeError(
            f"MemFS needs a FileStore (LocalFileStore, InMemoryFileStore, "
            f"FsspecFileStore(fs, root=...)) or a local directory, not "
            f"{type(store).__name__}; wrap an fsspec filesystem as FsspecFileStore(fs), "
            "or pass path= with target_protocol=."
        )
    else:
        if store is not None:
            return store
    target = None
    if target_protocol is not None:
        target = fsspec.filesystem(target_protocol, **(target_options or {}))
    local_fs = fsspec.implementations.local.LocalFileSystem
    if isinstance(target, local_fs) or (target is None and path is not None):
        # A read-only mount never creates the directory: reading has no side effects.
        local = target._strip_protocol(path or "") if target is not None else path
        return LocalFileStore(local or "/", create=not read_only)
    if target is not None:
        return FsspecFileStore(target, root=path or "")
    raise ValueError(
        "MemFS needs a workspace: pass a FileStore, a local directory as path=, "
        "or path= with target_protocol= (e.g. 's3')."
    )


@dataclass(frozen=True, kw_only=True)
class MemFSOptions:
    """How a :class:`MemFS` reads, writes and records: each view (``fs.raw``,
    ``fs.read_only()``, ``fs.acting_as(...)``) is the same store with some of these changed.
    Every field is also a keyword argument of :class:`MemFS`."""

    # the view a reader gets
    read_only: bool = False
    decorate: bool = True
    clock: Clock | None = None
    """today's date; None: :func:`utc_today`, looked up at each call"""
    layout: Layout = PLATFORM
    # the write rules
    migrating: bool = False
    """keep the dates written (a migration: :meth:`MemFS.migrating`), a future one clamped"""
    credential_guard: bool = True
    guarded_paths: frozenset[str] = frozenset()
    max_memory_file_bytes: int | None = DEFAULT_MAX_MEMORY_FILE_BYTES
    # the version history
    history: HistoryOptions = field(default_factory=HistoryOptions)
    actor: str = UNKNOWN_ACTOR


class MemFS(AbstractFileSystem):
    """One item workspace over one :class:`~memfs.stores.FileStore`.

    Build it from a store (``MemFS(LocalFileStore("/data/items/42"))``), a local directory
    (``MemFS("/data/items/42")``, or ``path=``) or any fsspec target the way ``DirFileSystem``
    chains one (``MemFS(path="bucket/items/42", target_protocol="s3", target_options={...})``).
    The rest are :class:`MemFSOptions`, given as ``options=`` or as keywords (which win):
    ``layout`` says where the memory area and the index are (:mod:`memfs.layout`),
    ``history`` whether and how changes to memory are versioned (:mod:`memfs.versions`;
    ``False`` records nothing) and ``actor`` who this instance's changes are attributed to.
    """

    protocol = "memfs"
    root_marker = ""
    cachable = False  # instances hold a live store; sharing them by constructor args is wrong

    def __init__(
        self,
        store: FileStore | str | os.PathLike[str] | None = None,
        *,
        path: str | None = None,
        target_protocol: str | None = None,
        target_options: dict[str, Any] | None = None,
        options: MemFSOptions | None = None,
        **settings: Any,
    ) -> None:
        super().__init__()
        if isinstance(settings.get("history"), bool):
            settings["history"] = HistoryOptions() if settings["history"] else NO_HISTORY
        if "guarded_paths" in settings:
            settings["guarded_paths"] = frozenset(normalize(p) for p in settings["guarded_paths"])
        # An unknown keyword is a TypeError naming it, as for any function.
        opts = dataclasses.replace(options or MemFSOptions(), **settings)
        given = _resolve_store(store, path, target_protocol, target_options, opts.read_only)
        # Wrapped once here, so every write below is one call whatever the store can do.
        self.store: ConditionalFileStore = with_preconditions(given)
        self._versioned = supports_versioned_reads(self.store)
        self.options = opts
        self.is_read_only = opts.read_only
        self.decorates = opts.decorate
        self.migrates = opts.migrating
        self.clock: Clock | None = opts.clock
        self.layout = opts.layout
        self.credential_guard = opts.credential_guard
        self.guarded_paths = opts.guarded_paths
        self.max_memory_file_bytes = opts.max_memory_file_bytes
        self.history_options = opts.history
        self.actor = opts.actor
        self.recorder = Recorder(self.store, opts.history, opts.actor, read_only=opts.read_only)
        self._views: dict[str, MemFS] = {}  # _view_of
        self.rules = WriteRules(
            opts.layout,
            opts.clock or utc_today,
            credential_guard=opts.credential_guard,
            guarded_paths=opts.guarded_paths,
            migrating=opts.migrating,
            max_memory_file_bytes=opts.max_memory_file_bytes,
        )

    def __repr__(self) -> str:
        flags = [
            f for f, on in (("read_only", self.is_read_only), ("raw", not self.decorates)) if on
        ]
        return f"MemFS({self.store!r}{', ' if flags else ''}{', '.join(flags)})"

    # -- views -------------------------------------------------------------------------------

    def _sibling(self, **changes: Any) -> MemFS:
        view = type(self)(self.store, options=dataclasses.replace(self.options, **changes))
        view.recorder.share_known(self.recorder)
        return view

    def _view_of(self, flag: str) -> MemFS:
        """The sibling with option ``flag`` switched (``decorate`` off, ``read_only`` or
        ``migrating`` on), made once: a whole-store search asks for the raw view each call, and
        making a MemFS was a sixth of a search of ten files. Its options are this instance's
        with one flag changed, and neither instance's options change after it is made."""
        view = self._views.get(flag)
        if view is None:
            view = self._views[flag] = self._sibling(**{flag: flag != "decorate"})
        return view

    @property
    def raw(self) -> MemFS:
        """The same workspace without decoration: reads return the exact stored bytes."""
        return self if not self.decorates else self._view_of("decorate")

    def migrating(self) -> MemFS:
        """The same workspace for a migration (``memfs import``, a restore, seeding a store
        with its history): a memory written through it keeps the date it holds, and only a
        date after today becomes today (:func:`~memfs.frontmatter_block.clamp_future_date`).
        Every other rule still applies. The one way to store a date the caller wrote."""
        return self if self.migrates else self._view_of("migrating")

    def read_only(self) -> MemFS:
        """A read-only mount of the same workspace (what a workflow turn gets)."""
        return self if self.is_read_only else self._view_of("read_only")

    def acting_as(self, actor: str, *, unless_set: bool = False) -> MemFS:
        """The same workspace with its changes attributed to ``actor`` in the version history
        (a chat turn, a workflow step, a CLI user, an MCP client). ``unless_set`` keeps an
        actor this instance already has."""
        if actor == self.actor or (unless_set and self.actor != UNKNOWN_ACTOR):
            return self
        return self._sibling(actor=actor)

    def records(self, rel: str) -> bool:
        """Whether changes to ``rel`` are versioned now: history is on and ``rel`` is
        :meth:`versioned`."""
        return self.history_options.enabled and self.versioned(rel)

    def versioned(self, rel: str) -> bool:
        """Whether ``rel`` is a file memfs keeps versions of: the memory area and the index
        (a version record naming any other path is not one memfs wrote)."""
        layout = self.layout
        return layout.in_memory_area(rel) or layout.is_index(rel)

    def guarding(self, paths: Iterable[str]) -> MemFS:
        """The same workspace with the credential guard also on ``paths`` (files injected into
        every turn, such as an app's context files)."""
        extra = self.guarded_paths | {normalize(p, allow_absolute=True) for p in paths}
        return self if extra == self.guarded_paths else self._sibling(guarded_paths=extra)

    def is_guarded(self, rel: str) -> bool:
        """Whether a write to ``rel`` is checked for credentials (:meth:`WriteRules.is_guarded`)."""
        return self.rules.is_guarded(rel)

    def today(self) -> dt.date:
        return self.rules.today()

    @property
    def memory_dir(self) -> str:
        return self.layout.memory_dir

    def is_memory_file(self, path: str) -> bool:
        """Whether ``path`` is a memory file of this workspace's layout (gets a reminder)."""
        return self.layout.is_memory_file(self._rel(path))

    # -- paths ---------------------------------------------------------------------------------

    @classmethod
    def _strip_protocol(cls, path: Any) -> Any:
        if type(path) is str:
            return strip_protocol(path)
        if type(path) is WorkspacePath:
            return path  # a listed path: nothing to strip, and stripping would drop its type
        if isinstance(path, list):
            return [cls._strip_protocol(p) for p in path]
        path = str(path) if isinstance(path, os.PathLike) else path
        return strip_protocol(path) if isinstance(path, str) else path

    def _rel(self, path: str) -> str:
        return normalize(self._strip_protocol(path), allow_absolute=True)

    def _check_writable(self, path: str, action: str) -> None:
        if self.is_read_only:
            raise errors.ReadOnlyError(self._strip_protocol(path), action)

    # -- the view a reader gets ------------------------------------------------------------------

    def _view(self, rel: str, raw: bytes, version: Hashable | None = None) -> bytes:
        """What an agent reads of ``rel`` (:func:`memfs.views.agent_view`), or ``raw`` itself
        from the :attr:`raw` view."""
        if not self.decorates:
            return raw
        return agent_view(self.layout, rel, raw, self.today(), version)

    def _read(self, rel: str) -> tuple[bytes, Hashable | None]:
        """One store read, with the version when the store can tell it."""
        if self._versioned:
            store: Any = self.store
            return store.read_versioned(rel)  # type: ignore[no-any-return]
        return self.store.read(rel), None

    def _read_view(self, rel: str) -> bytes:
        return self._view(rel, *self._read(rel))

    def read_with_view(self, path: str) -> tuple[bytes, bytes]:
        """The stored bytes of ``path`` and the view a reader gets of them, from one read."""
        rel = self._rel(path)
        if not rel:
            raise errors.is_a_directory(rel)
        raw, version = self._read(rel)
        return raw, self._view(rel, raw, version)

    # -- the one write path ------------------------------------------------------------------------

    def prepare_write(self, rel: str, data: bytes, *, dated_by: bytes | None = None) -> bytes:
        """What will be stored for ``data`` written to ``rel``: the credential guard, reminders
        stripped, the trusted date stamped (:meth:`memfs.write_rules.WriteRules.prepare`)."""
        return self.rules.prepare(rel, data, dated_by)

    def _replaced(self, rel: str, expected_sha256: str) -> bytes | None:
        """The stored bytes of ``rel`` if they still hash to ``expected_sha256``: one read, for
        a conditional write of a memory file whose caller gave the hash alone (the write itself
        decides whether it still applies)."""
        try:
            current = self.store.read(rel)
        except FileNotFoundError:
            return None
        return current if content_sha256(current) == expected_sha256 else None

    def save(
        self,
        path: str,
        data: bytes,
        *,
        create: bool = False,
        expected_sha256: str | None = None,
        replaced: bytes | None = None,
        restored_from: str | None = None,
        moved_from: str | None = None,
        dated_by: bytes | None = None,
    ) -> bytes:
        """Store ``data`` at ``path`` and return the bytes stored (see :meth:`prepare_write`).

        ``expected_sha256`` is the sha256 of the stored bytes the caller read (``fs.raw``); if
        they changed since, :class:`~memfs.errors.PreconditionFailedError` is raised and
        nothing is written. ``create`` refuses an existing path with
        :class:`~memfs.errors.PathConflictError`. Both are FileExistsError.

        A change to a memory file or the index is recorded as a version first (by
        :attr:`recorder`); ``restored_from`` and ``moved_from`` say what the version is, and
        ``replaced`` (the bytes hashed ``expected_sha256``, when the caller has them) spares a
        read when no version holds them yet.

        ``dated_by`` is what the date of a memory file is decided against
        (:meth:`prepare_write`): the stored bytes the caller read (hashing to
        ``expected_sha256``), or the file a move or copy takes ``data`` from. Without it the
        write path uses the content it replaces, which the write rules also need to keep a
        readable memory readable (:meth:`~memfs.write_rules.WriteRules.reads_replaced`): read
        once for a memory file written with a hash alone or blindly (or copied over),
        unless the caller gave ``replaced`` or versioning the write reads it anyway.
        """
        self._check_writable(path, "write")
        rel = self._rel(path)
        if not rel:
            raise errors.is_a_directory(rel)
        data = bytes(data)
        recorded = self.records(rel)
        rules = self.rules
        if replaced is None and not create and rules.reads_replaced(rel, dated_by is not None):
            if expected_sha256 is not None:
                replaced = self._replaced(rel, expected_sha256)
            elif not recorded:
                with contextlib.suppress(FileNotFoundError):
                    replaced = self.store.read(rel)
        if dated_by is None:
            dated_by = replaced
        if not recorded:
            prepared = rules.prepared(rel, data, dated_by, replaced)
            self.store.write(rel, prepared, expected_sha256=expected_sha256, create=create)
            return prepared
        extra = {"restored_from": restored_from, "moved_from": moved_from}
        if create or expected_sha256 is not None:
            prepared = rules.prepared(rel, data, dated_by, replaced)
            parent = None if create else check_sha256(expected_sha256 or "")
            if parent == content_sha256(prepared):  # no change, so no version; the store
                # still decides whether the file holds what the caller read
                self.store.write(rel, prepared, expected_sha256=parent)
            else:
                self.recorder.write(rel, prepared, parent, replaced=replaced, **extra)
            return prepared
        return self.recorder.write_blind(
            rel,
            # Checked and dated against what it replaces: the read a versioned blind write
            # makes anyway.
            lambda current: rules.prepared(
                rel, data, dated_by if dated_by is not None else current, current
            ),
            **extra,
        )

    def update(
        self,
        path: str,
        change: Change,
        *,
        attempts: int = DEFAULT_ATTEMPTS,
        sleep: Callable[[float], None] = time.sleep,
        rng: random.Random | None = None,
        base_delay: float = 0.002,
        max_delay: float = 0.1,
    ) -> bytes:
        """Apply ``change`` to the stored bytes of ``path`` without losing a concurrent update.

        Each round reads the raw stored bytes (None when the file does not exist), calls
        ``change`` on them and writes the result with the read's hash as precondition (or as a
        create when there was no file). When another writer got in between, the round is
        repeated on the new content after a short jittered back-off, up to ``attempts`` rounds;
        then :class:`~memfs.errors.UpdateConflictError` is raised and nothing of this update is
        stored. ``change`` may raise to abort (the text to replace is gone, say); it may be
        called several times. Returns the bytes stored, as :meth:`prepare_write` made them.
        """
        self._check_writable(path, "edit")
        rng = rng or random.Random()

        def round_() -> bytes:
            try:
                current: bytes | None = self.store.read(self._rel(path))
            except FileNotFoundError:
                current = None
            new = change(current)
            if current is None:
                return self.save(path, new, create=True)
            sha = content_sha256(current)
            return self.save(path, new, expected_sha256=sha, replaced=current, dated_by=current)

        return retrying(
            round_,
            attempts=attempts,
            backoff=lambda n: sleep(rng.uniform(0, min(max_delay, base_delay * 2**n))),
        )

    # -- reading ---------------------------------------------------------------------------------

    @property
    def view_name(self) -> str:
        """Which view reads (and ``info`` sizes) describe: ``"decorated"`` or ``"raw"``."""
        return "decorated" if self.decorates else "raw"

    def _dir_entry(self, rel: str) -> dict[str, Any]:
        return {"name": rel, "size": 0, "type": "directory"}

    def _file_entry(self, rel: str, raw: bytes, view: bytes) -> dict[str, Any]:
        # "size" is what open().read() returns in this view; "stored_size" the bytes stored.
        return {
            "name": rel,
            "size": len(view),
            "type": "file",
            "view": self.view_name,
            "stored_size": len(raw),
        }

    def info(self, path: str, **kwargs: Any) -> dict[str, Any]:
        """``size`` is the length of the view this instance reads (``"view"``: ``"decorated"``
        with the staleness reminder, ``"raw"`` with ``decorate=False``); ``stored_size`` is the
        length of the stored bytes. Copies (``get``, ``cp`` to another filesystem) hold the
        view: use ``decorate=False`` or ``memfs export`` for an exact copy."""
        rel = self._rel(path)
        if not rel:
            return self._dir_entry("")
        try:
            raw, version = self._read(rel)
        except IsADirectoryError:
            return self._dir_entry(rel)
        except FileNotFoundError:
            if self.store.is_dir(rel):
                return self._dir_entry(rel)
            raise
        return self._file_entry(rel, raw, self._view(rel, raw, version))

    def ukey(self, path: str) -> str:
        """The sha256 of the view: changes whenever what a read returns changes (the
        reminder's day count too), so a cache with ``check_files=True`` refetches then."""
        return content_sha256(self.cat_file(path))

    def checksum(self, path: str) -> int:
        return int(self.ukey(path), 16)

    def ls(self, path: str, detail: bool = True, **kwargs: Any) -> list[Any]:
        """Children of a directory; two store calls (``listdir`` + ``ls``) for any size.

        ``detail=True`` reports each file as :meth:`info` does (``size`` in this instance's
        view, ``stored_size``), which costs a read per file; ``detail=False`` reads no file.
        """
        rel = self._rel(path)
        try:
            names = self.store.listdir(rel)
        except NotADirectoryError:
            return [self.info(rel)] if detail else [rel]
        files = set(self.store.ls(rel))
        out: list[dict[str, Any]] = []
        for name in names:
            child = f"{rel}/{name}" if rel else name
            if child not in files:
                out.append(self._dir_entry(child))
            elif not detail:
                out.append({"name": child})
            else:
                try:
                    raw, version = self._read(child)
                except (FileNotFoundError, errors.UnsafePathError):
                    continue  # removed, or swapped for a link, since it was listed: a snapshot
                out.append(self._file_entry(child, raw, self._view(child, raw, version)))
        return out if detail else [e["name"] for e in out]

    def find(
        self,
        path: str,
        maxdepth: int | None = None,
        withdirs: bool = False,
        detail: bool = False,
        **kwargs: Any,
    ) -> Any:
        if detail or withdirs or maxdepth is not None:
            return super().find(path, maxdepth=maxdepth, withdirs=withdirs, detail=detail, **kwargs)
        return self.store.ls(self._rel(path))  # one store call, not one per directory

    def exists(self, path: str, **kwargs: Any) -> bool:
        try:
            return self.store.exists(self._rel(path))
        except errors.UnsafePathError:
            raise
        except OSError:
            return False

    def isdir(self, path: str) -> bool:
        return self.store.is_dir(self._rel(path))

    def isfile(self, path: str) -> bool:
        rel = self._rel(path)
        return bool(rel) and self.store.exists(rel) and not self.store.is_dir(rel)

    def cat_file(
        self, path: str, start: int | None = None, end: int | None = None, **kwargs: Any
    ) -> bytes:
        rel = self._rel(path)
        data = self._read_view(rel)
        if start is None and end is None:
            return data
        return data[slice(start, end)]

    def cat_many(self, paths: Iterable[str]) -> Iterator[tuple[str, bytes | OSError]]:
        """``(path, cat_file(path))`` for each of ``paths`` in order, a read's error in place of
        its bytes (never raised). For a whole-store pass (``memfs stats``, search): a store that
        reads many files at once (:class:`~memfs.stores.protocol.BatchReadingStore`) opens each
        directory once for all of them instead of walking to it for each file."""
        for path, got in read_paths(self.store, paths, self._rel):
            yield path, (got if isinstance(got, OSError) else self._view(*got))

    def get_file(
        self, rpath: str, lpath: Any, callback: Any = None, outfile: Any = None, **kw: Any
    ) -> None:
        rel = self._rel(rpath)
        if self.store.is_dir(rel):
            if isinstance(lpath, (str, os.PathLike)):
                os.makedirs(lpath, exist_ok=True)
            return
        data = self._read_view(rel)
        if outfile is not None:
            outfile.write(data)
        elif hasattr(lpath, "write"):
            lpath.write(data)
        else:
            os.makedirs(os.path.dirname(os.path.abspath(lpath)), exist_ok=True)
            with open(lpath, "wb") as f:
                f.write(data)

    def created(self, path: str) -> dt.datetime:
        raise NotImplementedError(
            "The workspace FileStore keeps no timestamps; memory age comes from the "
            "frontmatter field metadata.recorded."
        )

    modified = created

    # -- writing ---------------------------------------------------------------------------------

    def pipe_file(
        self,
        path: str,
        value: bytes,
        mode: str = "overwrite",
        *,
        expected_sha256: str | None = None,
        **kwargs: Any,
    ) -> None:
        """Write ``value``; ``mode="create"`` and ``expected_sha256`` make it conditional."""
        self.save(path, value, create=mode == "create", expected_sha256=expected_sha256)

    def put_file(
        self, lpath: Any, rpath: str, callback: Any = None, mode: str = "overwrite", **kwargs: Any
    ) -> None:
        self._check_writable(rpath, "upload to")
        if os.path.isdir(lpath):
            self.makedirs(rpath, exist_ok=True)
            return
        with open(lpath, "rb") as f:
            self.save(rpath, f.read(), create=mode == "create")

    def cp_file(self, path1: str, path2: str, **kwargs: Any) -> None:
        self._check_writable(path2, "copy into")
        src = self._rel(path1)
        if self.store.is_dir(src):
            self.makedirs(path2, exist_ok=True)
            return
        data = self.store.read(src)
        self.save(path2, data, dated_by=self.rules.dated_source(src, data))

    def mkdir(self, path: str, create_parents: bool = True, **kwargs: Any) -> None:
        self._check_writable(path, "create directory")
        rel = self._rel(path)
        self.rules.check_name(rel)  # a name alone can carry a secret
        if self.store.exists(rel):
            raise errors.already_exists(rel)
        if not create_parents and parent(rel) and not self.store.is_dir(parent(rel)):
            raise errors.not_found(parent(rel))
        self.store.mkdir(rel)

    def makedirs(self, path: str, exist_ok: bool = False) -> None:
        self._check_writable(path, "create directory")
        rel = self._rel(path)
        self.rules.check_name(rel)
        if self.store.exists(rel):
            if exist_ok and self.store.is_dir(rel):
                return
            raise errors.already_exists(rel)
        self.store.mkdir(rel)

    def rmdir(self, path: str) -> None:
        self._check_writable(path, "remove directory")
        self.store.rmdir(self._rel(path))

    def rm_file(self, path: str) -> None:
        self._check_writable(path, "delete")
        rel = self._rel(path)
        # fsspec's rm() calls rm_file on the directories it expanded, deepest first; the store
        # refuses the root.
        if self.store.is_dir(rel):
            self.store.rmdir(rel)
        elif self.records(rel):
            self.recorder.delete_blind(rel)
        else:
            self.store.delete(rel)

    _rm = rm_file

    def rm(self, path: Any, recursive: bool = False, maxdepth: int | None = None) -> None:
        paths = path if isinstance(path, list) else [path]
        for p in paths:
            self._check_writable(p, "delete")
            if not self._rel(p):  # refused before anything under it is deleted
                raise errors.root_refused("deleted")
        try:
            # Literal: '*', '[' and ']' are legal in a name, so a glob here could delete other
            # files than the one named. A tree is listed by the store, which never lists a link.
            expanded = self.expand_path(
                paths, recursive=recursive, maxdepth=maxdepth, assume_literal=True
            )
        except FileNotFoundError:  # fsspec's message is just the list of paths
            raise errors.nothing_to_delete([self._rel(p) for p in paths]) from None
        # Every path is classified before anything is deleted, so a named link is refused
        # with nothing gone; then files, then directories deepest first. A directory that
        # still holds what no listing shows (a link, say) stops only itself and its parents:
        # the first such error is raised once everything else is deleted.
        rels = [self._rel(p) for p in reversed(expanded)]
        is_dir = {rel: self.store.is_dir(rel) for rel in rels}
        first: OSError | None = None
        for rel in [r for r in rels if not is_dir[r]] + [r for r in rels if is_dir[r]]:
            try:
                if is_dir[rel]:
                    self.store.rmdir(rel)
                elif self.records(rel):
                    self.recorder.delete_blind(rel)  # FileNotFoundError: nothing there
                elif self.store.exists(rel):
                    self.store.delete(rel)
                # else: nothing there (a literal name that does not exist)
            except FileNotFoundError:
                continue  # a directory that existed only through its files (object stores)
            except OSError as e:
                first = first or e
        if first is not None:
            raise first

    def mv(
        self,
        path1: Any,
        path2: Any,
        recursive: bool = False,
        maxdepth: int | None = None,
        **kwargs: Any,
    ) -> None:
        for p in path1 if isinstance(path1, list) else [path1]:
            self._check_writable(p, "move")
            if not self._rel(p):
                raise errors.root_refused("moved")
        self._check_writable(path2 if isinstance(path2, str) else "", "move into")
        if path1 == path2:
            return
        pairs = _copy_pairs(self, path1, path2, recursive, maxdepth)
        if not pairs and isinstance(path1, str) and self.isdir(path1):
            raise errors.is_a_directory(self._rel(path1))  # fsspec moves a tree only if recursive
        rels = [(self._rel(p1), self._rel(p2)) for p1, p2 in pairs]
        dirs = {src: dst for src, dst in rels if self.store.is_dir(src)}
        for dst in dirs.values():
            self.makedirs(dst, exist_ok=True)
        moves.move_files(self, [(s, d) for s, d in rels if s not in dirs], list(dirs))

    def move(self, path1: str, path2: str, *, create: bool = False) -> None:
        """Move the file or directory tree ``path1`` to exactly ``path2``, losing no edit.

        Each file moves by :func:`memfs.moves.move_one`: one store move where the store
        renames (local disk, memory), else a copy through :meth:`save` (the rules of its new
        path apply) whose source is deleted only if it still holds the bytes that were copied;
        a file another writer changed or deleted in between keeps its source, and once the rest
        has moved :class:`~memfs.errors.MoveConflictError` names it (both copies exist). A
        destination file that exists refuses the move of that file, and once the rest has
        moved :class:`~memfs.errors.PathConflictError` names it (decided by the store itself,
        so a file created there concurrently is never overwritten either): a move never
        overwrites a file the mover has not read. With ``create`` a directory tree also needs
        a free destination. Source directories are removed only when they are left empty.
        """
        self._check_writable(path1, "move")
        self._check_writable(path2, "move into")
        src, dst = self._rel(path1), self._rel(path2)
        if not src:
            raise errors.root_refused("moved")
        if src == dst:
            return
        if not self.store.is_dir(src):
            moves.move_files(self, [(src, dst)], [])
            return
        if dst == "" or dst.startswith(src + "/"):
            raise errors.move_into_itself(src, dst)
        if create and self.store.exists(dst):
            raise errors.PathConflictError(dst, None, None)
        moves.move_tree(self, src, dst)

    def touch(self, path: str, truncate: bool = True, **kwargs: Any) -> None:
        self._check_writable(path, "touch")
        if truncate or not self.exists(path):
            self.save(path, b"")
        # Without truncate an existing file is left alone: there is no timestamp to update.

    def start_transaction(self) -> Any:
        self._check_writable("", "start a transaction on")
        return super().start_transaction()

    @property
    def transaction(self) -> Any:
        self._check_writable("", "start a transaction on")
        return super().transaction

    def _open(
        self,
        path: str,
        mode: str = "rb",
        block_size: Any = None,
        autocommit: bool = True,
        cache_options: Any = None,
        **kwargs: Any,
    ) -> MemFSFile:
        rel = self._rel(path)
        # A read handle holds one snapshot of the view, so a size given by a caller (a cache
        # that remembers it) never overrides the length of the bytes it reads.
        kwargs.pop("size", None)
        cache_type = kwargs.pop("cache_type", None) or "none"  # the snapshot is in memory
        if mode == "rb":
            return MemFSFile(self, rel, "rb", block_size, cache_type=cache_type)
        if set(mode) - set("rwabx+"):
            raise ValueError(f"Unsupported file mode {mode!r}; use rb, wb, ab or xb.")
        self._check_writable(rel, "open for writing")
        if "+" in mode or "r" in mode:
            raise ValueError(f"Mode {mode!r} is not supported: read with 'rb', write with 'wb'.")
        if not rel or self.store.is_dir(rel):
            raise errors.is_a_directory(rel)
        if "x" in mode and self.store.exists(rel):
            raise errors.already_exists(rel, " (opened with 'x')")
        return MemFSFile(self, rel, mode, block_size, autocommit=autocommit)


def _copy_pairs(
    fs: MemFS, path1: Any, path2: Any, recursive: bool, maxdepth: int | None
) -> list[tuple[str, str]]:
    """The (source, destination) pairs fsspec's ``copy`` makes of these arguments."""
    if isinstance(path1, list) and isinstance(path2, list):
        return list(zip(path1, path2, strict=True))
    source_is_str = isinstance(path1, str)
    paths1 = fs.expand_path(path1, recursive=recursive, maxdepth=maxdepth)
    if source_is_str and (not recursive or maxdepth is not None):
        paths1 = [p for p in paths1 if not (trailing_sep(p) or fs.isdir(p))]
        if not paths1:
            return []
    dest_is_dir = isinstance(path2, str) and (trailing_sep(path2) or fs.isdir(path2))
    exists = source_is_str and (
        (has_magic(path1) and len(paths1) == 1)
        or (not has_magic(path1) and dest_is_dir and not trailing_sep(path1))
    )
    paths2 = other_paths(paths1, path2, exists=exists, flatten=not source_is_str)
    return list(zip(paths1, paths2, strict=True))


class MemFSFile(AbstractBufferedFile):
    """A file of a :class:`MemFS`, with fsspec's buffered-file surface (``blocksize``,
    ``mode``, ``name``, ``details``, ``seek``/``tell``, ``fs``, ``path``), so fsspec's caching
    filesystems (``blockcache``, ``simplecache``, ``filecache``) can wrap it.

    Read (``rb``): the view (decorated unless the filesystem is ``decorate=False``) is fetched
    with a single store read when the file opens; every read and range fetch of the handle
    comes from those bytes, and ``size`` and ``details`` describe them.

    Write (``wb``, ``xb``, ``ab``): the bytes are buffered whole and stored on close (or on
    commit, in a transaction) through :meth:`MemFS.save`, the one write path: reminders
    stripped, date stamped, credentials refused, atomically. ``xb`` needs the file still
    absent when it is stored. ``ab`` adds the bytes to what the file holds when they are
    stored, through :meth:`MemFS.update`: another writer's change in between (another
    appender's, say) is re-read and kept, never overwritten by a copy taken at open.
    """

    fs: MemFS

    def __init__(
        self,
        fs: MemFS,
        path: str,
        mode: str = "rb",
        block_size: Any = None,
        autocommit: bool = True,
        cache_type: str = "none",
        **kwargs: Any,
    ) -> None:
        self._data = b""
        self._pending: bytes | None = None
        size = None
        if mode == "rb":
            raw, self._data = fs.read_with_view(path)
            self.details = fs._file_entry(path, raw, self._data)
            size = len(self._data)
        super().__init__(
            fs, path, mode, block_size or "default", autocommit, cache_type, size=size, **kwargs
        )

    @property
    def name(self) -> str:
        """The workspace path, as a builtin file's ``name`` is the path it was opened with."""
        return str(self.path)

    def _fetch_range(self, start: int, end: int) -> bytes:
        return self._data[start:end]

    # A write handle holds the whole file in its buffer, so unlike an object-store upload it
    # can seek, as a local file can; 'ab' writes at the end wherever it was sought (O_APPEND).

    def seekable(self) -> bool:
        return not self.closed

    def seek(self, loc: int, whence: int = 0) -> int:
        if self.mode == "rb":
            return int(super().seek(loc, whence))
        if self.closed:
            raise ValueError("I/O operation on closed file.")
        self.loc = self.buffer.seek(loc, whence)
        return self.loc

    def write(self, data: Any) -> int:
        if self.mode == "ab" and self.writable():
            self.buffer.seek(0, os.SEEK_END)
        out = int(super().write(data))
        self.loc = self.buffer.tell()
        return out

    def _upload_chunk(self, final: bool = False) -> bool:
        if not final:
            return False  # keep buffering: the file is stored whole, in one write
        data = self.buffer.getvalue()
        if self.autocommit:
            self._store(data)
        else:
            self._pending = data
        return True

    def _store(self, data: bytes) -> None:
        if self.mode == "ab":
            self.fs.update(
                self.path, lambda current: (current or b"") + data, attempts=APPEND_ATTEMPTS
            )
        else:
            self.fs.save(self.path, data, create=self.mode == "xb")

    def commit(self) -> None:
        if self._pending is not None:
            data, self._pending = self._pending, None
            self._store(data)

    def discard(self) -> None:
        self._pending = None
