"""A workspace in a local directory: atomic writes, every path confined to the root."""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat

from memfs import errors
from memfs.conflicts import check_delete, check_precondition, check_sha256
from memfs.paths import normalize, parent
from memfs.stores.host import TEMP_PREFIX, host_path_lock, read_host_file, write_file_atomic

_OUTSIDE = "it resolves through a symlink to outside the workspace"


class LocalFileStore:
    """A workspace in a local directory: atomic writes, every path confined to ``root``.

    Every write and delete holds a per-path ``flock`` (:func:`memfs.stores.host.host_path_lock`),
    so a conditional write's compare and replace are one step for every process sharing the
    directory; data goes to a temp file that is fsynced and renamed over the target.
    ``create=False`` refuses a root that does not exist instead of creating it.
    """

    conditional_writes = True

    def __init__(self, root: str | os.PathLike[str], *, create: bool = True) -> None:
        if create:
            os.makedirs(root, exist_ok=True)
        elif not os.path.isdir(root):
            raise FileNotFoundError(
                errno.ENOENT,
                f"No workspace directory at {os.fspath(root)!r}; pass an existing directory, "
                "or create it first.",
                os.fspath(root),
            )
        self.root = os.path.realpath(root)

    def __repr__(self) -> str:
        return f"LocalFileStore({self.root!r})"

    def _full(self, path: str) -> tuple[str, str]:
        """Normalised workspace path and its host path; refuses symlinks that leave the root."""
        rel = normalize(path)
        full = os.path.join(self.root, *rel.split("/")) if rel else self.root
        if not self._inside(full):
            raise errors.UnsafePathError(path, _OUTSIDE)
        return rel, full

    def _inside(self, host: str) -> bool:
        """Whether ``host`` resolves, through any symlinks, to the root or below it."""
        # The root is already real, so below it only a symlink can lead out: lstat the few
        # components under the root and resolve the whole path only when one is a link
        # (os.path.realpath lstats every component from "/").
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
        if not rel or os.path.isdir(full):
            raise errors.is_a_directory(rel)
        expected = None if expected_sha256 is None else check_sha256(expected_sha256)
        data = bytes(data)
        self._make_parents(rel)
        with host_path_lock(full):
            if (expected is not None or create) and check_precondition(
                rel, read_host_file(full), data, expected_sha256=expected, create=create
            ):
                return
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
            raise errors.is_a_directory(rel) from None
        except (FileNotFoundError, NotADirectoryError):
            raise errors.not_found(rel) from None
        except PermissionError:
            if os.path.isdir(full):  # Windows reports a directory as access denied
                raise errors.is_a_directory(rel) from None
            raise

    def read_to_file(self, path: str, local_path: str) -> None:
        rel, full = self._full(path)
        if os.path.isdir(full):
            raise errors.is_a_directory(rel)
        if not os.path.isfile(full):
            raise errors.not_found(rel)
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

    def delete(self, path: str, *, expected_sha256: str | None = None) -> None:
        """Delete the file; with ``expected_sha256`` only if its bytes still hash to it (the
        compare and the unlink hold the path's lock, as a conditional write does)."""
        rel, full = self._full(path)
        if os.path.isdir(full):
            raise errors.is_a_directory(rel)
        expected = None if expected_sha256 is None else check_sha256(expected_sha256)
        try:
            with host_path_lock(full):
                if expected is not None:
                    check_delete(rel, read_host_file(full), expected)
                os.unlink(full)
        except (FileNotFoundError, NotADirectoryError):
            raise errors.not_found(rel) from None

    def mkdir(self, path: str) -> None:
        rel, full = self._full(path)
        if os.path.isfile(full):
            raise errors.is_a_file(rel)
        self._make_parents(rel + "/x" if rel else "x")

    def rmdir(self, path: str) -> None:
        rel, full = self._full(path)
        if not rel:
            raise errors.root_refused("removed")
        if not os.path.exists(full):
            raise errors.not_found(rel)
        if not os.path.isdir(full):
            raise errors.not_a_directory(rel)
        try:
            os.rmdir(full)
        except OSError as e:
            if e.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                raise
            # Empty as listed but for what a killed writer left (temp or lock files): sweep them.
            left = os.listdir(full)
            if not left or not all(n.startswith(TEMP_PREFIX) for n in left):
                raise errors.not_empty(rel) from None
            for name in left:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(os.path.join(full, name))
            try:
                os.rmdir(full)
            except OSError:
                raise errors.not_empty(rel) from None

    def is_dir(self, path: str) -> bool:
        _, full = self._full(path)
        return os.path.isdir(full)

    def listdir(self, path: str = "") -> list[str]:
        rel, full = self._full(path)
        if not os.path.exists(full):
            raise errors.not_found(rel)
        if not os.path.isdir(full):
            raise errors.not_a_directory(rel)
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
                    raise errors.UnsafePathError(rel, _OUTSIDE)
                if not os.path.isdir(cur):
                    raise errors.not_a_directory(
                        os.path.relpath(cur, self.root).replace(os.sep, "/")
                    )
                continue
            try:
                os.mkdir(cur)
            except FileExistsError:
                if not os.path.isdir(cur):
                    raise
