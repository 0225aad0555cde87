"""A workspace in a local directory, walked one directory descriptor at a time.

Every operation opens the root, then each directory on the way with ``O_DIRECTORY |
O_NOFOLLOW`` relative to the one before, and acts on the last name relative to that
descriptor: reads, writes, listings, renames and unlinks never look a path up by name after it
was checked, so a symlink swapped in by a concurrent process cannot redirect them. What memfs
acts on is regular files with one link, and directories; anything else met on the way — a
symlink (to anywhere), a FIFO, a socket, a device node, a file with a second hard link (it may
be an outside file) — is refused by every operation with an error that names it, and skipped
by listings, which read entry types without opening anything and never descend a link.
Errors name workspace paths only, never the host root.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Generator, Hashable, Iterable, Iterator, Sequence

from memfs import errors
from memfs.conflicts import check_delete, check_precondition, check_sha256, content_sha256
from memfs.paths import (
    MAX_PATH_BYTES,
    canonical_entry_name,
    is_canonical,
    is_reserved,
    listed_child,
    normalize,
)
from memfs.stores.host import (
    DIR_FLAGS,
    TEMP_PREFIX,
    discard_temp,
    fsync_each,
    install_temp,
    listable,
    lstat_at,
    open_temp,
    path_lock,
    platform_supported,
    read_regular,
    read_regular_versioned,
    refuse_unless_regular,
    rename_temp,
    replace_file,
    sweep_abandoned,
    sync_dir,
    sync_dirs,
    version_of,
)

DEFAULT_FILE_MODE = 0o600
DEFAULT_DIR_MODE = 0o700


class LocalFileStore:
    """A workspace in a local directory: atomic writes, every path confined to ``root``.

    Every write and delete holds a per-path ``flock`` (:func:`memfs.stores.host.path_lock`),
    so a conditional write's compare and replace are one step for every process sharing the
    directory; data goes to a temp file that is fsynced and renamed over the target. Files are
    created with ``file_mode`` and directories with ``dir_mode`` exactly, whatever the umask
    (owner-only by default, as memory can hold what a user said in confidence). ``create=False``
    refuses a root that does not exist instead of creating it; the root is only ever created
    here, so a root removed while the store is open stays removed.
    """

    conditional_writes = True
    versioned_reads = True
    moves = True
    versioned_listing = True
    batch_reads = True
    grouped_writes = True
    """Has :meth:`write_after` (two writes that must land in order, in one call),
    :meth:`write_many` and :meth:`delete_many` (writes or deletes that share one sync of each
    directory they touch), see :class:`~memfs.stores.protocol.GroupedWritesStore`."""

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        create: bool = True,
        file_mode: int = DEFAULT_FILE_MODE,
        dir_mode: int = DEFAULT_DIR_MODE,
    ) -> None:
        if not platform_supported():  # pragma: no cover - Windows
            raise RuntimeError(
                "LocalFileStore needs O_NOFOLLOW, dir_fd and flock (a POSIX host); use another "
                "FileStore on this platform."
            )
        self.file_mode = file_mode
        self.dir_mode = dir_mode
        host = os.path.abspath(os.fspath(root))
        if create:
            _make_root(host, dir_mode)
        elif not os.path.isdir(host):
            raise FileNotFoundError(
                errno.ENOENT,
                f"No workspace directory at {os.fspath(root)!r}; pass an existing directory, "
                "or create it first.",
                os.fspath(root),
            )
        self.root = os.path.realpath(host)

    def __repr__(self) -> str:
        return f"LocalFileStore({self.root!r})"

    # -- walking -----------------------------------------------------------------------------

    def _root_fd(self) -> int:
        try:
            return os.open(self.root, DIR_FLAGS)
        except (FileNotFoundError, NotADirectoryError):
            raise errors.workspace_gone() from None
        except OSError as e:
            # the root was replaced by a link: BSD and macOS answer ELOOP or EMLINK; Linux
            # answers ENOTDIR to O_DIRECTORY | O_NOFOLLOW (above), so this cannot run there
            if e.errno in (errno.ELOOP, errno.EMLINK):  # pragma: no cover - BSD/macOS only
                raise errors.workspace_gone() from None
            raise errors.host_error(e, "", "open") from None

    def _child_dir(self, fd: int, seg: str, walked: str, rel: str, create: bool) -> int | None:
        """The directory ``seg`` of ``fd`` opened without following a link, or None."""
        made = False
        for _ in range(8):  # a concurrent process may remove and re-create it in between
            try:
                child = os.open(seg, DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    return None
                try:
                    os.mkdir(seg, self.dir_mode, dir_fd=fd)
                    made = True
                except FileExistsError:
                    pass  # made concurrently; open what is there now
                else:
                    # the new entry survives a power cut only once its parent is synced, and
                    # a file written into it is only as durable as the directory holding it
                    with contextlib.suppress(OSError):
                        os.fsync(fd)
                continue
            except OSError as e:
                if e.errno not in (errno.ENOTDIR, errno.ELOOP, errno.EMLINK):
                    raise
                st = lstat_at(fd, seg)
                if st is None:
                    continue
                if stat.S_ISLNK(st.st_mode):
                    raise errors.is_a_symlink(rel, walked) from None
                if create:
                    raise errors.not_a_directory(walked) from None
                return None
            if made:
                with contextlib.suppress(OSError):
                    os.fchmod(child, self.dir_mode)  # mkdir's mode passed through the umask
            return child
        raise errors.host_error(OSError(errno.EAGAIN, "changing"), walked, "open directory")

    def _open_dir(self, rel_dir: str, rel: str, *, create: bool = False) -> int | None:
        """The directory ``rel_dir`` walked from the root, or None when part of it is missing
        (or is a file) and ``create`` is off; ``create`` makes what is missing."""
        fd = self._root_fd()
        walked = ""
        try:
            for seg in rel_dir.split("/") if rel_dir else ():
                walked = f"{walked}/{seg}" if walked else seg
                child = self._child_dir(fd, seg, walked, rel, create)
                os.close(fd)
                fd = -1
                if child is None:
                    return None
                fd = child
        except BaseException:
            if fd >= 0:
                os.close(fd)
            raise
        return fd

    def _at(
        self, rel: str, action: str, *, create: bool = False, also: tuple[str, ...] = ()
    ) -> _At:
        """``with self._at(rel, action) as at``: ``at`` is ``(descriptor of the parent
        directory, name)`` of ``rel``, or None if the parent is missing; host errors inside
        are raised again naming ``rel`` (unless they name one of ``also``, other paths the same
        operation writes)."""
        return _At(self, rel, action, create, also)

    @contextlib.contextmanager
    def _dir(self, rel: str, action: str) -> Iterator[int]:
        """Descriptor of the directory ``rel`` itself: missing, a file or a link is refused."""
        with _naming(rel, action):
            if not rel:
                fd = self._root_fd()
            else:
                with self._at(rel, action) as at:
                    if at is None:
                        raise errors.not_found(rel)
                    pfd, name = at
                    fd = self._leaf_dir(pfd, name, rel)
            try:
                yield fd
            finally:
                os.close(fd)

    def _leaf_dir(self, pfd: int, name: str, rel: str) -> int:
        st = lstat_at(pfd, name)
        if st is None:
            raise errors.not_found(rel)
        if not stat.S_ISDIR(st.st_mode):
            refuse_unless_regular(st, rel)  # a link or a special file is named as such
            raise errors.not_a_directory(rel)
        try:
            return os.open(name, DIR_FLAGS, dir_fd=pfd)
        except FileNotFoundError:
            raise errors.not_found(rel) from None
        except OSError as e:
            if e.errno not in (errno.ENOTDIR, errno.ELOOP, errno.EMLINK):
                raise
        # replaced since the lstat: say by what
        st = lstat_at(pfd, name)
        if st is None:
            raise errors.not_found(rel)
        refuse_unless_regular(st, rel)
        raise errors.not_a_directory(rel)

    # -- the protocol --------------------------------------------------------------------------

    def write(
        self,
        path: str,
        data: bytes,
        *,
        expected_sha256: str | None = None,
        create: bool = False,
    ) -> None:
        rel = normalize(path, reserved=True)
        if not rel:
            raise errors.is_a_directory(rel)
        expected = None if expected_sha256 is None else check_sha256(expected_sha256)
        data = bytes(data)
        with self._at(rel, "write", create=True) as at:
            assert at is not None
            fd, name = at
            with path_lock(fd, name):
                if _holds_already(fd, name, rel, data, expected, create):
                    return
                replace_file(fd, name, data, self.file_mode)

    def write_after(
        self,
        first: str,
        first_data: bytes,
        path: str,
        data: bytes,
        *,
        expected_sha256: str | None = None,
        create: bool = False,
    ) -> None:
        """Store ``first_data`` at ``first`` create-only, then write ``data`` to ``path`` as
        :meth:`write` does, durable in that order.

        Both temp files are written and fsynced; then ``first`` is renamed into place and its
        directory synced, and only then ``path``. So after a crash or a power cut ``path``
        never holds ``data`` unless ``first`` is stored (a version before its file).
        Both paths' locks are held throughout and both preconditions are decided before
        anything is written: a refused write (``first`` taken: PathConflictError naming it;
        ``path`` changed) stores nothing, and so does a write of the bytes ``path`` holds."""
        rel_first = normalize(first, reserved=True)
        rel = normalize(path, reserved=True)
        if not rel or not rel_first:
            raise errors.is_a_directory(rel_first if rel else rel)
        expected = None if expected_sha256 is None else check_sha256(expected_sha256)
        data, first_data = bytes(data), bytes(first_data)
        with (
            self._at(rel_first, "write", create=True, also=(rel,)) as at_first,
            self._at(rel, "write", create=True, also=(rel_first,)) as at,
        ):
            assert at_first is not None and at is not None
            (ffd, fname), (fd, name) = at_first, at
            with contextlib.ExitStack() as locks:
                # the record's lock first, named as the record's: a store that cannot take it
                # (a read-only remount) fails as a version that could not be stored
                with _naming(rel_first, "write"):
                    locks.enter_context(path_lock(ffd, fname))
                locks.enter_context(path_lock(fd, name))
                if _holds_already(fd, name, rel, data, expected, create):
                    return
                with _naming(rel_first, "write"):
                    fst = lstat_at(ffd, fname)
                    if fst is not None:
                        refuse_unless_regular(fst, rel_first)
                    taken = None if fst is None else read_regular(ffd, fname, rel_first)
                    check_precondition(
                        rel_first, taken, first_data, expected_sha256=None, create=True
                    )
                _write_in_order(
                    (ffd, fname, rel_first, first_data), (fd, name, rel, data), self.file_mode
                )

    def write_many(self, writes: Sequence[tuple[str, bytes]]) -> None:
        """Store each ``(path, data)`` create-only, all durable when this returns, with one
        sync of each directory they land in instead of one per write.

        Every path's lock is held throughout (taken in path order, as :meth:`move` does) and
        every path is checked free before anything is written: a taken one
        (PathConflictError naming it) stores nothing. Then every temp file is written and
        fsynced, renamed into place in the order given, and each distinct directory synced
        once. A power cut before that last
        sync leaves any subset of the group, each file whole: group only writes whose order
        among themselves no reader relies on, and make the next write that depends on them
        after this returns."""
        rels = [normalize(path, reserved=True) for path, _ in writes]
        if len(set(rels)) != len(rels):
            raise ValueError(f"write_many: a path twice in one group ({rels!r}); write it once.")
        for rel in rels:
            if not rel:
                raise errors.is_a_directory(rel)
        datas = [bytes(data) for _, data in writes]
        with contextlib.ExitStack() as stack:
            ats = []
            for rel in rels:
                # an error naming another path of the group keeps its name
                at = stack.enter_context(self._at(rel, "write", create=True, also=tuple(rels)))
                assert at is not None
                ats.append(at)
            for i in sorted(range(len(rels)), key=rels.__getitem__):
                with _naming(rels[i], "write"):
                    stack.enter_context(path_lock(*ats[i]))
            for (fd, name), rel in zip(ats, rels, strict=True):
                with _naming(rel, "write"):
                    st = lstat_at(fd, name)
                    if st is not None:
                        refuse_unless_regular(st, rel)
                        check_precondition(
                            rel, read_regular(fd, name, rel), b"", expected_sha256=None, create=True
                        )
            group = zip(ats, rels, datas, strict=True)
            _write_group([(fd, name, rel, data) for (fd, name), rel, data in group], self.file_mode)

    def write_from_path(self, path: str, local_path: str) -> None:
        with open(local_path, "rb") as f:
            self.write(path, f.read())

    def read(self, path: str) -> bytes:
        rel = normalize(path, reserved=True)
        if not rel:
            raise errors.is_a_directory(rel)
        with self._at(rel, "read") as at:
            data = None if at is None else read_regular(*at, rel)
        if data is None:
            raise errors.not_found(rel)
        return data

    def read_versioned(self, path: str) -> tuple[bytes, Hashable | None]:
        """:meth:`read` and the file's version (inode, size, modification and change times)."""
        rel = normalize(path, reserved=True)
        if not rel:
            raise errors.is_a_directory(rel)
        # read()'s walk, spelled out: the _At context manager cost a tenth of a chat turn,
        # which reads MEMORY.md this way every turn.
        head, _, name = rel.rpartition("/")
        try:
            fd = self._open_dir(head, rel)
            if fd is None:
                got = None
            else:
                try:
                    got = read_regular_versioned(fd, name, rel)
                finally:
                    os.close(fd)
        except OSError as e:
            raise _named(e, rel, "read") from None
        if got is None:
            raise errors.not_found(rel)
        return got

    def read_many_versioned(
        self, paths: Iterable[str]
    ) -> Generator[tuple[bytes, Hashable | None] | OSError, None, None]:
        """:meth:`read_versioned` of each path in order, its error in place; paths that share
        a parent directory in a row share one descriptor of it, opened from the root with no
        link followed and closed when the run ends (``read_versioned`` is a run of one)."""
        held: tuple[str, int | None] | None = None  # a directory and its descriptor (None: absent)
        try:
            for path in paths:
                try:
                    rel = normalize(path, reserved=True)
                    if not rel:
                        raise errors.is_a_directory(rel)
                except OSError as e:
                    yield e
                    continue
                head, _, name = rel.rpartition("/")
                # _naming, spelled out: a context manager a file cost ~4 us of ~19 in this loop.
                try:
                    if held is None or held[0] != head:
                        if held is not None and held[1] is not None:
                            os.close(held[1])
                        held = None
                        held = (head, self._open_dir(head, rel))
                    fd = held[1]
                    got = None if fd is None else read_regular_versioned(fd, name, rel)
                except OSError as e:
                    yield _named(e, rel, "read")
                    continue
                yield errors.not_found(rel) if got is None else got
        finally:
            if held is not None and held[1] is not None:
                os.close(held[1])

    def read_to_file(self, path: str, local_path: str) -> None:
        rel = normalize(path, reserved=True)
        if not rel:
            raise errors.is_a_directory(rel)
        data = self.read(rel)
        with open(local_path, "wb") as dst:  # the caller's own file, outside the workspace
            dst.write(data)

    def ls(self, path: str = "") -> list[str]:
        return sorted(self._listing(path, None))

    def ls_versioned(self, path: str = "") -> dict[str, Hashable]:
        """:meth:`ls` and each file's version, from the ``lstat`` the listing makes anyway: the
        token :meth:`read_versioned` returns for the same file. In no particular order."""
        versions: dict[str, Hashable] = {}
        self._listing(path, versions)
        return versions

    def _listing(self, path: str, versions: dict[str, Hashable] | None) -> list[str]:
        """The files under ``path`` (unsorted), their versions into ``versions`` if given."""
        rel = normalize(path, reserved=True)
        if rel:
            with self._at(rel, "list") as at:
                if at is None:
                    return []
                st = lstat_at(*at)
                if st is None:
                    return []
                if not stat.S_ISDIR(st.st_mode):
                    refuse_unless_regular(st, rel)
                    if versions is not None:
                        versions[rel] = version_of(st)
                    return [rel]
        out: list[str] = []
        with self._dir(rel, "list") as fd, _naming(rel, "list"):
            _scan(fd, rel, out, is_reserved(rel), versions)
        return out

    def exists(self, path: str) -> bool:
        rel = normalize(path, reserved=True)
        if not rel:
            with contextlib.suppress(FileNotFoundError):
                os.close(self._root_fd())
                return True
            return False
        with self._at(rel, "look up") as at:
            st = None if at is None else lstat_at(*at)
        if st is None:
            return False
        if not stat.S_ISDIR(st.st_mode):
            refuse_unless_regular(st, rel)
        return True

    def delete(self, path: str, *, expected_sha256: str | None = None) -> None:
        """Delete the file; with ``expected_sha256`` only if its bytes still hash to it (the
        compare and the unlink hold the path's lock, as a conditional write does)."""
        rel = normalize(path, reserved=True)
        if not rel:
            raise errors.is_a_directory(rel)
        expected = None if expected_sha256 is None else check_sha256(expected_sha256)
        with self._at(rel, "delete") as at:
            if at is None:
                check_delete(rel, None, expected)
                raise errors.not_found(rel)
            fd, name = at
            _unlink(fd, name, rel, expected)
            sync_dir(fd)  # else a power cut can bring the deleted file back

    def delete_many(self, deletes: Iterable[tuple[str, str | None]]) -> list[OSError | None]:
        """:meth:`delete` of each ``(path, expected_sha256)``, in order, with one sync of each
        directory a file was deleted from, made once all are unlinked (and before this
        returns, or raises). For each delete, None when it was made, else the error
        :meth:`delete` would have raised, as a value (a missing file does not stop the rest)."""
        results: list[OSError | None] = []
        dirs: dict[str, int | None] = {}
        unlinked: set[str] = set()
        try:
            for path, expected_sha256 in deletes:
                try:
                    rel = normalize(path, reserved=True)
                    if not rel:
                        raise errors.is_a_directory(rel)
                    expected = None if expected_sha256 is None else check_sha256(expected_sha256)
                    head, _, name = rel.rpartition("/")
                    with _naming(rel, "delete"):
                        if head not in dirs:
                            dirs[head] = None  # closed in the finally even if the open fails
                            dirs[head] = self._open_dir(head, rel)
                        fd = dirs[head]
                        if fd is None:
                            check_delete(rel, None, expected)
                            raise errors.not_found(rel)
                        _unlink(fd, name, rel, expected)
                        unlinked.add(head)
                except OSError as e:
                    results.append(e)
                else:
                    results.append(None)
        finally:
            try:
                sync_dirs([fd for head, fd in dirs.items() if fd is not None and head in unlinked])
            finally:
                for fd in dirs.values():
                    if fd is not None:
                        os.close(fd)
        return results

    def sweep_leftovers(self, path: str) -> int:
        """Remove what killed writers left under the directory ``path`` (temp files of writes
        that never finished, lock files of writers that died holding them), in every directory
        below it; how many. Only leftovers no live writer holds are removed
        (:func:`~memfs.stores.host.sweep_abandoned`). A missing directory holds none."""
        rel = normalize(path, reserved=True)
        if not self.is_dir(rel):
            return 0
        with self._dir(rel, "clean up") as fd, _naming(rel, "clean up"):
            return _sweep_tree(fd)

    def move(
        self,
        src: str,
        dst: str,
        *,
        expected_sha256: str | None = None,
        replace_sha256: str | None = None,
    ) -> None:
        """Rename the file ``src`` to ``dst``: one ``renameat`` between the two parent
        directories' descriptors (see :class:`~memfs.stores.protocol.MovingFileStore`).

        Both paths' locks are held (taken in path order, so two crossed moves cannot deadlock),
        so the checks and the rename are one step for every memfs writer sharing the directory:
        a conditional write of ``src`` and a create of ``dst`` each happen wholly before or
        after it. The directories are fsynced, so the rename survives power loss."""
        rel, to = normalize(src, reserved=True), normalize(dst, reserved=True)
        if not rel or not to:
            raise errors.is_a_directory(rel if not rel else to)
        expected = None if expected_sha256 is None else check_sha256(expected_sha256)
        replace = None if replace_sha256 is None else check_sha256(replace_sha256)
        with self._at(rel, "move") as at, self._at(to, "move into", create=True) as dat:
            if at is None:
                raise errors.not_found(rel)
            assert dat is not None
            first, second = (at, dat) if rel <= to else (dat, at)
            with path_lock(*first), contextlib.ExitStack() as stack:
                if rel != to:
                    stack.enter_context(path_lock(*second))
                self._move_locked(rel, to, at, dat, expected, replace)

    def _move_locked(
        self,
        rel: str,
        to: str,
        at: tuple[int, str],
        dat: tuple[int, str],
        expected: str | None,
        replace: str | None,
    ) -> None:
        st = lstat_at(*at)
        if st is None:
            raise errors.not_found(rel)
        refuse_unless_regular(st, rel)  # a directory is moved file by file by MemFS
        if expected is not None:
            check_delete(rel, read_regular(*at, rel), expected)
        if rel == to:
            return
        dst_st = lstat_at(*dat)
        if dst_st is not None:
            refuse_unless_regular(dst_st, to)
            current = read_regular(*dat, to)
            if replace is None:
                actual = None if current is None else content_sha256(current)
                raise errors.move_destination_exists(rel, to, actual)
        if replace is not None:
            check_delete(to, None if dst_st is None else read_regular(*dat, to), replace)
        os.rename(at[1], dat[1], src_dir_fd=at[0], dst_dir_fd=dat[0])
        with contextlib.suppress(OSError):
            os.fsync(dat[0])
            if not os.path.samestat(os.fstat(at[0]), os.fstat(dat[0])):
                os.fsync(at[0])

    def mkdir(self, path: str) -> None:
        rel = normalize(path, reserved=True)
        if not rel:
            return
        with self._at(rel, "create directory", create=True) as at:
            assert at is not None
            fd, name = at
            st = lstat_at(fd, name)
            if st is not None and not stat.S_ISDIR(st.st_mode):
                refuse_unless_regular(st, rel)  # a link or a special file is named as such
                raise errors.is_a_file(rel)
            child = self._child_dir(fd, name, rel, rel, True)
            if child is not None:
                os.close(child)

    def rmdir(self, path: str) -> None:
        rel = normalize(path, reserved=True)
        if not rel:
            raise errors.root_refused("removed")
        with self._at(rel, "remove directory") as at:
            if at is None:
                raise errors.not_found(rel)
            fd, name = at
            st = lstat_at(fd, name)
            if st is None:
                raise errors.not_found(rel)
            if not stat.S_ISDIR(st.st_mode):
                refuse_unless_regular(st, rel)  # a link or a special file is named as such
                raise errors.not_a_directory(rel)
            try:
                os.rmdir(name, dir_fd=fd)
                return
            except OSError as e:
                if e.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                    raise
            # Empty as listed but for what a killed writer left (temp or lock files): sweep
            # them. Anything else a listing does not show is named in the refusal.
            child = self._leaf_dir(fd, name, rel)
            try:
                _sweep_or_refuse(child, rel)
            finally:
                os.close(child)
            try:
                os.rmdir(name, dir_fd=fd)
            except OSError as e:
                if e.errno in (errno.ENOTEMPTY, errno.EEXIST):
                    raise errors.not_empty(rel) from None
                raise

    def is_dir(self, path: str) -> bool:
        rel = normalize(path, reserved=True)
        if not rel:
            return True
        with self._at(rel, "look up") as at:
            st = None if at is None else lstat_at(*at)
        if st is None:
            return False
        if stat.S_ISDIR(st.st_mode):
            return True
        refuse_unless_regular(st, rel)
        return False

    def listdir(self, path: str = "") -> list[str]:
        rel = normalize(path, reserved=True)
        names: list[str] = []
        inside = is_reserved(rel)
        with self._dir(rel, "list") as fd, _naming(rel, "list"), os.scandir(fd) as entries:
            for entry in entries:
                kind = _kind(entry)
                if kind is not None and is_canonical(entry.name, reserved=inside):
                    names.append(entry.name)
        return sorted(names)


# -- helpers ----------------------------------------------------------------------------------


class _At:
    """The parent directory of a workspace path, open for one operation (see ``_at``)."""

    __slots__ = ("action", "also", "create", "fd", "rel", "store")

    def __init__(
        self, store: LocalFileStore, rel: str, action: str, create: bool, also: tuple[str, ...] = ()
    ) -> None:
        self.store, self.rel, self.action, self.create = store, rel, action, create
        self.also = also
        self.fd: int | None = None

    def __enter__(self) -> tuple[int, str] | None:
        head, _, name = self.rel.rpartition("/")
        try:
            self.fd = self.store._open_dir(head, self.rel, create=self.create)
        except OSError as e:
            raise _named(e, self.rel, self.action) from None
        return None if self.fd is None else (self.fd, name)

    def __exit__(self, kind: object, err: BaseException | None, tb: object) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
        if isinstance(err, OSError) and not any(_is_workspace_named(err, p) for p in self.also):
            named = _named(err, self.rel, self.action)
            if named is not err:
                raise named from None


def _named(err: OSError, rel: str, action: str) -> OSError:
    """``err``, or the same failure naming the workspace path ``rel`` if it named a host path."""
    return err if _is_workspace_named(err, rel) else errors.host_error(err, rel, action)


_Write = tuple[int, str, str, bytes]
"""One write of :func:`_write_in_order`: directory descriptor, name, workspace path, bytes."""


def _write_in_order(first: _Write, then: _Write, mode: int) -> None:
    """Write ``first`` and then ``then`` (each with its path's lock held), durable in that
    order: both temp files written and fsynced, then ``first`` put in place and its directory
    synced before ``then`` is renamed. A failure of either temp file changes nothing (the other
    is removed); host errors name the path they were met on."""
    _write_group([first], mode, then=then)


def _write_group(writes: list[_Write], mode: int, *, then: _Write | None = None) -> None:
    """The writes of :meth:`LocalFileStore.write_many` (each path's lock held, each checked
    free): every temp file written, then all of them fsynced at once (:func:`fsync_each`: their
    waits for the journal overlap), then each renamed in order, then each distinct directory
    synced, again at once; ``then``, if given, is renamed and synced only after that (its temp
    file written and synced with the rest). So no rename comes before every temp file's bytes
    are durable, and ``then``'s not before the others' entries are. A failed temp file changes
    nothing (the others are removed); a failed rename leaves the ones before it in place,
    synced, and removes the rest's temp files."""
    every = [*writes, *([then] if then is not None else [])]
    tmps: list[str] = []
    try:
        temp_fds: list[int] = []
        try:
            for fd, name, rel, data in every:
                with _naming(rel, "write"):
                    tmp, temp_fd = open_temp(fd, name, data, mode)
                tmps.append(tmp)
                temp_fds.append(temp_fd)
            failed = fsync_each(temp_fds)
        finally:
            for temp_fd in temp_fds:
                os.close(temp_fd)
        for (_, _, rel, _), err in zip(every, failed, strict=True):
            if err is not None:
                with _naming(rel, "write"):
                    raise err
    except BaseException:
        for (fd, _, _, _), tmp in zip(every, tmps, strict=False):
            discard_temp(fd, tmp)
        raise
    done = 0
    try:
        for (fd, name, rel, _), tmp in zip(writes, tmps, strict=False):
            with _naming(rel, "write"):
                rename_temp(fd, tmp, name)  # removes its temp file if it fails
            done += 1
    except BaseException:
        for (fd, _, _, _), tmp in list(zip(every, tmps, strict=True))[done + 1 :]:
            discard_temp(fd, tmp)
        raise
    finally:
        sync_dirs(_distinct_dirs(fd for fd, _, _, _ in writes[:done]))
    if then is not None:
        fd, name, rel, _ = then
        with _naming(rel, "write"):
            install_temp(fd, tmps[-1], name)


def _distinct_dirs(fds: Iterable[int]) -> list[int]:
    """``fds`` with each directory once (two descriptors of one directory: its first)."""
    seen: set[tuple[int, int]] = set()
    out = []
    for fd in fds:
        st = os.fstat(fd)
        if (st.st_dev, st.st_ino) not in seen:
            seen.add((st.st_dev, st.st_ino))
            out.append(fd)
    return out


def _unlink(fd: int, name: str, rel: str, expected: str | None) -> None:
    """Unlink ``name`` in ``fd`` (workspace path ``rel``) under its lock, only if it is a
    regular file and (``expected``) still holds bytes hashing to it; not yet synced."""
    with path_lock(fd, name):
        st = lstat_at(fd, name)
        if st is not None:
            refuse_unless_regular(st, rel)
        if expected is not None:
            check_delete(rel, None if st is None else read_regular(fd, name, rel), expected)
        if st is None:
            raise errors.not_found(rel)
        try:
            os.unlink(name, dir_fd=fd)  # unlink never follows a link
        except FileNotFoundError:
            raise errors.not_found(rel) from None


def _make_root(host: str, mode: int) -> None:
    """Create ``host`` and its missing ancestors, each with exactly ``mode``."""
    missing = []
    cur = host
    while not os.path.lexists(cur):
        missing.append(cur)
        up = os.path.dirname(cur)
        if up == cur:
            break  # pragma: no cover - the filesystem root always exists: lexists stops first
        cur = up
    for d in reversed(missing):
        try:
            os.mkdir(d, mode)
        except FileExistsError:
            continue
        os.chmod(d, mode)
    if not os.path.isdir(host):
        raise NotADirectoryError(
            errno.ENOTDIR, f"{host!r} is not a directory; a workspace needs one.", host
        )


def _holds_already(
    fd: int, name: str, rel: str, data: bytes, expected: str | None, create: bool
) -> bool:
    """Decide a write of ``data`` to the file ``name`` in ``fd`` (``rel``) under its lock:
    True when the file already holds ``data`` (nothing to write); the refusal when its
    preconditions (``expected`` content, ``create``) do not hold or it is not a regular file."""
    st = lstat_at(fd, name)
    if st is not None:
        refuse_unless_regular(st, rel)
    if expected is None and not create:
        return False
    current = read_regular(fd, name, rel) if st is not None else None
    return check_precondition(rel, current, data, expected_sha256=expected, create=create)


def _kind(entry: os.DirEntry[str]) -> str | None:
    """``"dir"`` or ``"file"`` for what a listing shows, None for the rest; opens nothing."""
    try:
        if entry.is_dir(follow_symlinks=False):
            return "dir"
        if listable(entry.stat(follow_symlinks=False)):
            return "file"
    except FileNotFoundError:  # a listing is a snapshot, not a lock
        pass
    return None


def _scan(
    fd: int,
    base: str,
    out: list[str],
    reserved: bool = False,
    versions: dict[str, Hashable] | None = None,
) -> None:
    """Every listable file below the directory ``fd`` (workspace path ``base``) into ``out``,
    and its version into ``versions`` when given (from the entry's cached ``lstat``).

    Never descends a link (each directory is opened ``O_NOFOLLOW`` relative to its parent), so
    a link loop cannot make it loop, and at most one descriptor per level is open. memfs's own
    area is skipped unless ``reserved`` (the listing was asked for a path inside it).
    """
    subdirs: list[tuple[str, str]] = []
    with os.scandir(fd) as entries:
        for entry in entries:
            name = entry.name
            rel: str | None
            if reserved:  # inside memfs's own area: checked as a string at every read
                rel = f"{base}/{name}" if base else name
                if not canonical_entry_name(name, reserved=True):
                    continue
                if len(rel.encode("utf-8")) > MAX_PATH_BYTES:
                    continue  # no workspace path can name it
            else:  # checked once here; reads of it are not checked again
                rel = listed_child(base, name)
                if rel is None:
                    continue
            kind = _kind(entry)
            if kind == "dir":
                subdirs.append((name, rel))
            elif kind == "file":
                out.append(rel)
                if versions is not None:
                    versions[rel] = version_of(entry.stat(follow_symlinks=False))
    for name, rel in subdirs:
        try:
            child = os.open(name, DIR_FLAGS, dir_fd=fd)
        except OSError as e:
            if e.errno in (errno.ENOENT, errno.ENOTDIR, errno.ELOOP, errno.EMLINK):
                continue  # removed or swapped for a link since it was listed
            raise
        try:
            _scan(child, rel, out, reserved, versions)
        finally:
            os.close(child)


def _sweep_tree(fd: int) -> int:
    removed = sweep_abandoned(fd)
    with os.scandir(fd) as entries:
        subdirs = [e.name for e in entries if e.is_dir(follow_symlinks=False)]
    for name in subdirs:
        try:
            child = os.open(name, DIR_FLAGS, dir_fd=fd)
        except OSError:
            continue  # removed or swapped for a link since it was listed
        try:
            removed += _sweep_tree(child)
        finally:
            os.close(child)
    return removed


def _sweep_or_refuse(fd: int, rel: str) -> None:
    """Remove the leftovers of killed writers from the directory ``fd``, if that is all it holds;
    otherwise raise the not-empty error, naming an entry a listing would not show."""
    with os.scandir(fd) as entries:
        found = [(e.name, _kind(e) is not None and is_canonical(e.name), e) for e in entries]
    if any(shown for _, shown, _ in found):
        raise errors.not_empty(rel)
    for name, _, entry in found:
        if name.startswith(TEMP_PREFIX):
            continue
        if not is_canonical(name):
            raise errors.not_empty(rel, f"an entry whose name memfs cannot use ({name!r})")
        try:
            st = entry.stat(follow_symlinks=False)
            what = errors.describe_mode(st.st_mode)
            if stat.S_ISREG(st.st_mode):
                what = f"a file with {st.st_nlink} hard links"
        except OSError:
            what = "an entry"
        raise errors.not_empty(rel, f"{rel + '/' + name!r} ({what})")
    for name, _, _ in found:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(name, dir_fd=fd)


def _is_workspace_named(err: OSError, rel: str) -> bool:
    """Whether ``err`` already names a workspace path (one of ours, or a walked directory)."""
    if isinstance(err, (errors.UnsafePathError, errors.WriteConflictError)):
        return True
    name = err.filename
    if not isinstance(name, str) or err.filename2 is not None:
        return False
    return name in (rel, "/") or rel.startswith(name + "/")


@contextlib.contextmanager
def _naming(rel: str, action: str) -> Iterator[None]:
    """Raise host errors again naming the workspace path ``rel``, never a host path."""
    try:
        yield
    except OSError as e:
        named = _named(e, rel, action)
        if named is e:
            raise
        raise named from None
