"""Optimistic concurrency for workspace writes: content hashes, conflict errors, bounded retry.

Two turns of the same item can edit the same memory at once; without a guard the later write
silently wins (seed §8, Appendix B③). The guard is the one Managed Agents uses: a write may
carry the ``content_sha256`` of the bytes it was computed from, and the store refuses it when
the stored bytes have changed since. Creating a file that already exists with "create"
semantics is refused the same way. Writing exactly the bytes that are already stored is never a
conflict: nothing would be lost, and a retried write whose first attempt landed must succeed.

How each backend makes compare-and-write atomic:

* :class:`~memfs.stores.LocalFileStore` (and :class:`~memfs.stores.FsspecFileStore` on a local
  directory): every write and delete of a path holds an exclusive ``flock`` on a lock file beside
  it (:func:`host_path_lock`), across threads and processes; the write itself is temp file +
  rename, so readers never need the lock.
* :class:`~memfs.stores.InMemoryFileStore`: its own lock.
* :class:`~memfs.stores.FsspecFileStore` on S3: ``PutObject`` with ``If-Match: <etag>`` for an
  expected hash and ``If-None-Match: *`` for a create, so the server decides atomically.
* any other fsspec filesystem: a process-wide lock (compare-and-write is atomic only among the
  writers of one process).

:func:`update_with_retry` is the read → change → conditional write loop that ``edit_file`` and
index edits use.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import hashlib
import os
import random
import re
import threading
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memfs.filesystem import MemFS

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no flock
    fcntl = None  # type: ignore[assignment]

TEMP_PREFIX = ".memfs-tmp-"
"""Name prefix of in-flight atomic writes and of lock files; listings never show these."""

DEFAULT_ATTEMPTS = 8
"""Read → change → write rounds :func:`update_with_retry` tries before giving up."""

_SHA256 = re.compile(r"[0-9a-fA-F]{64}")


def content_sha256(data: bytes) -> str:
    """Lowercase hex sha256 of stored bytes: the value a write's precondition names."""
    return hashlib.sha256(data).hexdigest()


def check_sha256(value: str) -> str:
    """``value`` as lowercase hex, or ValueError saying what an expected hash looks like."""
    if not isinstance(value, str) or not _SHA256.fullmatch(value):
        raise ValueError(
            f"expected_sha256 must be the 64-digit hex sha256 of the stored bytes, got {value!r}. "
            "Hash the raw bytes you read (memfs.concurrency.content_sha256) and pass that."
        )
    return value.lower()


class WriteConflictError(FileExistsError):
    """A conditional write was refused because the stored file is not what the writer assumed.

    ``expected_sha256`` is what the writer assumed (None for a create), ``actual_sha256`` what is
    stored now (None when the file does not exist or the store could not tell).
    """

    def __init__(
        self,
        path: str,
        expected_sha256: str | None,
        actual_sha256: str | None,
        message: str | None = None,
    ) -> None:
        self.path = path
        self.expected_sha256 = expected_sha256
        self.actual_sha256 = actual_sha256
        super().__init__(errno.EEXIST, message or self.describe(), path)

    def describe(self) -> str:
        return f"Write to {self.path!r} refused: the stored file changed."

    def __reduce__(self) -> tuple[object, ...]:
        # OSError pickles as (errno, strerror, filename); rebuild with our own arguments so the
        # error survives a trip between processes.
        return (type(self), (self.path, self.expected_sha256, self.actual_sha256, self.strerror))


def _stored(actual: str | None) -> str:
    return f"stored now: {actual}" if actual else "the file does not exist any more"


class PreconditionFailedError(WriteConflictError):
    """The stored bytes no longer hash to the write's ``expected_sha256``."""

    def describe(self) -> str:
        return (
            f"Write to {self.path!r} refused: the file changed since it was read (expected "
            f"content sha256 {self.expected_sha256}, {_stored(self.actual_sha256)}). Nothing was "
            "written. Read the file again, apply the change to its current content and write "
            "with the new hash."
        )


class PathConflictError(WriteConflictError):
    """A create (``mode="create"``) found a file already at the path."""

    def describe(self) -> str:
        sha = f" (content sha256 {self.actual_sha256})" if self.actual_sha256 else ""
        return (
            f"Cannot create {self.path!r}: a file already exists there{sha}, probably written by "
            "another turn. Nothing was written. Read it and edit it instead."
        )


class UpdateConflictError(WriteConflictError):
    """:func:`update_with_retry` lost the race on every attempt."""

    def __init__(
        self,
        path: str,
        expected_sha256: str | None,
        actual_sha256: str | None,
        message: str | None = None,
        *,
        attempts: int = 0,
    ) -> None:
        self.attempts = attempts
        super().__init__(path, expected_sha256, actual_sha256, message)

    def describe(self) -> str:
        return (
            f"Edit of {self.path!r} gave up after {self.attempts} attempts: another turn kept "
            "changing the file between this edit's read and its write. Nothing was written by "
            "this edit. Read the file again and retry the edit."
        )


def check_precondition(
    path: str,
    current: bytes | None,
    data: bytes,
    *,
    expected_sha256: str | None,
    create: bool,
) -> bool:
    """Decide a conditional write against the ``current`` stored bytes (None: no file).

    Raises the conflict error; returns True when a hash-conditioned write finds ``data``
    already stored (a no-op that succeeds), False when the caller should write. A create is
    refused whenever the path is taken, even by the same bytes (fsspec's ``mode="create"``).
    """
    if create:
        if current is not None:
            raise PathConflictError(path, None, content_sha256(current))
        return False
    if expected_sha256 is None:
        return False
    if current is not None and current == data:
        return True
    actual = None if current is None else content_sha256(current)
    if actual != expected_sha256:
        raise PreconditionFailedError(path, expected_sha256, actual)
    return False


# -- the local lock --------------------------------------------------------------------------------


def _suffix(name: str) -> str:
    # A hash, not the name: the target's name may already use the whole 255-byte segment limit.
    return hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:20]


def temp_path_for(target: str) -> str:
    """The one in-flight temp file for ``target`` (used only while its lock is held)."""
    head, name = os.path.split(target)
    return os.path.join(head, f"{TEMP_PREFIX}{_suffix(name)}")


def lock_path_for(target: str) -> str:
    head, name = os.path.split(target)
    return os.path.join(head, f"{TEMP_PREFIX}{_suffix(name)}.lock")


_THREAD_LOCKS: dict[str, threading.Lock] = {}
_THREAD_LOCKS_GUARD = threading.Lock()


@contextlib.contextmanager
def host_path_lock(target: str) -> Iterator[None]:
    """Hold an exclusive lock on the host file ``target`` across threads and processes.

    The lock is ``flock`` on ``<dir>/.memfs-tmp-<hash>.lock``; the lock file is removed on
    release so none accumulate. Removing a flock file is racy unless a waiter checks, once it has
    the lock, that the file it locked is still the one at the path — it does, and starts over if
    not. A process killed while holding the lock loses it with its file descriptors; the stale
    file it leaves is locked, reused and removed by the next writer. Without ``fcntl``
    (Windows) the lock is only process-wide.
    """
    if fcntl is None:  # pragma: no cover
        with _THREAD_LOCKS_GUARD:
            lock = _THREAD_LOCKS.setdefault(target, threading.Lock())
        with lock:
            yield
        return
    lock_path = lock_path_for(target)
    while True:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            held = os.fstat(fd)
            try:
                now = os.stat(lock_path)
            except FileNotFoundError:
                now = None
        except BaseException:
            os.close(fd)
            raise
        if now is not None and (now.st_ino, now.st_dev) == (held.st_ino, held.st_dev):
            break
        os.close(fd)  # the holder before us removed this file; lock the new one
    try:
        yield
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(lock_path)
        os.close(fd)


def write_file_atomic(target: str, data: bytes, *, durable: bool = True) -> None:
    """Replace the host file ``target`` with ``data``: temp file beside it, then rename.

    Call with :func:`host_path_lock` held for ``target``: the temp name is fixed per target, so
    a writer killed mid-write leaves at most one temp file, which the next write reuses.
    ``durable`` fsyncs the data and the directory (survives power loss, not only a crash).
    """
    tmp = temp_path_for(target)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0), 0o644)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except BaseException:  # a full disk, say: the target keeps its old bytes, no temp stays
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    if durable:
        fsync_dir(os.path.dirname(target))


def fsync_dir(dirpath: str) -> None:
    try:
        fd = os.open(dirpath, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def read_host_file(target: str) -> bytes | None:
    """The bytes of the host file ``target``, or None when there is none."""
    try:
        with open(target, "rb") as f:
            return f.read()
    except (FileNotFoundError, NotADirectoryError):
        return None


# -- read → change → conditional write ----------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class UpdateResult:
    """What :func:`update_with_retry` did: the path, the rounds it took, whether it created."""

    path: str
    attempts: int
    created: bool


Sleep = Callable[[float], None]


def update_with_retry(
    fs: MemFS,
    path: str,
    change: Callable[[bytes | None], bytes],
    *,
    attempts: int = DEFAULT_ATTEMPTS,
    sleep: Sleep = time.sleep,
    rng: random.Random | None = None,
    base_delay: float = 0.002,
    max_delay: float = 0.1,
) -> UpdateResult:
    """Apply ``change`` to the stored bytes of ``path`` without losing a concurrent update.

    Each round reads the raw stored bytes (None when the file does not exist), calls
    ``change`` on them and writes the result with the read's hash as precondition (or as a
    create when there was no file). When another writer got in between, the round is repeated
    on the new content after a short jittered back-off, up to ``attempts`` rounds; then
    :class:`UpdateConflictError` is raised and nothing of this update is stored. ``change``
    may raise (e.g. the text to replace is gone) to abort; it may be called several times.
    """
    if attempts < 1:
        raise ValueError(f"attempts must be at least 1, got {attempts}.")
    raw = fs.raw
    rng = rng or random.Random()
    last: WriteConflictError | None = None
    for attempt in range(1, attempts + 1):
        try:
            current: bytes | None = raw.cat_file(path)
        except FileNotFoundError:
            current = None
        new = change(current)
        try:
            if current is None:
                raw.pipe_file(path, new, mode="create")
            else:
                raw.pipe_file(path, new, expected_sha256=content_sha256(current))
        except WriteConflictError as e:
            last = e
            if attempt < attempts:
                sleep(rng.uniform(0, min(max_delay, base_delay * 2**attempt)))
            continue
        return UpdateResult(path=path, attempts=attempt, created=current is None)
    assert last is not None
    raise UpdateConflictError(
        last.path, last.expected_sha256, last.actual_sha256, attempts=attempts
    ) from last
