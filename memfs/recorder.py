"""The one object that writes a workspace's version history: :class:`Recorder`.

:class:`~memfs.filesystem.MemFS` decides *whether* a change is recorded (the memory area and the
index, with history on) and hands the change to its recorder at its write points: a write
(:meth:`Recorder.write`, :meth:`Recorder.write_blind`), a delete (:meth:`Recorder.delete`,
:meth:`Recorder.delete_blind`) and a move (:meth:`Recorder.move`: a record naming
``moved_from`` and one naming ``moved_to``, then one store move). The recorder makes each one
as :mod:`memfs.versions` lays it out: the version record (its content inline, or a blob first
for large content), then the file, conditional on the content it replaces. On a store with
grouped writes (a local disk: :meth:`~memfs.stores.local.LocalFileStore.write_after`) the
record and the file are one call, durable in that order; a move's two records are one
``write_many`` (one sync per directory, both before the move).

Content no version holds (written before history was kept, with ``history=False``, or by
another tool) is copied first: the first change or delete of it records it as an
``unrecorded`` version before anything else, so whatever the agent changes can be restored.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable, Iterator
from typing import Any

from memfs import errors
from memfs.conflicts import content_sha256
from memfs.paths import is_reserved
from memfs.stores import ConditionalFileStore, move_file, supports_grouped_writes
from memfs.versions import (
    RECORD_ATTEMPTS,
    HistoryOptions,
    Operation,
    VersionRecord,
    delete_records,
    encode_blob,
    inline_form,
    keep_blob,
    list_records,
    new_record,
    pack_key,
    pack_records,
    parse_stored,
    prune_file,
    prune_slack,
    put_blob,
    put_record,
    put_version,
    read_pack,
    read_record,
    stored_bytes,
)

WRITE_ATTEMPTS = 8
"""Rounds a blind write or delete tries when another writer keeps changing the file."""

KNOWN_PATHS = 4096
"""Paths whose recorded content a recorder remembers (:attr:`Recorder.held`)."""


class Recorder:
    """Records the changes made through one MemFS (one store, one actor) as versions."""

    def __init__(
        self,
        store: ConditionalFileStore,
        options: HistoryOptions,
        actor: str,
        *,
        read_only: bool = False,
    ) -> None:
        self.read_only = read_only
        """A read-only mount's recorder refuses to record (its MemFS refuses every write)."""
        self.store = store
        self.options = options
        self.actor = actor
        self.held: dict[str, str] = {}
        """path -> the sha256 of content a version of it is known to hold (this process wrote
        or found it), so a change of what this process wrote costs no look-up. Shared by the
        views of one MemFS (:meth:`share_known`)."""
        self.counted: dict[str, int] = {}
        """path -> how many records it had when last listed, plus those this process added
        since: retention prunes a file once this passes the slack, not on every change."""
        self.loose: dict[str, int] = {}
        """path -> how many of them were loose (not packed), counted the same way: a change
        packs them once this passes :attr:`~memfs.versions.HistoryOptions.pack_after`."""

    def share_known(self, other: Recorder) -> None:
        """Use ``other``'s knowledge of what is recorded (a view of the same workspace)."""
        self.held = other.held
        self.counted = other.counted
        self.loose = other.loose

    def _known(self, rel: str, sha: str | None) -> None:
        if sha is None:
            self.held.pop(rel, None)
            return
        if len(self.held) >= KNOWN_PATHS:
            self.held.clear()  # a bound, not a cache policy: a miss costs one look-up
        self.held[rel] = sha

    # -- writes ------------------------------------------------------------------------------

    def write(
        self,
        rel: str,
        data: bytes,
        parent: str | None,
        *,
        replaced: bytes | None = None,
        restored_from: str | None = None,
        moved_from: str | None = None,
    ) -> None:
        """Write ``data`` to ``rel`` replacing the content hashed ``parent`` (None: no file),
        recorded: the version record (after a blob for large content), then the file,
        conditional on ``parent``.
        ``replaced`` is that content when the caller has read it (else it is read if no
        version holds it, see :meth:`keep_unrecorded`).

        A write the store refuses leaves no record (this change never happened); a process
        killed between the record and the file leaves one whose content is not the file's
        ("recorded, not applied" in ``memfs log``).
        """
        store = self.store
        operation: Operation = (
            "restored" if restored_from else "created" if parent is None else "modified"
        )
        sha = content_sha256(data)
        with _storing_version(rel, "write"):
            if parent is not None:
                self.keep_unrecorded(rel, parent, replaced)
        record = new_record(
            self.options,
            path=rel,
            operation=operation,
            actor=self.actor,
            data=data,
            sha256=sha,
            parent=parent,
            restored_from=restored_from,
            moved_from=moved_from,
        )
        inline = inline_form(data, self.options.inline_limit)
        if inline is not None and supports_grouped_writes(store):
            self._write_grouped(record, inline, data, parent)
        else:
            with _storing_version(rel, "write"):
                key = put_version(store, self.options, record, data, inline)
            with self._unrecorded_on_failure([key]):
                store.write(rel, data, expected_sha256=parent, create=parent is None)
        self._known(rel, sha)
        self._after_change(rel, sha)

    def _write_grouped(
        self, record: VersionRecord, inline: str, data: bytes, parent: str | None
    ) -> None:
        """The record (its content inline) and the file in one grouped store call: nothing is
        stored when the file's precondition fails, so there is no record to take back."""
        rel = record.path
        store: Any = self.store
        with _storing_version(rel, "write"):
            for attempt in range(RECORD_ATTEMPTS):
                try:
                    store.write_after(
                        record.key,
                        stored_bytes(record, inline),
                        rel,
                        data,
                        expected_sha256=parent,
                        create=parent is None,
                    )
                    return
                except errors.PathConflictError as e:
                    if e.path != record.key or attempt == RECORD_ATTEMPTS - 1:
                        raise
                    record = record.replace(id=self.options.new_id())

    def write_blind(
        self,
        rel: str,
        prepare: Callable[[bytes | None], bytes],
        *,
        restored_from: str | None = None,
        moved_from: str | None = None,
    ) -> bytes:
        """Write ``prepare(current)`` to ``rel`` whatever it holds, and return it: the version
        needs the content it replaces (and the write's date is decided against it), so the
        write is made conditional on what was read, and another writer in between is re-read
        (:class:`~memfs.errors.UpdateConflictError` after :data:`WRITE_ATTEMPTS` rounds)."""
        last: errors.WriteConflictError | None = None
        for _ in range(WRITE_ATTEMPTS):
            try:
                current: bytes | None = self.store.read(rel)
            except FileNotFoundError:
                current = None
            data = prepare(current)
            if current == data:
                return data  # already stored: nothing changes, nothing to record
            parent = None if current is None else content_sha256(current)
            try:
                self.write(
                    rel,
                    data,
                    parent,
                    replaced=current,
                    restored_from=restored_from,
                    moved_from=moved_from,
                )
                return data
            except errors.WriteConflictError as e:
                last = e
        assert last is not None
        raise errors.UpdateConflictError(
            last.path, last.expected_sha256, last.actual_sha256, attempts=WRITE_ATTEMPTS
        ) from last

    # -- deletes -----------------------------------------------------------------------------

    def delete(self, rel: str, data: bytes | None = None, *, moved_to: str | None = None) -> None:
        """Delete the file ``rel`` holding ``data`` (read when None), recorded as a version:
        its content is held by a version first (it may predate the history: see
        :meth:`keep_unrecorded`), the record names it as the parent, and the delete is
        conditional on it (PreconditionFailedError if it changed)."""
        store = self.store
        if data is None:
            data = store.read(rel)
        sha = content_sha256(data)
        record = new_record(
            self.options,
            path=rel,
            operation="deleted",
            actor=self.actor,
            data=None,
            sha256=None,
            parent=sha,
            moved_to=moved_to,
        )
        with _storing_version(rel, "delete"):
            self.keep_unrecorded(rel, sha, data)
            key = put_version(store, self.options, record, None)
        with self._unrecorded_on_failure([key]):
            store.delete(rel, expected_sha256=sha)
        self._known(rel, None)
        self._after_change(rel, None)

    def delete_blind(self, rel: str) -> None:
        """Delete ``rel`` whatever it holds, re-reading it when another writer got in between."""
        for attempt in range(1, WRITE_ATTEMPTS + 1):
            try:
                self.delete(rel)
                return
            except errors.PreconditionFailedError:
                if attempt == WRITE_ATTEMPTS:
                    raise

    # -- moves -------------------------------------------------------------------------------

    def move(self, src: str, dst: str, data: bytes, from_recorded: bool, to_recorded: bool) -> None:
        """Move ``src`` (holding ``data``) to the free path ``dst`` in one store move
        (:func:`~memfs.stores.move_file`), recorded: the content is stored once (in the
        ``created`` record of ``dst``, ``moved_from``, or its blob, durable first), and a
        ``deleted`` record of ``src`` (``moved_to``), so each name's log shows the move (both
        records in one grouped write where the store has them), then the file is moved. A move the
        store refuses leaves no record; one that copied and then found the source changed
        (:class:`~memfs.errors.MoveConflictError`) keeps the destination's record only."""
        store, options, sha = self.store, self.options, content_sha256(data)
        if from_recorded:
            self.keep_unrecorded(src, sha, data)
        records: list[tuple[VersionRecord, str | None]] = []
        reused = False
        if to_recorded:
            created = new_record(
                options,
                path=dst,
                operation="created",
                actor=self.actor,
                data=data,
                sha256=sha,
                parent=None,
                moved_from=src,
            )
            inline = inline_form(data, options.inline_limit)
            if inline is None:  # its blob is durable before the record that names it
                _, reused = put_blob(store, data)
            records.append((created, inline))
        if from_recorded:
            deleted = new_record(
                options,
                path=src,
                operation="deleted",
                actor=self.actor,
                data=None,
                sha256=None,
                parent=sha,
                moved_to=dst if to_recorded else None,
            )
            records.append((deleted, None))
        keys: list[str] = []
        try:
            keys = self._put_records(records)
            if reused:
                keep_blob(store, sha, encode_blob(data))
            move_file(store, src, dst, expected_sha256=sha)
        except errors.MoveConflictError:
            self._unrecord(keys[1:] if to_recorded else keys)
            raise
        except Exception:
            self._unrecord(keys)
            raise
        for rel, recorded, now in ((src, from_recorded, None), (dst, to_recorded, sha)):
            if recorded:
                self._known(rel, now)
                self._after_change(rel, now)

    def _put_records(self, records: list[tuple[VersionRecord, str | None]]) -> list[str]:
        """Store ``records`` (each with its content inline, or None), create-only; their keys.
        On a store with grouped writes, one ``write_many``: both records of a move land with
        one sync of each directory, after both renames, and the move waits on them together
        (neither record relies on the other: each alone reads as "recorded, not applied").
        Elsewhere one after another. A failure takes back those this call stored."""
        store, options = self.store, self.options
        if not supports_grouped_writes(store):
            keys: list[str] = []
            with self._unrecorded_on_failure(keys):
                for record, inline in records:
                    keys.append(put_record(store, record, options, inline))
            return keys
        grouped: Any = store
        for attempt in range(RECORD_ATTEMPTS):
            try:
                grouped.write_many([(r.key, stored_bytes(r, inline)) for r, inline in records])
                return [r.key for r, _ in records]
            except errors.PathConflictError as e:  # nothing was stored
                taken = [i for i, (r, _) in enumerate(records) if r.key == e.path]
                if not taken or attempt == RECORD_ATTEMPTS - 1:
                    raise
                record, inline = records[taken[0]]
                records[taken[0]] = (record.replace(id=options.new_id()), inline)
            except Exception:  # a rename failed part way: those before it are ours, in place
                self._unrecord([r.key for r, _ in records])
                raise
        raise AssertionError("unreachable")  # pragma: no cover

    def _unrecord(self, keys: list[str]) -> None:
        with contextlib.suppress(OSError):
            delete_records(self.store, keys)  # loose, or packed by another pod meanwhile

    @contextlib.contextmanager
    def _unrecorded_on_failure(self, keys: list[str]) -> Iterator[None]:
        """Take the records ``keys`` back when the change they record fails (the store refused
        it: this change never happened), and let the failure through."""
        try:
            yield
        except Exception:
            self._unrecord(keys)
            raise

    # -- content no version holds ------------------------------------------------------------

    def holds(self, rel: str, sha: str) -> bool:
        """Whether a version of ``rel`` holds the content hashed ``sha``. Usually the newest
        record does (one listing, one read); the others are read, newest first, only when
        it does not; none when this process wrote or found that content (:attr:`held`)."""
        if self.held.get(rel) == sha:
            return True
        listing = list_records(self.store, rel)
        packed: dict[str, bytes] = {}
        for key in listing.packs:
            packed.update(read_pack(self.store, key).entries)
        self._count(rel, len(set(listing.loose) | packed.keys()), len(listing.loose))
        found = (read_record(self.store, key) for key in reversed(listing.loose))
        for record in itertools.chain(found, _records(packed)):
            if record is not None and record.path == rel and record.sha256 == sha:
                self._known(rel, sha)
                return True
        return False

    def keep_unrecorded(self, rel: str, sha: str, data: bytes | None = None) -> None:
        """Before ``rel``'s content hashed ``sha`` is changed or deleted, record it
        (:meth:`record_baseline`) if no version holds it. ``data`` is that content when the
        caller has it; else the file is read, and nothing is recorded when it no longer holds
        ``sha`` (the conditional change that follows is refused anyway)."""
        if self.holds(rel, sha):
            return
        if data is not None and content_sha256(data) != sha:
            data = None  # not the content named: read what is there instead
        if data is None:
            try:
                data = self.store.read(rel)
            except FileNotFoundError:
                return
            if content_sha256(data) != sha:
                return
        self.record_baseline(rel, data)

    def record_baseline(self, rel: str, data: bytes) -> None:
        """Record ``data``, the current content of ``rel`` that no version holds (written
        before history was kept, or outside memfs), as an ``unrecorded`` version; the file
        is not touched."""
        if self.read_only:
            raise errors.ReadOnlyError(rel, "record a version of")
        sha = content_sha256(data)
        record = new_record(
            self.options,
            path=rel,
            operation="unrecorded",
            actor=self.actor,
            data=data,
            sha256=sha,
            parent=None,
        )
        inline = inline_form(data, self.options.inline_limit)
        put_version(self.store, self.options, record, data, inline)
        self._known(rel, sha)
        self._added(rel)

    def _count(self, rel: str, n: int, loose: int) -> None:
        if len(self.counted) >= KNOWN_PATHS:
            self.counted.clear()  # a bound, as for ``held``
            self.loose.clear()
        self.counted[rel] = n
        self.loose[rel] = loose

    def _added(self, rel: str) -> tuple[int | None, int | None]:
        """Count one record more for ``rel``: (records, loose ones), None where not known."""
        n, loose = self.counted.get(rel), self.loose.get(rel)
        if n is not None:
            self.counted[rel] = n = n + 1
        if loose is not None:
            self.loose[rel] = loose = loose + 1
        return n, loose

    def _after_change(self, rel: str, sha: str | None) -> None:
        """Apply the retention to ``rel``'s records, and pack them: when it keeps a count,
        only once the file may hold :func:`~memfs.versions.prune_slack` records past it;
        packing once it may hold more than ``pack_after`` loose ones (a file not yet counted
        is listed once), so most changes cost no listing."""
        retention, pack_after = self.options.retention, self.options.pack_after
        prune = self.options.prune_on_write and not retention.keeps_everything
        if not prune and pack_after <= 0:
            return
        n, loose = self._added(rel)
        keep = retention.keep
        prune_due = prune and (n is None or keep is None or n > keep + prune_slack(keep))
        pack_due = pack_after > 0 and (loose is None or loose > pack_after)
        if not prune_due and not pack_due:
            return
        listing = list_records(self.store, rel)
        gone = set()
        if prune:
            gone.update(prune_file(self.store, rel, retention, self.options.now(), sha, listing))
        left = [key for key in listing.loose if key not in gone]
        total = len(left)
        if pack_after > 0 and len(left) > pack_after:
            left = sorted(set(left) - set(pack_records(self.store, rel, left)))
        if listing.packs or len(left) < total:  # records in a pack: count them there
            total = len(set(left) | read_pack(self.store, pack_key(rel)).entries.keys())
        self._count(rel, total, len(left))


def _records(packed: dict[str, bytes]) -> Iterator[VersionRecord | None]:
    """The records of a pack, newest first (None for one memfs did not write)."""
    for key in sorted(packed, reverse=True):
        try:
            yield parse_stored(packed[key])[0]
        except ValueError:
            yield None


@contextlib.contextmanager
def _storing_version(rel: str, action: str) -> Iterator[None]:
    """A store failure while the version of a change of ``rel`` is stored (before the file is
    touched: a full disk, a read-only remount) names ``rel``, never the internal path of a
    blob or record, and says nothing was changed."""
    try:
        yield
    except OSError as e:
        if isinstance(e.filename, str) and is_reserved(e.filename):
            raise errors.version_not_stored(e, rel, action) from None
        raise
