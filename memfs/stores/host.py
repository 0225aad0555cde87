"""Host-file I/O for stores on a local disk, always relative to an open directory.

Every function takes the descriptor of a directory the caller already opened (walking from the
workspace root one component at a time with ``O_NOFOLLOW``, see
:class:`~memfs.stores.local.LocalFileStore`) and one name inside it. Nothing here looks a path
up from the root, so a symlink swapped in after a check cannot redirect a read, a write, a
rename or an unlink.

* :func:`path_lock` — an exclusive ``flock`` per target, across threads and processes, so a
  conditional write's compare and replace are one step for every process sharing the directory.
* :func:`replace_file` — temp file beside the target, fsync, rename over it, fsync the
  directory; readers never need the lock. Its two halves, :func:`write_temp` and
  :func:`install_temp`, let a store write and sync two temp files before putting them in place
  in the order they must land;
  :func:`rename_temp` and :func:`sync_dir`, the two halves of the second, let several renames
  in one directory share its sync.
* :func:`read_regular` — read a file only if it is a regular file with one link (checked
  before it is opened and again after the read).

Temp and lock files live under :data:`~memfs.paths.RESERVED_PREFIX`, a name no workspace path
may use, so no agent can write, read, delete or list one. A temp file's name ends in a random
token and is created ``O_CREAT | O_EXCL | O_NOFOLLOW``: nothing planted at a guessed name is
ever opened. A lock file's name must be the same in every process, so it is derived from the
target's name; it is opened ``O_NOFOLLOW`` and anything but a regular file there is removed,
never followed.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import secrets
import stat
import threading
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

from memfs import errors
from memfs.paths import RESERVED_PREFIX

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: LocalFileStore refuses to start there
    fcntl = None  # type: ignore[assignment]

TEMP_PREFIX = RESERVED_PREFIX
"""Name prefix of in-flight atomic writes and of lock files; listings never show these."""

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_NOCTTY = getattr(os, "O_NOCTTY", 0)
DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _NOFOLLOW | _CLOEXEC
"""Open a directory, and nothing else: a symlink fails (ENOTDIR or ELOOP), never followed."""
_READ_FLAGS = os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _NOCTTY | _CLOEXEC
_LOCK_FLAGS = os.O_RDWR | _NOFOLLOW | _NONBLOCK | _NOCTTY | _CLOEXEC


def platform_supported() -> bool:
    """Whether this host can open files relative to a directory without following links."""
    return bool(_NOFOLLOW) and os.open in os.supports_dir_fd and fcntl is not None


def _suffix(name: str) -> str:
    # A hash, not the name: the target's name may already use the whole 255-byte segment limit.
    return hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:20]


def lock_name(name: str) -> str:
    """The lock file of the entry ``name``, in the same directory."""
    return f"{TEMP_PREFIX}{_suffix(name)}.lock"


def _temp_stem(name: str) -> str:
    return f"{TEMP_PREFIX}{_suffix(name)}-"


def temp_name(name: str) -> str:
    """A fresh, unguessable temp name for a write of the entry ``name``."""
    return _temp_stem(name) + secrets.token_hex(8)


def lock_path_for(target: str) -> str:
    """The host path of the lock file for the host file ``target``."""
    head, name = os.path.split(target)
    return os.path.join(head, lock_name(name))


def listable(st: os.stat_result) -> bool:
    """Whether a listing shows a file with this ``lstat``: regular, with a single link."""
    return stat.S_ISREG(st.st_mode) and st.st_nlink == 1


def refuse_unless_regular(st: os.stat_result, rel: str) -> None:
    """Raise the refusal for anything at ``rel`` but a regular file with one link."""
    mode = st.st_mode
    if stat.S_ISREG(mode):
        # 0 is a descriptor whose file a concurrent write has just replaced: the old version
        if st.st_nlink > 1:
            raise errors.hard_linked(rel, st.st_nlink)
        return
    if stat.S_ISDIR(mode):
        raise errors.is_a_directory(rel)
    if stat.S_ISLNK(mode):
        raise errors.is_a_symlink(rel)
    raise errors.not_a_regular_file(rel, mode)


def lstat_at(dir_fd: int, name: str) -> os.stat_result | None:
    """``lstat`` of ``name`` in ``dir_fd``, or None when there is no such entry."""
    try:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except (FileNotFoundError, NotADirectoryError):
        return None


def _read_checked(
    dir_fd: int, name: str, rel: str
) -> tuple[bytes, os.stat_result, os.stat_result] | None:
    """The bytes of ``name`` in ``dir_fd`` (workspace path ``rel``), its ``lstat`` before the
    open and the descriptor's ``fstat`` after the read; None if absent.

    The entry is checked before it is opened, so a FIFO, socket or device is never opened (an
    open could block or have side effects); the descriptor is checked again after the read,
    because the entry may have been replaced in between (opened ``O_NONBLOCK``, so a FIFO
    swapped in cannot block the read)."""
    st = lstat_at(dir_fd, name)
    if st is None:
        return None
    refuse_unless_regular(st, rel)
    try:
        fd = os.open(name, _READ_FLAGS, dir_fd=dir_fd)
    except FileNotFoundError:
        return None
    except OSError as e:
        if e.errno in (errno.ELOOP, errno.EMLINK):  # swapped for a link since the lstat
            raise errors.is_a_symlink(rel) from None
        raise
    try:
        try:
            want = st.st_size + 1
            data = os.read(fd, want)
            if len(data) == want:  # it grew since the lstat (a short read is its end)
                data = _read_rest(fd, data)
        except OSError:
            refuse_unless_regular(os.fstat(fd), rel)  # a FIFO or a device swapped in
            raise
        after = os.fstat(fd)
    finally:
        os.close(fd)
    refuse_unless_regular(after, rel)
    return data, st, after


def version_of(st: os.stat_result) -> tuple[int, ...]:
    """A token that changes whenever the file's content can have changed: an atomic replace
    gives a new inode, and any write in place moves the change time, which no caller can set."""
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _read_rest(fd: int, first: bytes) -> bytes:
    """``first`` and every byte after it to the end of the open file ``fd``."""
    parts = [first]
    while chunk := os.read(fd, 1 << 20):
        parts.append(chunk)
    return b"".join(parts)


def read_regular(dir_fd: int, name: str, rel: str) -> bytes | None:
    """The bytes of ``name`` in ``dir_fd`` if it is a regular file with one link; None if absent."""
    got = _read_checked(dir_fd, name, rel)
    return None if got is None else got[0]


def read_regular_versioned(
    dir_fd: int, name: str, rel: str
) -> tuple[bytes, tuple[int, ...] | None] | None:
    """:func:`read_regular` and the version read: the entry's before the open, if the
    descriptor's after the read is the same (None if the file was replaced or written since)."""
    got = _read_checked(dir_fd, name, rel)
    if got is None:
        return None
    data, before, after = got
    version = version_of(before)
    return data, version if version_of(after) == version else None


@contextlib.contextmanager
def path_lock(dir_fd: int, name: str) -> Iterator[None]:
    """Hold an exclusive lock on the entry ``name`` of ``dir_fd`` across threads and processes.

    The lock is ``flock`` on ``lock_name(name)`` beside it, removed on release so none
    accumulate. Removing a flock file is racy unless a waiter checks, once it has the lock, that
    the file it locked is still the one at the name — it does, and starts over if not. A process
    killed while holding the lock loses it with its descriptors; the lock file it leaves tells
    the next holder to remove the temp files the killed writer may have left for this target.
    """
    assert fcntl is not None
    lock = lock_name(name)
    found = False
    planted = 0
    while True:
        try:
            fd = os.open(lock, _LOCK_FLAGS | os.O_CREAT | os.O_EXCL, 0o600, dir_fd=dir_fd)
        except FileExistsError:
            found = True
            try:
                fd = os.open(lock, _LOCK_FLAGS, dir_fd=dir_fd)
            except FileNotFoundError:
                continue  # released between the two opens
            except OSError as e:
                if e.errno not in (errno.ELOOP, errno.EMLINK, errno.ENXIO) or planted > 2:
                    raise
                planted += 1  # a link or a socket where the lock file goes: remove it, unfollowed
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(lock, dir_fd=dir_fd)
                continue
        try:
            held = os.fstat(fd)
            if not stat.S_ISREG(held.st_mode):  # a FIFO or socket planted at the lock's name
                if planted > 2:
                    raise errors.not_a_regular_file(lock, held.st_mode)
                planted += 1
                os.close(fd)
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(lock, dir_fd=dir_fd)
                continue
            fcntl.flock(fd, fcntl.LOCK_EX)
            now = lstat_at(dir_fd, lock)
        except BaseException:
            with contextlib.suppress(OSError):
                os.close(fd)
            raise
        if now is not None and (now.st_ino, now.st_dev) == (held.st_ino, held.st_dev):
            break
        os.close(fd)  # the holder before us removed this file; lock the new one
    try:
        if found:
            sweep_temps(dir_fd, name)
        yield
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(lock, dir_fd=dir_fd)
        os.close(fd)


def sweep_temps(dir_fd: int, name: str) -> None:
    """Remove the temp files of writes of ``name`` (call with its lock held: all are stale)."""
    stem = _temp_stem(name)
    with os.scandir(dir_fd) as entries:
        stale = [e.name for e in entries if e.name.startswith(stem)]
    for tmp in stale:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp, dir_fd=dir_fd)


def sweep_abandoned(dir_fd: int) -> int:
    """Remove the temp and lock files of writers that died in the directory ``dir_fd``; how
    many. A leftover is provably abandoned when its target's lock can be taken without waiting:
    every temp file is written with that lock held, and a killed process's ``flock`` is
    released with its descriptors, so no clock or process id is trusted. A lock a live writer
    holds is skipped, and so are its temp files."""
    with os.scandir(dir_fd) as entries:
        names = [e.name for e in entries if e.name.startswith(TEMP_PREFIX)]
    suffixes = {n[len(TEMP_PREFIX) :].removesuffix(".lock").partition("-")[0] for n in names}
    removed = 0
    for suffix in sorted(suffixes):
        lock = f"{TEMP_PREFIX}{suffix}.lock"
        fd = _try_lock(dir_fd, lock)
        if fd is None:
            continue  # a live writer holds it
        try:
            stem = f"{TEMP_PREFIX}{suffix}-"
            for name in names:
                if name.startswith(stem) or name == lock:
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(name, dir_fd=dir_fd)
                        removed += 1
            with contextlib.suppress(FileNotFoundError):
                os.unlink(lock, dir_fd=dir_fd)  # made here to take it, if there was none
        finally:
            os.close(fd)
    return removed


def _try_lock(dir_fd: int, lock: str) -> int | None:
    """A descriptor holding the lock file ``lock`` (made if missing), or None when another
    process holds it, it is not a regular file, or it cannot be made (a full disk)."""
    assert fcntl is not None
    try:
        fd = os.open(lock, _LOCK_FLAGS | os.O_CREAT, 0o600, dir_fd=dir_fd)
    except OSError:
        return None
    try:
        held = os.fstat(fd)
        if stat.S_ISREG(held.st_mode):
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            now = lstat_at(dir_fd, lock)
            if now is not None and (now.st_ino, now.st_dev) == (held.st_ino, held.st_dev):
                return fd
    except OSError:
        pass  # held by a live writer
    os.close(fd)
    return None


def replace_file(dir_fd: int, name: str, data: bytes, mode: int) -> None:
    """Replace ``name`` in ``dir_fd`` with ``data``: temp file beside it, fsync, rename.

    Call with :func:`path_lock` held for ``name``. The temp file is created exclusively, never
    through a link, with exactly ``mode`` whatever the umask. The data and the directory are
    fsynced, so the write survives power loss, not only a crash.
    """
    install_temp(dir_fd, write_temp(dir_fd, name, data, mode), name)


def write_temp(dir_fd: int, name: str, data: bytes, mode: int) -> str:
    """The first half of :func:`replace_file`: ``data`` in a fresh temp file beside ``name``,
    fsynced; the temp file's name (:func:`install_temp` puts it in place). Call with
    :func:`path_lock` held for ``name``; on a failure no temp file stays."""
    tmp, fd = open_temp(dir_fd, name, data, mode)
    try:
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    except BaseException:  # a full disk, say: the target keeps its old bytes, no temp stays
        discard_temp(dir_fd, tmp)
        raise
    return tmp


def open_temp(dir_fd: int, name: str, data: bytes, mode: int) -> tuple[str, int]:
    """:func:`write_temp` but for the fsync: the temp file's name and its descriptor, still
    open, its bytes written and not yet durable (:func:`fsync_each` several at once, then close
    each). On a failure no temp file stays."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC
    for attempt in range(3):
        tmp = temp_name(name)
        try:
            fd = os.open(tmp, flags, mode, dir_fd=dir_fd)
            break
        except FileExistsError:  # something planted at a name we drew: never open it, draw again
            if attempt == 2:
                raise
    try:
        os.fchmod(fd, mode)  # the umask does not decide who may read memory
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    except BaseException:  # a full disk, say: the target keeps its old bytes, no temp stays
        os.close(fd)
        discard_temp(dir_fd, tmp)
        raise
    return tmp, fd


def fsync_each(fds: Sequence[int]) -> list[OSError | None]:
    """fsync every descriptor of ``fds`` at once, and each one's error (None: synced), in
    order, once all have ended.

    One fsync waits for the file system's journal to commit; several issued together share
    commits (here, two new files fsynced together took a median 0.7 ms against 1.6 ms one after
    the other, four 1.0 against 5.8 ms). So all but the first run on helper threads, kept for
    the process's life (started at the first group, so a start-up pays nothing), while this
    thread syncs the first; the GIL is released for each."""
    if len(fds) < 2:
        return [_fsync(fd) for fd in fds]
    pool = _fsync_pool()
    pending = [pool.submit(_fsync, fd) for fd in fds[1:]]
    first = _fsync(fds[0])
    return [first, *(f.result() for f in pending)]


def sync_dirs(dir_fds: Sequence[int]) -> None:
    """:func:`sync_dir` of each of ``dir_fds``, at once (as :func:`fsync_each`)."""
    fsync_each(dir_fds)  # a directory that cannot be synced keeps what it can: errors dropped


def _fsync(fd: int) -> OSError | None:
    try:
        os.fsync(fd)  # looked up at each call: a test may stand between the store and os
    except OSError as e:
        return e
    return None


_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _fsync_pool() -> ThreadPoolExecutor:
    """The threads :func:`fsync_each` syncs on: a few, made at the first use."""
    global _pool
    with _pool_lock:
        if _pool is None:
            from concurrent.futures import ThreadPoolExecutor

            _pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="memfs-fsync")
        return _pool


def _forget_pool() -> None:
    """In a forked child: the parent's threads are not there, so make new ones when needed."""
    global _pool, _pool_lock
    _pool, _pool_lock = None, threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)


def install_temp(dir_fd: int, tmp: str, name: str) -> None:
    """The second half of :func:`replace_file`: rename ``tmp`` over ``name``, then fsync the
    directory, so the new entry survives a power cut."""
    rename_temp(dir_fd, tmp, name)
    sync_dir(dir_fd)


def rename_temp(dir_fd: int, tmp: str, name: str) -> None:
    """Rename ``tmp`` over ``name``, not yet durable: :func:`sync_dir` of ``dir_fd`` makes it
    so (one sync for every rename and unlink made in that directory before it)."""
    try:
        os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        discard_temp(dir_fd, tmp)
        raise


def sync_dir(dir_fd: int) -> None:
    """fsync the directory ``dir_fd``, so the entries renamed or unlinked in it survive a power
    cut (a file system that cannot sync a directory keeps what it can: the error is dropped)."""
    with contextlib.suppress(OSError):
        os.fsync(dir_fd)


def discard_temp(dir_fd: int, tmp: str) -> None:
    """Remove a temp file that will not be put in place."""
    with contextlib.suppress(OSError):
        os.unlink(tmp, dir_fd=dir_fd)
