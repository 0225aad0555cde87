"""A workspace under a root prefix of any fsspec filesystem (``s3://bucket/items/42``).

A local filesystem (``file://``) gets a :class:`~memfs.stores.local.LocalFileStore` and S3 gets
an :class:`~memfs.stores.s3.S3FileStore`: constructing :class:`FsspecFileStore` picks the
backend, so each backend's rules are written once. Any other filesystem declares no
conditional writes; MemFS adds them with a process lock (:func:`memfs.stores.with_preconditions`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import fsspec
from fsspec.implementations.local import LocalFileSystem
from fsspec.registry import known_implementations

from memfs import errors
from memfs.extras import missing_backend
from memfs.paths import is_canonical, is_reserved, normalize
from memfs.stores.host import TEMP_PREFIX
from memfs.stores.local import LocalFileStore

SPECIALISED: list[tuple[Callable[[fsspec.AbstractFileSystem], bool], type[FsspecFileStore]]] = []
"""``(is_mine, store class)`` of the backends with rules of their own (:mod:`memfs.stores.s3`
adds itself); the first whose test accepts a filesystem gets it."""


def _url_to_fs(url: str, **options: Any) -> tuple[fsspec.AbstractFileSystem, str]:
    """fsspec's filesystem for ``url``; a backend that is not installed (``gcsfs`` for ``gs://``)
    is a :class:`~memfs.errors.MissingPackageError` naming what to install."""
    try:
        return fsspec.core.url_to_fs(url, **options)  # type: ignore[no-any-return]
    except ImportError as e:
        protocol = url.split("://", 1)[0].split("::")[-1]
        spec = known_implementations.get(protocol, {}).get("class", "")
        package = spec.split(".")[0] or (e.name or "").split(".")[0]
        if not package:
            raise
        raise missing_backend(package, protocol) from None


class FsspecFileStore:
    """A workspace under ``root`` of an fsspec filesystem; writes are one ``pipe_file`` call.

    Several processes ("pods") share one S3 prefix, so a store built from a URL turns s3fs's
    listing cache off (``use_listings_cache=False``); pass the same option when handing in a
    filesystem object, or another pod's new files stay invisible to ``ls``/``exists``.
    """

    conditional_writes = False

    fs: fsspec.AbstractFileSystem
    root: str

    def __new__(
        cls, url_or_fs: str | fsspec.AbstractFileSystem, root: str = "", **options: Any
    ) -> Any:
        if isinstance(url_or_fs, str):
            options.setdefault("use_listings_cache", False)
            fs, url_root = _url_to_fs(url_or_fs, **options)
            root = url_root if not root else f"{url_root.rstrip('/')}/{root.strip('/')}"
        else:
            fs = url_or_fs
        if isinstance(fs, LocalFileSystem):
            return LocalFileStore(fs._strip_protocol(root) or "/")
        if cls is FsspecFileStore:
            cls = next((c for is_mine, c in SPECIALISED if is_mine(fs)), cls)
        self = object.__new__(cls)
        self.fs = fs
        self.root = root.rstrip("/")
        self._init_backend()
        return self

    def _init_backend(self) -> None:
        """Per-backend state, set when the store is built."""

    @property
    def url(self) -> str:
        """The workspace as a URL (``s3://bucket/items/42``): what a storage failure names."""
        protocol = self.fs.protocol if isinstance(self.fs.protocol, str) else self.fs.protocol[0]
        if "://" in self.root:  # a filesystem whose paths are URLs (http)
            return self.root
        return f"{protocol}://{self.root}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}('{self.url}')"

    def _full(self, path: str) -> tuple[str, str]:
        rel = normalize(path, reserved=True)
        if not rel:
            return rel, self.root
        full = f"{self.root}/{rel}" if self.root else rel
        if self._rel(full) != rel:  # e.g. a leading 's3::' that s3fs strips
            raise errors.UnsafePathError(
                path,
                "this storage backend would read it as another name (it strips or reinterprets "
                "part of it)",
                advice="Name the file differently.",
            )
        return rel, full

    def _rel(self, full: str) -> str:
        full = self.fs._strip_protocol(full).rstrip("/")
        root = self.fs._strip_protocol(self.root).rstrip("/") if self.root else ""
        if root and full.startswith(root + "/"):
            return full[len(root) + 1 :]
        return full if not root else ""

    def write(self, path: str, data: bytes) -> None:
        rel, full = self._full(path)
        if not rel or self.fs.isdir(full):
            raise errors.is_a_directory(rel)
        self.fs.pipe_file(full, bytes(data))

    def write_from_path(self, path: str, local_path: str) -> None:
        rel, full = self._full(path)
        if not rel:
            raise errors.is_a_directory(rel)
        self.fs.put_file(local_path, full)

    def read(self, path: str) -> bytes:
        rel, full = self._full(path)
        try:
            return self._read(full)
        except FileNotFoundError:
            if rel == "" or self.fs.isdir(full):
                raise errors.is_a_directory(rel) from None
            raise errors.not_found(rel) from None
        except IsADirectoryError:
            raise errors.is_a_directory(rel) from None

    def _read(self, full: str) -> bytes:
        return bytes(self.fs.cat_file(full))

    def read_to_file(self, path: str, local_path: str) -> None:
        rel, full = self._full(path)
        if not self.fs.isfile(full):
            raise errors.is_a_directory(rel) if self.fs.isdir(full) else errors.not_found(rel)
        self.fs.get_file(full, local_path)

    def ls(self, path: str = "") -> list[str]:
        listed, full = self._full(path)
        try:
            found = self.fs.find(full)
        except FileNotFoundError:  # some backends raise for a missing folder; fsspec's list []
            return []
        inside = is_reserved(listed)
        out = []
        for p in found:
            rel = self._rel(p)
            # a key another tool stored under a name memfs refuses ('?', '#', a control
            # character, the reserved prefix) cannot be read through memfs: not listed; nor is
            # memfs's own area, unless the listing is of a path inside it
            if rel and is_canonical(rel, reserved=inside):
                out.append(rel)
        return sorted(out)

    def exists(self, path: str) -> bool:
        rel, full = self._full(path)
        return rel == "" or bool(self.fs.exists(full))

    def delete(self, path: str) -> None:
        rel, full = self._full(path)
        if not self.fs.isfile(full):
            raise errors.is_a_directory(rel) if self.fs.isdir(full) else errors.not_found(rel)
        self.fs.rm_file(full)

    def mkdir(self, path: str) -> None:
        rel, full = self._full(path)
        if rel and self.fs.isfile(full):
            raise errors.is_a_file(rel)
        self.fs.makedirs(full, exist_ok=True)

    def rmdir(self, path: str) -> None:
        rel, full = self._full(path)
        if not rel:
            raise errors.root_refused("removed")
        if not self.fs.exists(full):
            raise errors.not_found(rel)
        if not self.fs.isdir(full):
            raise errors.not_a_directory(rel)
        entries = self.fs.ls(full, detail=False)
        leftovers = [p for p in entries if p.rstrip("/").rsplit("/", 1)[-1].startswith(TEMP_PREFIX)]
        if len(leftovers) != len(entries):
            raise errors.not_empty(rel)
        for p in leftovers:  # what a killed writer left behind: empty as listed, so sweep it
            with contextlib.suppress(FileNotFoundError):
                self.fs.rm_file(p)
        self.fs.rmdir(full)

    def is_dir(self, path: str) -> bool:
        rel, full = self._full(path)
        return rel == "" or bool(self.fs.isdir(full))

    def listdir(self, path: str = "") -> list[str]:
        rel, full = self._full(path)
        if rel and not self.fs.isdir(full):
            raise errors.not_a_directory(rel) if self.fs.exists(full) else errors.not_found(rel)
        try:
            entries = self.fs.ls(full, detail=False)
        except FileNotFoundError:  # removed since the isdir check
            return []
        names = {self._rel(p).rsplit("/", 1)[-1] for p in entries}
        inside = is_reserved(rel)
        return sorted(n for n in names if n and is_canonical(n, reserved=inside))
