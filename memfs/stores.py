"""FileStore: the platform's storage protocol, and three backends for it.

The protocol is exactly the platform's eleven methods (the design's Phase 3 constraint): no
timestamps, no stat. Paths are workspace-relative POSIX text (``memory/x.md``; ``""`` is the
root) and every backend passes them through :func:`memfs.paths.normalize` first.

Backends:

* :class:`LocalFileStore` — a directory on disk; atomic writes, confined to its root.
* :class:`InMemoryFileStore` — a dict, for tests and ephemeral runs.
* :class:`FsspecFileStore` — any fsspec filesystem under a root prefix (``s3://bucket/ws``).

Conditional writes: each backend's ``write`` also takes two keyword-only preconditions,
``expected_sha256`` (lowercase hex sha256 of the bytes the writer read; a mismatch raises
:class:`~memfs.concurrency.PreconditionFailedError`) and ``create`` (the path must be free, else
:class:`~memfs.concurrency.PathConflictError`). They are an extension, not a twelfth method: a
platform store without them still satisfies :class:`FileStore`, and MemFS then falls back to a
process-local compare-and-write (:func:`supports_preconditions`). How each backend makes the
compare-and-write atomic is described in :mod:`memfs.concurrency`.
"""

from __future__ import annotations

import contextlib
import errno
import inspect
import os
import shutil
import stat
import threading
from typing import Any, Protocol, runtime_checkable

import fsspec
import fsspec.asyn
from fsspec.implementations.local import LocalFileSystem

from memfs.concurrency import (
    TEMP_PREFIX,
    PathConflictError,
    PreconditionFailedError,
    check_precondition,
    check_sha256,
    content_sha256,
    host_path_lock,
    read_host_file,
    write_file_atomic,
)
from memfs.paths import UnsafePathError, normalize, parent

__all__ = [
    "TEMP_PREFIX",
    "ConditionalFileStore",
    "FileStore",
    "FsspecFileStore",
    "InMemoryFileStore",
    "LocalFileStore",
    "supports_preconditions",
]


@runtime_checkable
class FileStore(Protocol):
    """The platform's FileStore. Do not add methods: the platform has exactly these."""

    def write(self, path: str, data: bytes) -> None:
        """Store ``data`` at ``path``, creating parent directories; replaces atomically.

        The built-in backends also accept ``*, expected_sha256=None, create=False``
        (see the module docstring); the platform's protocol does not require them.
        """

    def write_from_path(self, path: str, local_path: str) -> None:
        """Store the bytes of the local file ``local_path`` at ``path``."""

    def read(self, path: str) -> bytes:
        """Return the bytes stored at ``path``."""

    def read_to_file(self, path: str, local_path: str) -> None:
        """Copy the bytes stored at ``path`` into the local file ``local_path``."""

    def ls(self, path: str = "") -> list[str]:
        """Every file under ``path``, recursively, as workspace paths (``[]`` if none)."""

    def exists(self, path: str) -> bool:
        """Whether a file or directory exists at ``path``."""

    def delete(self, path: str) -> None:
        """Delete the file at ``path``."""

    def mkdir(self, path: str) -> None:
        """Create the directory ``path`` and its parents; existing directories are fine."""

    def rmdir(self, path: str) -> None:
        """Remove the empty directory ``path``."""

    def is_dir(self, path: str) -> bool:
        """Whether ``path`` is a directory (the root always is)."""

    def listdir(self, path: str = "") -> list[str]:
        """Names (not paths) of the direct children of the directory ``path``."""


@runtime_checkable
class ConditionalFileStore(FileStore, Protocol):
    """A FileStore whose ``write`` also takes the precondition keywords (all built-in ones)."""

    def write(
        self,
        path: str,
        data: bytes,
        *,
        expected_sha256: str | None = None,
        create: bool = False,
    ) -> None:
        """Store ``data``; refuse it if the stored bytes changed or (``create``) exist."""


def supports_preconditions(store: object) -> bool:
    """Whether ``store.write`` takes the ``expected_sha256`` and ``create`` keywords."""
    try:
        params = inspect.signature(store.write).parameters  # type: ignore[attr-defined]
    except (AttributeError, TypeError, ValueError):
        return False
    return "expected_sha256" in params and "create" in params


def _expected(expected_sha256: str | None) -> str | None:
    return None if expected_sha256 is None else check_sha256(expected_sha256)


def _not_found(path: str) -> FileNotFoundError:
    return FileNotFoundError(
        errno.ENOENT,
        f"No such file in the workspace: {path!r}. List the directory to see what exists, "
        "or write the file to create it.",
        path,
    )


def _is_a_directory(path: str) -> IsADirectoryError:
    return IsADirectoryError(
        errno.EISDIR, f"{path!r} is a directory, not a file; name a file inside it.", path
    )


def _not_a_directory(path: str) -> NotADirectoryError:
    return NotADirectoryError(
        errno.ENOTDIR, f"{path!r} is a file, not a directory; it cannot hold other files.", path
    )


def _not_empty(path: str) -> OSError:
    return OSError(
        errno.ENOTEMPTY,
        f"Directory {path!r} is not empty; delete its files first or remove it recursively.",
        path,
    )


class LocalFileStore:
    """A workspace in a local directory: atomic writes, every path confined to ``root``.

    Every write and delete holds a per-path ``flock`` (:func:`memfs.concurrency.host_path_lock`),
    so a conditional write's compare and replace are one step for every process sharing the
    directory; data goes to a temp file that is fsynced and renamed over the target.
    """

    def __init__(self, root: str | os.PathLike[str]) -> None:
        os.makedirs(root, exist_ok=True)
        self.root = os.path.realpath(root)

    def __repr__(self) -> str:
        return f"LocalFileStore({self.root!r})"

    def _full(self, path: str) -> tuple[str, str]:
        """Normalised workspace path and its host path; refuses symlinks that leave the root."""
        rel = normalize(path)
        full = os.path.join(self.root, *rel.split("/")) if rel else self.root
        if not self._inside(full):
            raise UnsafePathError(path, "it resolves through a symlink to outside the workspace")
        return rel, full

    def _inside(self, host: str) -> bool:
        """Whether ``host`` resolves, through any symlinks, to the root or below it."""
        # The root is already real, so below it only a symlink can lead out: lstat the few
        # components under the root and resolve the whole path only when one is a link.
        # (os.path.realpath is pure Python and lstats every component from "/": it was most
        # of the cost of a memory read.)
        prefix = self.root + os.sep
        if host == self.root:
            return True
        if host.startswith(prefix):
            cur = self.root
            for seg in host[len(prefix) :].split(os.sep):
                if seg in ("", ".", ".."):
                    break
                cur = cur + os.sep + seg
                try:
                    mode = os.lstat(cur).st_mode
                except OSError:
                    return True  # missing: nothing below it can resolve anywhere else
                if stat.S_ISLNK(mode):
                    break
            else:
                return True
        real = os.path.realpath(host)
        return real == self.root or real.startswith(prefix)

    def write(
        self,
        path: str,
        data: bytes,
        *,
        expected_sha256: str | None = None,
        create: bool = False,
    ) -> None:
        rel, full = self._full(path)
        if not rel:
            raise _is_a_directory(rel)
        if os.path.isdir(full):
            raise _is_a_directory(rel)
        expected = _expected(expected_sha256)
        data = bytes(data)
        self._make_parents(rel)
        with host_path_lock(full):
            if (expected is not None or create) and check_precondition(
                rel, read_host_file(full), data, expected_sha256=expected, create=create
            ):
                return
            # Temp file beside the target + fsync + rename: readers see the old or the new bytes.
            write_file_atomic(full, data)

    def write_from_path(self, path: str, local_path: str) -> None:
        with open(local_path, "rb") as f:
            self.write(path, f.read())

    def read(self, path: str) -> bytes:
        rel, full = self._full(path)
        try:
            with open(full, "rb") as f:
                return f.read()
        except IsADirectoryError:
            raise _is_a_directory(rel) from None
        except FileNotFoundError:
            raise _not_found(rel) from None
        except NotADirectoryError:
            raise _not_found(rel) from None
        except PermissionError:
            if os.path.isdir(full):  # Windows reports a directory as access denied
                raise _is_a_directory(rel) from None
            raise

    def read_to_file(self, path: str, local_path: str) -> None:
        rel, full = self._full(path)
        if os.path.isdir(full):
            raise _is_a_directory(rel)
        if not os.path.isfile(full):
            raise _not_found(rel)
        shutil.copyfile(full, local_path)

    def ls(self, path: str = "") -> list[str]:
        rel, full = self._full(path)
        if os.path.isfile(full):
            return [rel]
        out: list[str] = []
        for dirpath, dirnames, filenames in os.walk(full):
            dirnames.sort()
            base = os.path.relpath(dirpath, self.root)
            base = "" if base == "." else base.replace(os.sep, "/")
            for name in sorted(filenames):
                # a symlink out of the root is not part of the workspace: reads refuse it
                if not name.startswith(TEMP_PREFIX) and self._inside(os.path.join(dirpath, name)):
                    out.append(f"{base}/{name}" if base else name)
        return out

    def exists(self, path: str) -> bool:
        _, full = self._full(path)
        return os.path.lexists(full) and not os.path.basename(full).startswith(TEMP_PREFIX)

    def delete(self, path: str) -> None:
        rel, full = self._full(path)
        if os.path.isdir(full):
            raise _is_a_directory(rel)
        try:
            with host_path_lock(full):
                os.unlink(full)
        except (FileNotFoundError, NotADirectoryError):
            raise _not_found(rel) from None

    def mkdir(self, path: str) -> None:
        rel, full = self._full(path)
        if os.path.isfile(full):
            raise FileExistsError(errno.EEXIST, f"{rel!r} exists and is a file.", rel)
        self._make_parents(rel + "/x" if rel else "x")

    def rmdir(self, path: str) -> None:
        rel, full = self._full(path)
        if not rel:
            raise UnsafePathError(path, "the workspace root cannot be removed")
        if not os.path.exists(full):
            raise _not_found(rel)
        if not os.path.isdir(full):
            raise _not_a_directory(rel)
        try:
            os.rmdir(full)
        except OSError as e:
            if e.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                raise
            # Empty as listed but for what a killed writer left (temp or lock files): sweep them.
            left = os.listdir(full)
            if not left or not all(n.startswith(TEMP_PREFIX) for n in left):
                raise _not_empty(rel) from None
            for name in left:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(os.path.join(full, name))
            try:
                os.rmdir(full)
            except OSError:
                raise _not_empty(rel) from None

    def is_dir(self, path: str) -> bool:
        _, full = self._full(path)
        return os.path.isdir(full)

    def listdir(self, path: str = "") -> list[str]:
        rel, full = self._full(path)
        if not os.path.exists(full):
            raise _not_found(rel)
        if not os.path.isdir(full):
            raise _not_a_directory(rel)
        return sorted(
            n
            for n in os.listdir(full)
            if not n.startswith(TEMP_PREFIX) and self._inside(os.path.join(full, n))
        )

    def _make_parents(self, rel: str) -> None:
        cur = self.root
        for seg in parent(rel).split("/") if parent(rel) else []:
            cur = os.path.join(cur, seg)
            if os.path.islink(cur) or os.path.exists(cur):
                real = os.path.realpath(cur)
                if real != self.root and not real.startswith(self.root + os.sep):
                    raise UnsafePathError(
                        rel, "it resolves through a symlink to outside the workspace"
                    )
                if not os.path.isdir(cur):
                    raise _not_a_directory(os.path.relpath(cur, self.root).replace(os.sep, "/"))
                continue
            try:
                os.mkdir(cur)
            except FileExistsError:
                if not os.path.isdir(cur):
                    raise


class InMemoryFileStore:
    """A workspace held in a dict; thread-safe, for tests and ephemeral runs."""

    def __init__(self) -> None:
        self._files: dict[str, bytes] = {}
        self._dirs: set[str] = set()
        self._lock = threading.RLock()

    def __repr__(self) -> str:
        return f"InMemoryFileStore(<{len(self._files)} files>)"

    def _is_dir(self, rel: str) -> bool:
        if rel == "" or rel in self._dirs:
            return True
        prefix = rel + "/"
        return any(p.startswith(prefix) for p in self._files)

    def write(
        self,
        path: str,
        data: bytes,
        *,
        expected_sha256: str | None = None,
        create: bool = False,
    ) -> None:
        rel = normalize(path)
        expected = _expected(expected_sha256)
        data = bytes(data)
        with self._lock:
            if self._is_dir(rel):
                raise _is_a_directory(rel)
            anc = parent(rel)
            while anc:
                if anc in self._files:
                    raise _not_a_directory(anc)
                anc = parent(anc)
            if (expected is not None or create) and check_precondition(
                rel, self._files.get(rel), data, expected_sha256=expected, create=create
            ):
                return
            self._files[rel] = data

    def write_from_path(self, path: str, local_path: str) -> None:
        with open(local_path, "rb") as f:
            self.write(path, f.read())

    def read(self, path: str) -> bytes:
        rel = normalize(path)
        with self._lock:
            if rel in self._files:
                return self._files[rel]
            if self._is_dir(rel):
                raise _is_a_directory(rel)
            raise _not_found(rel)

    def read_to_file(self, path: str, local_path: str) -> None:
        data = self.read(path)
        with open(local_path, "wb") as f:
            f.write(data)

    def ls(self, path: str = "") -> list[str]:
        rel = normalize(path)
        with self._lock:
            if rel in self._files:
                return [rel]
            prefix = rel + "/" if rel else ""
            return sorted(p for p in self._files if p.startswith(prefix))

    def exists(self, path: str) -> bool:
        rel = normalize(path)
        with self._lock:
            return rel in self._files or self._is_dir(rel)

    def delete(self, path: str) -> None:
        rel = normalize(path)
        with self._lock:
            if rel not in self._files:
                if self._is_dir(rel):
                    raise _is_a_directory(rel)
                raise _not_found(rel)
            # Like an object store: a directory that only existed through this file goes too.
            del self._files[rel]

    def mkdir(self, path: str) -> None:
        rel = normalize(path)
        with self._lock:
            cur = rel
            while cur:
                if cur in self._files:
                    raise FileExistsError(errno.EEXIST, f"{cur!r} exists and is a file.", cur)
                self._dirs.add(cur)
                cur = parent(cur)

    def rmdir(self, path: str) -> None:
        rel = normalize(path)
        with self._lock:
            if not rel:
                raise UnsafePathError(path, "the workspace root cannot be removed")
            if rel in self._files:
                raise _not_a_directory(rel)
            if not self._is_dir(rel):
                raise _not_found(rel)
            prefix = rel + "/"
            if any(p.startswith(prefix) for p in self._files) or any(
                d.startswith(prefix) for d in self._dirs
            ):
                raise _not_empty(rel)
            self._dirs.discard(rel)

    def is_dir(self, path: str) -> bool:
        rel = normalize(path)
        with self._lock:
            return self._is_dir(rel)

    def listdir(self, path: str = "") -> list[str]:
        rel = normalize(path)
        with self._lock:
            if rel in self._files:
                raise _not_a_directory(rel)
            if not self._is_dir(rel):
                raise _not_found(rel)
            prefix = rel + "/" if rel else ""
            names = {p[len(prefix) :].split("/", 1)[0] for p in self._files if p.startswith(prefix)}
            names |= {d[len(prefix) :].split("/", 1)[0] for d in self._dirs if d.startswith(prefix)}
            return sorted(names)


_PROCESS_LOCK = threading.RLock()
"""Compare-and-write on fsspec backends with no native precondition: atomic within a process."""


def _is_precondition_failure(e: BaseException) -> bool:
    """Whether an s3fs error is S3's 412 (or the 409 AWS returns for a racing conditional PUT)."""
    for err in (e, e.__cause__):
        response = getattr(err, "response", None)
        if isinstance(response, dict):
            code = str(response.get("Error", {}).get("Code", ""))
            if code in ("PreconditionFailed", "ConditionalRequestConflict", "412", "409"):
                return True
    return False


class FsspecFileStore:
    """A workspace under a root prefix of any fsspec filesystem (``s3://bucket/items/42``).

    Writes are one ``pipe_file`` call, which object stores apply atomically (a single PUT); on a
    local directory they are temp file + rename under the same per-path lock as
    :class:`LocalFileStore`. Conditional writes on S3 are ``PutObject`` with ``If-Match`` (the
    ETag of the version whose bytes hash to ``expected_sha256``) or ``If-None-Match: *``.

    Several processes ("pods") share one S3 prefix, so a store built from a URL turns s3fs's
    listing cache off (``use_listings_cache=False``); pass the same option when handing in a
    filesystem object, or another pod's new files stay invisible to ``ls``/``exists``.
    """

    def __init__(self, url_or_fs: str | fsspec.AbstractFileSystem, root: str = "", **options: Any):
        if isinstance(url_or_fs, str):
            options.setdefault("use_listings_cache", False)
            fs, url_root = fsspec.core.url_to_fs(url_or_fs, **options)
            root = url_root if not root else f"{url_root.rstrip('/')}/{root.strip('/')}"
        else:
            fs = url_or_fs
        self.fs: fsspec.AbstractFileSystem = fs
        self.root = root.rstrip("/")
        self._local = isinstance(fs, LocalFileSystem)
        self._s3 = hasattr(fs, "_call_s3") and hasattr(fs, "split_path")
        # S3 only: ETag of the last version this store read or wrote, keyed by full path, with
        # the sha256 of its bytes, so a conditional write after a read needs no second GET.
        self._etags: dict[str, tuple[str, str]] = {}
        if self._local:
            fs.makedirs(self.root, exist_ok=True)
        # On a local disk a symlink inside the root can point outside it: resolve and refuse.
        self._real_root = os.path.realpath(fs._strip_protocol(self.root)) if self._local else ""

    def __repr__(self) -> str:
        protocol = self.fs.protocol if isinstance(self.fs.protocol, str) else self.fs.protocol[0]
        return f"FsspecFileStore('{protocol}://{self.root}')"

    def _full(self, path: str) -> tuple[str, str]:
        rel = normalize(path)
        if not rel:
            return rel, self.root
        full = f"{self.root}/{rel}" if self.root else rel
        if self._local and not self._inside(full):
            raise UnsafePathError(path, "it resolves through a symlink to outside the workspace")
        return rel, full

    def _inside(self, full: str) -> bool:
        real = os.path.realpath(self.fs._strip_protocol(full))
        return real == self._real_root or real.startswith(self._real_root + os.sep)

    def _rel(self, full: str) -> str:
        full = self.fs._strip_protocol(full).rstrip("/")
        root = self.fs._strip_protocol(self.root).rstrip("/") if self.root else ""
        if root and full.startswith(root + "/"):
            return full[len(root) + 1 :]
        return full if not root else ""

    def write(
        self,
        path: str,
        data: bytes,
        *,
        expected_sha256: str | None = None,
        create: bool = False,
    ) -> None:
        rel, full = self._full(path)
        if not rel or self.fs.isdir(full):
            raise _is_a_directory(rel)
        expected = _expected(expected_sha256)
        conditional = expected is not None or create
        data = bytes(data)
        if self._local:
            self.fs.makedirs(self.fs._parent(full), exist_ok=True)
            host = self.fs._strip_protocol(full)
            with host_path_lock(host):
                if conditional and check_precondition(
                    rel, read_host_file(host), data, expected_sha256=expected, create=create
                ):
                    return
                write_file_atomic(host, data)
        elif self._s3:
            if conditional:
                self._s3_conditional_put(rel, full, data, expected, create)
            else:
                self._remember(full, data, self.fs.pipe_file(full, data))
        else:
            with _PROCESS_LOCK:
                if conditional and check_precondition(
                    rel, self._current(full), data, expected_sha256=expected, create=create
                ):
                    return
                self.fs.pipe_file(full, data)

    def _current(self, full: str) -> bytes | None:
        try:
            return bytes(self.fs.cat_file(full))
        except FileNotFoundError:
            return None

    # -- S3 conditional writes --------------------------------------------------------------------

    def _s3_get(self, full: str) -> tuple[bytes, str]:
        """One GET returning the bytes and the ETag of the same version."""
        bucket, key, _ = self.fs.split_path(full)
        s3: Any = self.fs

        async def get() -> tuple[bytes, str]:
            resp = await s3._call_s3("get_object", Bucket=bucket, Key=key)
            body = resp["Body"]
            try:
                data = await body.read()
            finally:
                body.close()
            return bytes(data), str(resp.get("ETag", ""))

        data, etag = fsspec.asyn.sync(s3.loop, get)
        self._etags[full] = (content_sha256(data), etag)
        return data, etag

    def _remember(self, full: str, data: bytes, response: Any) -> None:
        etag = response.get("ETag") if isinstance(response, dict) else None
        if etag:
            self._etags[full] = (content_sha256(data), str(etag))
        else:
            self._etags.pop(full, None)

    def _s3_current(self, full: str) -> bytes | None:
        try:
            return self._s3_get(full)[0]
        except FileNotFoundError:
            self._etags.pop(full, None)
            return None

    def _s3_conditional_put(
        self, rel: str, full: str, data: bytes, expected: str | None, create: bool
    ) -> None:
        if create:
            try:
                response = self.fs.pipe_file(full, data, mode="create")  # If-None-Match: *
            except OSError as e:
                if not isinstance(e, FileExistsError) and not _is_precondition_failure(e):
                    raise
                current = self._s3_current(full)
                actual = None if current is None else content_sha256(current)
                raise PathConflictError(rel, None, actual) from None
            self._remember(full, data, response)
            return
        assert expected is not None
        known = self._etags.get(full)
        if known is not None and known[0] == expected:
            etag = known[1]
        else:
            current = self._s3_current(full)
            if check_precondition(rel, current, data, expected_sha256=expected, create=False):
                return
            etag = self._etags[full][1]
        try:
            response = self.fs.pipe_file(full, data, IfMatch=etag)
        except OSError as e:
            if not isinstance(e, FileNotFoundError) and not _is_precondition_failure(e):
                raise
            current = self._s3_current(full)
            if check_precondition(rel, current, data, expected_sha256=expected, create=False):
                return  # lost the race to a writer that stored the very same bytes
            raise PreconditionFailedError(
                rel, expected, None if current is None else content_sha256(current)
            ) from None
        self._remember(full, data, response)

    def write_from_path(self, path: str, local_path: str) -> None:
        rel, full = self._full(path)
        if not rel:
            raise _is_a_directory(rel)
        if self._local:
            with open(local_path, "rb") as f:
                self.write(path, f.read())
            return
        self._etags.pop(full, None)
        self.fs.put_file(local_path, full)

    def read(self, path: str) -> bytes:
        rel, full = self._full(path)
        try:
            if self._s3:
                return self._s3_get(full)[0]
            return bytes(self.fs.cat_file(full))
        except FileNotFoundError:
            if rel == "" or self.fs.isdir(full):
                raise _is_a_directory(rel) from None
            raise _not_found(rel) from None
        except IsADirectoryError:
            raise _is_a_directory(rel) from None

    def read_to_file(self, path: str, local_path: str) -> None:
        rel, full = self._full(path)
        if not self.fs.isfile(full):
            raise _is_a_directory(rel) if self.fs.isdir(full) else _not_found(rel)
        self.fs.get_file(full, local_path)

    def ls(self, path: str = "") -> list[str]:
        _, full = self._full(path)
        try:
            found = self.fs.find(full)
        except FileNotFoundError:
            return []
        out = []
        for p in found:
            rel = self._rel(p)
            if rel and not rel.rsplit("/", 1)[-1].startswith(TEMP_PREFIX):
                if self._local and not self._inside(p):
                    continue  # reached through a symlink that leaves the workspace
                out.append(rel)
        return sorted(out)

    def exists(self, path: str) -> bool:
        rel, full = self._full(path)
        return rel == "" or bool(self.fs.exists(full))

    def delete(self, path: str) -> None:
        rel, full = self._full(path)
        if not self.fs.isfile(full):
            raise _is_a_directory(rel) if self.fs.isdir(full) else _not_found(rel)
        self._etags.pop(full, None)
        if self._local:
            host = self.fs._strip_protocol(full)
            try:
                with host_path_lock(host):
                    os.unlink(host)
            except (FileNotFoundError, NotADirectoryError):
                raise _not_found(rel) from None
            return
        self.fs.rm_file(full)

    def mkdir(self, path: str) -> None:
        rel, full = self._full(path)
        if rel and self.fs.isfile(full):
            raise FileExistsError(errno.EEXIST, f"{rel!r} exists and is a file.", rel)
        self.fs.makedirs(full, exist_ok=True)

    def rmdir(self, path: str) -> None:
        rel, full = self._full(path)
        if not rel:
            raise UnsafePathError(path, "the workspace root cannot be removed")
        if not self.fs.exists(full):
            raise _not_found(rel)
        if not self.fs.isdir(full):
            raise _not_a_directory(rel)
        entries = self.fs.ls(full, detail=False)
        leftovers = [p for p in entries if p.rstrip("/").rsplit("/", 1)[-1].startswith(TEMP_PREFIX)]
        if len(leftovers) != len(entries):
            raise _not_empty(rel)
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
            raise _not_a_directory(rel) if self.fs.exists(full) else _not_found(rel)
        try:
            entries = self.fs.ls(full, detail=False)
        except FileNotFoundError:
            return []
        if self._local:
            entries = [p for p in entries if self._inside(p)]
        names = {self._rel(p).rsplit("/", 1)[-1] for p in entries}
        return sorted(n for n in names if n and not n.startswith(TEMP_PREFIX))
