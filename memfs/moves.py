"""How :class:`~memfs.filesystem.MemFS` moves a file or a tree: losing no edit, and never
over a file the mover has not read.

Each file moves by :func:`move_one`: where the destination's rules leave the bytes as they are
(a memory keeps its date), the store moves it in one step (:func:`~memfs.stores.move_file`: a
rename on local disk), conditional on the bytes read; otherwise it is copied through
``fs.save`` (the rules of its new path apply) and the source deleted only if it still holds
what was copied. A change to memory is recorded by the filesystem's
:class:`~memfs.recorder.Recorder` as one move. MemFS checks the mount and the paths, then
calls :func:`move_tree` or :func:`move_files`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from typing import Protocol

from memfs import errors
from memfs.conflicts import DEFAULT_ATTEMPTS, content_sha256, retrying
from memfs.recorder import Recorder
from memfs.stores import ConditionalFileStore, FileStore, move_file
from memfs.write_rules import WriteRules


class Moving(Protocol):
    """What a move needs of the filesystem it moves in (a :class:`~memfs.filesystem.MemFS`)."""

    store: ConditionalFileStore
    rules: WriteRules
    recorder: Recorder

    def records(self, rel: str) -> bool: ...

    def save(
        self,
        path: str,
        data: bytes,
        *,
        create: bool = False,
        moved_from: str | None = None,
        dated_by: bytes | None = None,
    ) -> bytes: ...

    def makedirs(self, path: str, exist_ok: bool = False) -> None: ...


def move_tree(fs: Moving, src: str, dst: str) -> None:
    """Move the directory tree ``src`` to ``dst`` (which is not inside it): its directories
    made there, then each file by :func:`move_files`."""
    dirs = [src, *_subdirs(fs.store, src)]
    for d in dirs:
        fs.makedirs(dst + d[len(src) :], exist_ok=True)
    move_files(fs, [(f, dst + f[len(src) :]) for f in fs.store.ls(src)], dirs)


def move_files(fs: Moving, pairs: list[tuple[str, str]], emptied: list[str]) -> None:
    """:func:`move_one` of each ``(src, dst)``, then the directories ``emptied`` removed where
    they were left empty; the first conflict is raised once the rest have moved."""
    conflicts = [c for src, dst in pairs if (c := move_one(fs, src, dst)) is not None]
    _remove_emptied(fs.store, emptied)
    if conflicts:
        raise conflicts[0]


def move_one(fs: Moving, src: str, dst: str) -> errors.WriteConflictError | None:
    """Move ``src`` to ``dst`` (they differ), never over a file it has not read. Returns what
    stopped it, for the caller to raise once the rest of a tree has moved: a destination that
    exists (:func:`~memfs.errors.move_destination_exists`, nothing moved), or a source changed
    after its copy (:class:`~memfs.errors.MoveConflictError`, both files kept)."""
    # A source changed since its read moved nothing: read it again.
    return retrying(
        lambda: _move_read(fs, src, dst, fs.store.read(src)),
        attempts=DEFAULT_ATTEMPTS,
        on=errors.PreconditionFailedError,
    )


def _move_read(fs: Moving, src: str, dst: str, data: bytes) -> errors.WriteConflictError | None:
    """:func:`move_one` of ``src`` holding ``data`` (as read)."""
    sha = content_sha256(data)
    dated_by = fs.rules.dated_source(src, data)
    from_recorded, to_recorded = fs.records(src), fs.records(dst)
    try:
        if fs.rules.prepared(dst, data, dated_by) == data:
            if from_recorded or to_recorded:
                fs.recorder.move(src, dst, data, from_recorded, to_recorded)
            else:
                move_file(fs.store, src, dst, expected_sha256=sha)
            return None
        fs.save(
            dst, data, create=True, moved_from=src if from_recorded else None, dated_by=dated_by
        )
    except errors.MoveConflictError as e:
        return e
    except errors.PathConflictError as e:
        return errors.move_destination_exists(src, dst, e.actual_sha256)
    try:
        if from_recorded:
            fs.recorder.delete(src, data, moved_to=dst)
        else:
            fs.store.delete(src, expected_sha256=sha)
    except errors.PreconditionFailedError as e:
        return errors.MoveConflictError(src, e.expected_sha256, e.actual_sha256, destination=dst)
    return None


def _subdirs(store: FileStore, rel: str) -> list[str]:
    """Every directory below the directory ``rel`` (the store lists files only)."""
    out: list[str] = []
    for name in store.listdir(rel):
        child = f"{rel}/{name}" if rel else name
        if store.is_dir(child):
            out += [child, *_subdirs(store, child)]
    return out


def _remove_emptied(store: FileStore, dirs: Iterable[str]) -> None:
    """Remove those of ``dirs`` a move left empty, deepest first; others stay as they are."""
    for d in sorted(set(dirs), key=lambda d: d.count("/"), reverse=True):
        # OSError: it still holds a file (written meanwhile, or kept by a conflict), or is gone
        with contextlib.suppress(OSError):
            store.rmdir(d)
