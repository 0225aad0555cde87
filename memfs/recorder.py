"""The one object that writes a workspace's version history: :class:`Recorder`.

:class:`~memfs.filesystem.MemFS` decides *whether* a change is recorded (the memory area and the
index, with history on) and hands the change to its recorder at its write points: a write
(:meth:`Recorder.write`, :meth:`Recorder.write_blind`), a delete (:meth:`Recorder.delete`,
:meth:`Recorder.delete_blind`) and a move (a write naming ``moved_from``, then a delete naming
``moved_to``). The recorder makes each one as :mod:`memfs.versions` lays it out: the blob, then
the version record, then the file, conditional on the content it replaces.
"""

from __future__ import annotations

import contextlib

from memfs import errors
from memfs.conflicts import content_sha256
from memfs.stores import ConditionalFileStore
from memfs.versions import HistoryOptions, Operation, new_record, prune_file, put_version

WRITE_ATTEMPTS = 8
"""Rounds a blind write or delete tries when another writer keeps changing the file."""


class Recorder:
    """Records the changes made through one MemFS (one store, one actor) as versions."""

    def __init__(self, store: ConditionalFileStore, options: HistoryOptions, actor: str) -> None:
        self.store = store
        self.options = options
        self.actor = actor

    # -- writes ------------------------------------------------------------------------------

    def write(
        self,
        rel: str,
        data: bytes,
        parent: str | None,
        *,
        restored_from: str | None = None,
        moved_from: str | None = None,
    ) -> None:
        """Write ``data`` to ``rel`` replacing the content hashed ``parent`` (None: no file),
        recorded: the blob, then the version record, then the file, conditional on ``parent``.

        A write the store refuses leaves no record (this change never happened); a process
        killed between the record and the file leaves one whose content is not the file's
        ("recorded, not applied" in ``memfs log``).
        """
        store = self.store
        operation: Operation = (
            "restored" if restored_from else "created" if parent is None else "modified"
        )
        _, key = put_version(
            store,
            self.options,
            data,
            lambda sha: new_record(
                self.options,
                path=rel,
                operation=operation,
                actor=self.actor,
                data=data,
                sha256=sha,
                parent=parent,
                restored_from=restored_from,
                moved_from=moved_from,
            ),
        )
        try:
            store.write(rel, data, expected_sha256=parent, create=parent is None)
        except Exception:
            with contextlib.suppress(OSError):
                store.delete(key)
            raise
        self._after_change(rel)

    def write_blind(
        self,
        rel: str,
        data: bytes,
        *,
        restored_from: str | None = None,
        moved_from: str | None = None,
    ) -> None:
        """Write ``data`` to ``rel`` whatever it holds: the version needs the content it
        replaces, so the write is made conditional on what was read, and another writer in
        between is re-read (:class:`~memfs.errors.UpdateConflictError` after
        :data:`WRITE_ATTEMPTS` rounds)."""
        last: errors.WriteConflictError | None = None
        for _ in range(WRITE_ATTEMPTS):
            try:
                current: bytes | None = self.store.read(rel)
            except FileNotFoundError:
                current = None
            if current == data:
                return  # already stored: nothing changes, nothing to record
            parent = None if current is None else content_sha256(current)
            try:
                self.write(rel, data, parent, restored_from=restored_from, moved_from=moved_from)
                return
            except errors.WriteConflictError as e:
                last = e
        assert last is not None
        raise errors.UpdateConflictError(
            last.path, last.expected_sha256, last.actual_sha256, attempts=WRITE_ATTEMPTS
        ) from last

    # -- deletes -----------------------------------------------------------------------------

    def delete(self, rel: str, data: bytes | None = None, *, moved_to: str | None = None) -> None:
        """Delete the file ``rel`` holding ``data`` (read when None), recorded as a version:
        its content is kept as a blob (it may predate the history), the record names it as the
        parent, and the delete is conditional on it (PreconditionFailedError if it changed)."""
        store = self.store
        if data is None:
            data = store.read(rel)
        sha, key = put_version(
            store,
            self.options,
            data,
            lambda sha: new_record(
                self.options,
                path=rel,
                operation="deleted",
                actor=self.actor,
                data=None,
                sha256=None,
                parent=sha,
                moved_to=moved_to,
            ),
        )
        try:
            store.delete(rel, expected_sha256=sha)
        except Exception:
            with contextlib.suppress(OSError):
                store.delete(key)
            raise
        self._after_change(rel)

    def delete_blind(self, rel: str) -> None:
        """Delete ``rel`` whatever it holds, re-reading it when another writer got in between."""
        for attempt in range(1, WRITE_ATTEMPTS + 1):
            try:
                self.delete(rel)
                return
            except errors.PreconditionFailedError:
                if attempt == WRITE_ATTEMPTS:
                    raise

    # -- content no version holds ------------------------------------------------------------

    def record_baseline(self, rel: str, data: bytes) -> None:
        """Record ``data``, the current content of ``rel`` that no version holds (written
        before history was kept, or outside memfs), as a version; the file is not touched."""
        put_version(
            self.store,
            self.options,
            data,
            lambda sha: new_record(
                self.options,
                path=rel,
                operation="created",
                actor=self.actor,
                data=data,
                sha256=sha,
                parent=None,
            ),
        )

    def _after_change(self, rel: str) -> None:
        if self.options.prune_on_write:
            prune_file(self.store, rel, self.options.retention, self.options.now())
