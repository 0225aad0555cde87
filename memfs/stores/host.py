"""Host-file I/O for stores on a local disk: per-path locks and atomic replacement.

Every write and delete of a path holds an exclusive ``flock`` on a lock file beside it
(:func:`host_path_lock`), across threads and processes, so a conditional write's compare and
replace are one step for every process sharing the directory; the write itself is temp file +
fsync + rename (:func:`write_file_atomic`), so readers never need the lock.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
from collections.abc import Iterator

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no flock
    fcntl = None  # type: ignore[assignment]

TEMP_PREFIX = ".memfs-tmp-"
"""Name prefix of in-flight atomic writes and of lock files; listings never show these."""


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


def write_file_atomic(target: str, data: bytes) -> None:
    """Replace the host file ``target`` with ``data``: temp file beside it, fsync, rename.

    Call with :func:`host_path_lock` held for ``target``: the temp name is fixed per target, so
    a writer killed mid-write leaves at most one temp file, which the next write reuses. The
    data and the directory are fsynced, so the write survives power loss, not only a crash.
    """
    tmp = temp_path_for(target)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0), 0o644)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except BaseException:  # a full disk, say: the target keeps its old bytes, no temp stays
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
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
