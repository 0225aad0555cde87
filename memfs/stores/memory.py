"""A workspace held in a dict, for tests and ephemeral runs."""

from __future__ import annotations

import threading
from collections import Counter

from memfs import errors
from memfs.conflicts import check_delete, check_precondition, check_sha256, content_sha256
from memfs.paths import is_reserved, normalize, parent


class InMemoryFileStore:
    """A workspace held in a dict; thread-safe. Deleting a directory's last file removes the
    directory, as on an object store, unless it was made with ``mkdir``."""

    conditional_writes = True
    moves = True

    def __init__(self) -> None:
        self._files: dict[str, bytes] = {}
        self._dirs: set[str] = set()
        # files under each implicit directory, so "is this a directory" costs the path's depth,
        # not a scan of every key (history adds keys with every change)
        self._under: Counter[str] = Counter()
        self._lock = threading.RLock()

    def __repr__(self) -> str:
        return f"InMemoryFileStore(<{len(self._files)} files>)"

    def _is_dir(self, rel: str) -> bool:
        return rel == "" or rel in self._dirs or self._under[rel] > 0

    def _count(self, rel: str, step: int) -> None:
        anc = parent(rel)
        while anc:
            self._under[anc] += step
            if self._under[anc] <= 0:
                del self._under[anc]
            anc = parent(anc)

    def write(
        self,
        path: str,
        data: bytes,
        *,
        expected_sha256: str | None = None,
        create: bool = False,
    ) -> None:
        rel = normalize(path, reserved=True)
        expected = None if expected_sha256 is None else check_sha256(expected_sha256)
        data = bytes(data)
        with self._lock:
            if self._is_dir(rel):
                raise errors.is_a_directory(rel)
            anc = parent(rel)
            while anc:
                if anc in self._files:
                    raise errors.not_a_directory(anc)
                anc = parent(anc)
            if (expected is not None or create) and check_precondition(
                rel, self._files.get(rel), data, expected_sha256=expected, create=create
            ):
                return
            if rel not in self._files:
                self._count(rel, 1)
            self._files[rel] = data

    def write_from_path(self, path: str, local_path: str) -> None:
        with open(local_path, "rb") as f:
            self.write(path, f.read())

    def read(self, path: str) -> bytes:
        rel = normalize(path, reserved=True)
        with self._lock:
            if rel in self._files:
                return self._files[rel]
            if self._is_dir(rel):
                raise errors.is_a_directory(rel)
            raise errors.not_found(rel)

    def read_to_file(self, path: str, local_path: str) -> None:
        data = self.read(path)
        with open(local_path, "wb") as f:
            f.write(data)

    def ls(self, path: str = "") -> list[str]:
        rel = normalize(path, reserved=True)
        with self._lock:
            if rel in self._files:
                return [rel]
            prefix = rel + "/" if rel else ""
            found = [p for p in self._files if p.startswith(prefix)]
            if not is_reserved(rel):  # memfs's own area is listed only from inside it
                found = [p for p in found if not is_reserved(p)]
            return sorted(found)

    def exists(self, path: str) -> bool:
        rel = normalize(path, reserved=True)
        with self._lock:
            return rel in self._files or self._is_dir(rel)

    def delete(self, path: str, *, expected_sha256: str | None = None) -> None:
        rel = normalize(path, reserved=True)
        expected = None if expected_sha256 is None else check_sha256(expected_sha256)
        with self._lock:
            if rel not in self._files:
                if self._is_dir(rel):
                    raise errors.is_a_directory(rel)
                check_delete(rel, None, expected)
                raise errors.not_found(rel)
            check_delete(rel, self._files[rel], expected)
            del self._files[rel]
            self._count(rel, -1)

    def move(
        self,
        src: str,
        dst: str,
        *,
        expected_sha256: str | None = None,
        replace_sha256: str | None = None,
    ) -> None:
        """Rename ``src`` to ``dst`` in one step under the store's lock (see
        :class:`~memfs.stores.protocol.MovingFileStore`)."""
        rel, to = normalize(src, reserved=True), normalize(dst, reserved=True)
        expected = None if expected_sha256 is None else check_sha256(expected_sha256)
        replace = None if replace_sha256 is None else check_sha256(replace_sha256)
        with self._lock:
            if rel not in self._files:
                raise errors.is_a_directory(rel) if self._is_dir(rel) else errors.not_found(rel)
            data = self._files[rel]
            if expected is not None and content_sha256(data) != expected:
                raise errors.PreconditionFailedError(rel, expected, content_sha256(data))
            if rel == to:
                return
            current = self._files.get(to)
            if replace is None and (current is not None or self._is_dir(to)):
                actual = None if current is None else content_sha256(current)
                raise errors.move_destination_exists(rel, to, actual)
            if replace is not None:
                check_delete(to, current, replace)
            self.write(to, data)
            del self._files[rel]
            self._count(rel, -1)

    def mkdir(self, path: str) -> None:
        rel = normalize(path, reserved=True)
        with self._lock:
            cur = rel
            while cur:
                if cur in self._files:
                    raise errors.is_a_file(cur)
                self._dirs.add(cur)
                cur = parent(cur)

    def rmdir(self, path: str) -> None:
        rel = normalize(path, reserved=True)
        with self._lock:
            if not rel:
                raise errors.root_refused("removed")
            if rel in self._files:
                raise errors.not_a_directory(rel)
            if not self._is_dir(rel):
                raise errors.not_found(rel)
            prefix = rel + "/"
            if any(p.startswith(prefix) for p in self._files) or any(
                d.startswith(prefix) for d in self._dirs
            ):
                raise errors.not_empty(rel)
            self._dirs.discard(rel)

    def is_dir(self, path: str) -> bool:
        rel = normalize(path, reserved=True)
        with self._lock:
            return self._is_dir(rel)

    def listdir(self, path: str = "") -> list[str]:
        rel = normalize(path, reserved=True)
        with self._lock:
            if rel in self._files:
                raise errors.not_a_directory(rel)
            if not self._is_dir(rel):
                raise errors.not_found(rel)
            prefix = rel + "/" if rel else ""
            names = {p[len(prefix) :].split("/", 1)[0] for p in self._files if p.startswith(prefix)}
            names |= {d[len(prefix) :].split("/", 1)[0] for d in self._dirs if d.startswith(prefix)}
            if not is_reserved(rel):
                names = {n for n in names if not is_reserved(n)}
            return sorted(names)
