"""MemFS: the fsspec filesystem of one item workspace, where the memory rules live.

Every caller that touches memory — agent file tools, the context builder, workflow runs, the
CLI, the MCP server and the Anthropic memory tool — goes through a :class:`MemFS`, so each rule
is written once, here:

* reading ``memory/**.md`` returns the file with the staleness reminder in front of it, and
  reminder-like tags inside the file neutralised (:mod:`memfs.staleness`);
* ``fs.raw`` reads the exact stored bytes (editors, ``edit_file``, stats);
* writing ``memory/**.md`` strips a reminder copied from a read, and stamps
  ``metadata.recorded`` with the write date when the file has none, a bad one or a future one:
  the filesystem, not the model, knows when a write happened;
* ``read_only=True`` (or ``fs.read_only()``) refuses every mutation with
  ``PermissionError(errno.EROFS)`` — the mount workflow runs get;
* every path is confined to the workspace (:mod:`memfs.paths`).
"""

from __future__ import annotations

import datetime as dt
import io
import os
import random
import time
from collections.abc import Callable, Iterable
from typing import Any

import fsspec
from fsspec.spec import AbstractFileSystem

from memfs import errors, staleness
from memfs.conflicts import content_sha256
from memfs.credentials import check_credentials
from memfs.frontmatter_block import with_recorded
from memfs.layout import PLATFORM, Layout
from memfs.paths import normalize, parent
from memfs.stores import (
    ConditionalFileStore,
    FileStore,
    FsspecFileStore,
    LocalFileStore,
    with_preconditions,
)

Clock = Callable[[], dt.date]
Change = Callable[[bytes | None], bytes]

DEFAULT_ATTEMPTS = 8
"""Read → change → write rounds :meth:`MemFS.update` tries before giving up."""


def utc_today() -> dt.date:
    return dt.datetime.now(dt.UTC).date()


class MemFS(AbstractFileSystem):
    """One item workspace over one :class:`~memfs.stores.FileStore`.

    Build it from a store (``MemFS(LocalFileStore("/data/items/42"))``), a local directory
    (``MemFS(path="/data/items/42")``) or any fsspec target the way ``DirFileSystem`` chains
    one (``MemFS(path="bucket/items/42", target_protocol="s3", target_options={...})``).
    ``layout`` says where the memory area and the index are (:mod:`memfs.layout`).
    """

    protocol = "memfs"
    root_marker = ""
    cachable = False  # instances hold a live store; sharing them by constructor args is wrong

    def __init__(
        self,
        store: FileStore | None = None,
        *,
        path: str | None = None,
        target_protocol: str | None = None,
        target_options: dict[str, Any] | None = None,
        read_only: bool = False,
        decorate: bool = True,
        stamp: bool = True,
        clock: Clock | None = None,
        layout: Layout = PLATFORM,
        credential_guard: bool = True,
        guarded_paths: frozenset[str] = frozenset(),
        **storage_options: Any,
    ) -> None:
        super().__init__(**storage_options)
        if store is None:
            if target_protocol is not None:
                target = fsspec.filesystem(target_protocol, **(target_options or {}))
                store = FsspecFileStore(target, root=path or "")
            elif path is not None:
                store = LocalFileStore(path)
            else:
                raise ValueError(
                    "MemFS needs a workspace: pass a FileStore, a local directory as path=, "
                    "or path= with target_protocol= (e.g. 's3')."
                )
        # Wrapped once here, so every write below is one call whatever the store can do.
        self.store: ConditionalFileStore = with_preconditions(store)
        self.is_read_only = read_only
        self.decorates = decorate
        self.stamps = stamp
        self.clock: Clock = clock or utc_today
        self.layout = layout
        self.credential_guard = credential_guard
        self.guarded_paths = frozenset(normalize(p) for p in guarded_paths)

    def __repr__(self) -> str:
        flags = [
            f for f, on in (("read_only", self.is_read_only), ("raw", not self.decorates)) if on
        ]
        return f"MemFS({self.store!r}{', ' if flags else ''}{', '.join(flags)})"

    # -- views -------------------------------------------------------------------------------

    def _sibling(self, **changes: Any) -> MemFS:
        opts: dict[str, Any] = {
            "read_only": self.is_read_only,
            "decorate": self.decorates,
            "stamp": self.stamps,
            "clock": self.clock,
            "layout": self.layout,
            "credential_guard": self.credential_guard,
            "guarded_paths": self.guarded_paths,
        }
        opts.update(changes)
        return type(self)(self.store, **opts)

    @property
    def raw(self) -> MemFS:
        """The same workspace without decoration: reads return the exact stored bytes."""
        return self if not self.decorates else self._sibling(decorate=False)

    def verbatim(self) -> MemFS:
        """The same workspace storing written bytes exactly as given: no reminder stripped, no
        date stamped (moving files between workspaces); every other rule still applies."""
        return self if not self.stamps else self._sibling(stamp=False)

    def read_only(self) -> MemFS:
        """A read-only mount of the same workspace (what a workflow turn gets)."""
        return self if self.is_read_only else self._sibling(read_only=True)

    def guarding(self, paths: Iterable[str]) -> MemFS:
        """The same workspace with the credential guard also on ``paths`` (files injected into
        every turn, such as an app's context files)."""
        extra = self.guarded_paths | {normalize(p, allow_absolute=True) for p in paths}
        return self if extra == self.guarded_paths else self._sibling(guarded_paths=extra)

    def is_guarded(self, rel: str) -> bool:
        """Whether a write to ``rel`` is checked for credentials: anything in the memory area
        (any extension), the index, and the paths given to :meth:`guarding`."""
        layout = self.layout
        return self.credential_guard and (
            layout.in_memory_area(rel) or layout.is_index(rel) or rel in self.guarded_paths
        )

    def today(self) -> dt.date:
        return self.clock()

    @property
    def memory_dir(self) -> str:
        return self.layout.memory_dir

    def is_memory_file(self, path: str) -> bool:
        """Whether ``path`` is a memory file of this workspace's layout (gets a reminder)."""
        return self.layout.is_memory_file(self._rel(path))

    # -- paths ---------------------------------------------------------------------------------

    @classmethod
    def _strip_protocol(cls, path: Any) -> Any:
        if isinstance(path, list):
            return [cls._strip_protocol(p) for p in path]
        path = str(path) if isinstance(path, os.PathLike) else path
        if isinstance(path, str):
            if path.startswith("memfs://"):
                path = path[len("memfs://") :]
            path = path.rstrip("/")
            while path.startswith("/"):
                path = path[1:]
        return path

    def _rel(self, path: str) -> str:
        return normalize(self._strip_protocol(path), allow_absolute=True)

    def _check_writable(self, path: str, action: str) -> None:
        if self.is_read_only:
            raise errors.ReadOnlyError(self._strip_protocol(path), action)

    # -- the view a reader gets ------------------------------------------------------------------

    def _view(self, rel: str, raw: bytes) -> bytes:
        if self.decorates and self.layout.is_memory_file(rel):
            return staleness.decorate(raw, self.today())
        return raw

    def _read_view(self, rel: str) -> bytes:
        return self._view(rel, self.store.read(rel))

    def read_with_view(self, path: str) -> tuple[bytes, bytes]:
        """The stored bytes of ``path`` and the view a reader gets of them, from one read."""
        rel = self._rel(path)
        if not rel:
            raise errors.is_a_directory(rel)
        raw = self.store.read(rel)
        return raw, self._view(rel, raw)

    # -- the one write path ------------------------------------------------------------------------

    def prepare_write(self, rel: str, data: bytes) -> bytes:
        """What will be stored for ``data`` written to ``rel``: reminders stripped, date stamped.

        A write to a guarded path (:meth:`is_guarded`) is refused with
        :class:`~memfs.credentials.CredentialRefusedError` when its content or its name looks
        like it holds a credential: those files are replayed into every later turn.
        """
        is_memory = self.layout.is_memory_file(rel)
        if self.is_guarded(rel):
            check_credentials(rel, data)
        if is_memory and self.stamps:
            data = staleness.strip_reminders(data)
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                return data
            stamped = with_recorded(text, self.today())
            if stamped is not text:
                data = stamped.encode("utf-8")
        return data

    def save(
        self,
        path: str,
        data: bytes,
        *,
        create: bool = False,
        expected_sha256: str | None = None,
    ) -> bytes:
        """Store ``data`` at ``path`` and return the bytes stored (see :meth:`prepare_write`).

        ``expected_sha256`` is the sha256 of the stored bytes the caller read (``fs.raw``); if
        they changed since, :class:`~memfs.errors.PreconditionFailedError` is raised and
        nothing is written. ``create`` refuses an existing path with
        :class:`~memfs.errors.PathConflictError`. Both are FileExistsError.
        """
        self._check_writable(path, "write")
        rel = self._rel(path)
        if not rel:
            raise errors.is_a_directory(rel)
        prepared = self.prepare_write(rel, bytes(data))
        self.store.write(rel, prepared, expected_sha256=expected_sha256, create=create)
        return prepared

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
        if attempts < 1:
            raise ValueError(f"attempts must be at least 1, got {attempts}.")
        self._check_writable(path, "edit")
        rng = rng or random.Random()
        last: errors.WriteConflictError | None = None
        for attempt in range(1, attempts + 1):
            try:
                current: bytes | None = self.store.read(self._rel(path))
            except FileNotFoundError:
                current = None
            new = change(current)
            try:
                if current is None:
                    return self.save(path, new, create=True)
                return self.save(path, new, expected_sha256=content_sha256(current))
            except errors.WriteConflictError as e:
                last = e
                if attempt < attempts:
                    sleep(rng.uniform(0, min(max_delay, base_delay * 2**attempt)))
        assert last is not None
        raise errors.UpdateConflictError(
            last.path, last.expected_sha256, last.actual_sha256, attempts=attempts
        ) from last

    # -- reading ---------------------------------------------------------------------------------

    def _entry(self, rel: str, kind: str, size: int) -> dict[str, Any]:
        return {"name": rel, "size": size, "type": kind}

    def info(self, path: str, **kwargs: Any) -> dict[str, Any]:
        rel = self._rel(path)
        if not rel:
            return self._entry("", "directory", 0)
        try:
            data = self.store.read(rel)
        except IsADirectoryError:
            return self._entry(rel, "directory", 0)
        except FileNotFoundError:
            if self.store.is_dir(rel):
                return self._entry(rel, "directory", 0)
            raise
        return self._entry(rel, "file", len(self._view(rel, data)))

    def ls(self, path: str, detail: bool = True, **kwargs: Any) -> list[Any]:
        """Children of a directory; two store calls (``listdir`` + ``ls``) for any size.

        ``detail=True`` reports each file's size as read (the decorated view for a memory
        file), which costs a read per file; ``detail=False`` does not read files.
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
            if child in files:
                size = len(self._read_view(child)) if detail else 0
                out.append(self._entry(child, "file", size))
            else:
                out.append(self._entry(child, "directory", 0))
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
        self.save(path2, self.store.read(src))

    def mkdir(self, path: str, create_parents: bool = True, **kwargs: Any) -> None:
        self._check_writable(path, "create directory")
        rel = self._rel(path)
        if self.is_guarded(rel):
            check_credentials(rel, b"")  # a name alone can carry a secret
        if self.store.exists(rel):
            raise errors.already_exists(rel)
        if not create_parents and parent(rel) and not self.store.is_dir(parent(rel)):
            raise errors.not_found(parent(rel))
        self.store.mkdir(rel)

    def makedirs(self, path: str, exist_ok: bool = False) -> None:
        self._check_writable(path, "create directory")
        rel = self._rel(path)
        if self.is_guarded(rel):
            check_credentials(rel, b"")
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
            expanded = self.expand_path(path, recursive=recursive, maxdepth=maxdepth)
        except FileNotFoundError:  # fsspec's message is just the list of paths
            raise errors.nothing_to_delete([self._rel(p) for p in paths]) from None
        for p in reversed(expanded):
            rel = self._rel(p)
            if self.store.is_dir(rel):
                self.store.rmdir(rel)
            elif self.store.exists(rel):
                self.store.delete(rel)
            # else: a directory that existed only through files just deleted (object stores)

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
        super().mv(path1, path2, recursive=recursive, maxdepth=maxdepth, **kwargs)

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
    ) -> Any:
        rel = self._rel(path)
        if mode == "rb":
            return _ReadFile(self, rel, self._read_view(rel))
        if set(mode) - set("rwabx+"):
            raise ValueError(f"Unsupported file mode {mode!r}; use rb, wb, ab or xb.")
        self._check_writable(rel, "open for writing")
        if "+" in mode or "r" in mode:
            raise ValueError(f"Mode {mode!r} is not supported: read with 'rb', write with 'wb'.")
        if not rel or self.store.is_dir(rel):
            raise errors.is_a_directory(rel)
        initial = b""
        if "x" in mode and self.store.exists(rel):
            raise errors.already_exists(rel, " (opened with 'x')")
        if "a" in mode and self.store.exists(rel):
            initial = self.store.read(rel)
        return _WriteFile(self, rel, initial, autocommit, create="x" in mode)


class _ReadFile(io.BytesIO):
    """A read handle over the view of one file, fetched with a single store read."""

    def __init__(self, fs: MemFS, path: str, data: bytes) -> None:
        super().__init__(data)
        self.fs, self.path, self.size = fs, path, len(data)

    def info(self) -> dict[str, Any]:
        return {"name": self.path, "size": self.size, "type": "file"}


class _WriteFile(io.BytesIO):
    """Buffers a write and stores it in one atomic store write on close or on commit."""

    def __init__(
        self, fs: MemFS, path: str, initial: bytes, autocommit: bool, *, create: bool = False
    ) -> None:
        super().__init__()
        self.write(initial)
        self.fs, self.path, self.autocommit = fs, path, autocommit
        self.create = create  # 'xb': the file must still be absent when the bytes are stored
        self._pending: bytes | None = None

    def close(self) -> None:
        if self.closed:
            return
        data = self.getvalue()
        super().close()
        if self.autocommit:
            self.fs.save(self.path, data, create=self.create)
        else:
            self._pending = data

    def commit(self) -> None:
        if self._pending is not None:
            self.fs.save(self.path, self._pending, create=self.create)
            self._pending = None

    def discard(self) -> None:
        self._pending = None
