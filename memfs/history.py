"""The version history of a workspace as an API: log, show, diff, restore, redact, gc.

``History(fs)`` reads what MemFS recorded (:mod:`memfs.versions`) and changes it only through
MemFS: a restore is an ordinary write of the old bytes (so it is itself a new version,
operation ``restored``, with every rule of the write path applied), a redaction rewrites one
record conditionally on its bytes. Paths are workspace paths, checked by
:func:`memfs.paths.normalize` like every other; memfs's own area is never one.

A version is named by its id or any unambiguous prefix of it (at least
:data:`~memfs.versions.MIN_PREFIX` hex digits), among the versions of its path, like git.

Everything read back is checked. A record that is not JSON memfs wrote, that names a path
outside the workspace or one of no version (outside the memory area and the index), or that
lies among another file's records, is *damaged*: the log lists it with its key and the reason,
and no command uses it. ``show``, ``diff`` and ``restore`` check each version's content (held
in its record, or in a blob) against its record's sha256 and refuse a mismatch (a flipped
byte, a blob cut short), the live file untouched. The log does not decode content nor read
blobs (that would be one more read per version, on S3 a request each): damaged content is
found when its version is shown, compared or restored.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import difflib
import errno
import json
import socket
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from typing import Literal

from pydantic import BaseModel, Field

from memfs import versions
from memfs.conflicts import content_sha256
from memfs.errors import (
    PathConflictError,
    PreconditionFailedError,
    ReadOnlyError,
    UnsafePathError,
    VersionError,
)
from memfs.filesystem import MemFS
from memfs.paths import normalize
from memfs.stores import delete_all
from memfs.versions import Retention, VersionRecord

READERS = 16
"""Records read at once by a log: enough to hide S3's round trips, few enough for a laptop."""

Status = Literal["current", "applied", "recorded, not applied", "redacted"]


class Version(BaseModel):
    """A version record and what became of it."""

    record: VersionRecord
    status: Status
    key: str = Field(description="where the record is stored, under memfs's own area")

    @property
    def id(self) -> str:
        return self.record.id


class DamagedRecord(BaseModel):
    """A stored record no command uses: unreadable, or naming a path it may not."""

    key: str = Field(description="where the record is stored, under memfs's own area")
    reason: str


class FileLog(BaseModel):
    """Every version of one file, in the order the store applied them (oldest first)."""

    path: str
    versions: list[Version]
    exists: bool
    unrecorded: bool = Field(
        default=False,
        description="the file's current content is in no version (written outside memfs, "
        "or before history was kept)",
    )
    explanation: str = ""
    damaged: list[DamagedRecord] = Field(
        default_factory=list,
        description="records of this file (or, when ``path`` is a records directory under "
        "memfs's own area, of no file) that are damaged or foreign; never used",
    )


class GcReport(BaseModel):
    records_deleted: int = 0
    blobs_deleted: int = 0
    blobs_pending: int = Field(
        default=0,
        description="unreferenced blobs kept until a later gc, after the grace period, finds "
        "them still unreferenced",
    )
    blobs_kept: int = Field(
        default=0, description="blobs a change referred to again while gc was deleting them"
    )
    baselines_recorded: int = 0
    leftovers_removed: int = Field(
        default=0, description="temp and lock files of killed writers removed (a local disk)"
    )
    pending_saved: bool = Field(
        default=True,
        description="whether the list of waiting blobs was stored (False: the disk is full; "
        "the blobs this gc's retention released were deleted at once instead)",
    )


def split_ref(ref: str) -> tuple[str, str]:
    """``PATH@VERSION`` → (path, version); VersionError when there is no version."""
    path, at, version = ref.rpartition("@")
    if not at or not path or not version:
        raise VersionError(
            f"{ref!r} names no version; write PATH@VERSION with a version id from `memfs log`."
        )
    return path, version


class History:
    """The version history of the workspace behind ``fs``."""

    def __init__(self, fs: MemFS) -> None:
        self.fs = fs
        self.store = fs.store
        self._inline: dict[str, str | None] = {}
        """record key -> the content it holds inline (still encoded; None: in a blob), for
        each record read: :meth:`content` then needs no second read."""

    def _check_writable(self, path: str, action: str) -> None:
        """Every change of the history is refused on a read-only mount, before any store call."""
        if self.fs.is_read_only:
            raise ReadOnlyError(path, action)

    # -- reading -------------------------------------------------------------------------------

    def _rel(self, path: str) -> str:
        rel = normalize(path, allow_absolute=True)
        if not rel:
            raise VersionError("The workspace root has no versions; name a file.")
        return rel

    def _load_all(
        self, listing: versions.RecordListing
    ) -> list[tuple[str, VersionRecord | DamagedRecord]]:
        """Every record ``listing`` names (loose, or in a pack), by key, and the damaged lines
        of its packs. The reads go out together (on S3 a request each, so a log of hundreds
        of loose records waits for a few round trips, not for hundreds one after another)."""
        n = len(listing.loose) + len(listing.packs)
        if n < 2:
            loaded = versions.load_records(self.store, listing)
        else:
            with ThreadPoolExecutor(max_workers=min(READERS, n)) as pool:
                loaded = versions.load_records(self.store, listing, pool.map)
        out: list[tuple[str, VersionRecord | DamagedRecord]] = [
            (key, self._parse(key, data)) for key, data in loaded.stored.items()
        ]
        out += [(key, DamagedRecord(key=key, reason=why)) for key, why in loaded.damaged]
        return out

    def _load(self, key: str) -> VersionRecord | DamagedRecord | None:
        """The record at ``key`` (loose, else packed); a DamagedRecord when it cannot be
        used; None when gone."""
        data = versions.stored_record(self.store, key)
        return None if data is None else self._parse(key, data)

    def _parse(self, key: str, data: bytes) -> VersionRecord | DamagedRecord:
        try:
            record, self._inline[key] = versions.parse_stored(data)
        except ValueError as e:
            return DamagedRecord(key=key, reason=str(e))
        problem = self._foreign(key, record)
        return record if problem is None else DamagedRecord(key=key, reason=problem)

    def _foreign(self, key: str, record: VersionRecord) -> str | None:
        """Why ``record`` may not be used, or None: a record names a workspace file that is
        versioned, and lies among that file's records under its own id."""
        try:
            inside = normalize(record.path) == record.path
        except UnsafePathError:
            inside = False
        if not inside:
            return f"it names {record.path!r}, a path outside the workspace"
        if not self.fs.versioned(record.path):
            return f"it names {record.path}, a file memfs keeps no versions of"
        if key.rpartition("/")[0] != versions.records_dir(record.path):
            return f"it names {record.path} but is stored among another file's records"
        named = versions.parse_record_name(key)
        if named is None or named[1] != record.id:
            return f"its name does not match its id {record.id!r}"
        return None

    def _records(self, rel: str) -> list[tuple[str, VersionRecord]]:
        return self._read_dir(rel)[0]

    def _read_dir(self, rel: str) -> tuple[list[tuple[str, VersionRecord]], list[DamagedRecord]]:
        found, damaged = [], []
        for key, loaded in self._load_all(versions.list_records(self.store, rel)):
            if isinstance(loaded, VersionRecord):
                found.append((key, loaded))
            else:
                damaged.append(loaded)
        return found, damaged

    def _current(self, rel: str) -> bytes | None:
        try:
            return self.store.read(rel)
        except (FileNotFoundError, IsADirectoryError):
            return None

    def log(self, path: str) -> FileLog:
        """Every version of ``path`` with its status, in the order the store applied them,
        and the damaged records among its records."""
        rel = self._rel(path)
        found, damaged = self._read_dir(rel)
        log = self._log(rel, found, self._current(rel))
        log.damaged = damaged
        return log

    def log_all(self) -> list[FileLog]:
        """The log of every file that has versions, by path. Damaged records go with the file
        whose records directory holds them; those of a directory no file owns, in a log whose
        ``path`` is that directory (no file, no versions)."""
        by_dir: dict[str, tuple[list[tuple[str, VersionRecord]], list[DamagedRecord]]] = (
            defaultdict(lambda: ([], []))
        )
        for key, loaded in self._load_all(versions.list_records(self.store)):
            found, damaged = by_dir[_records_dir_of(key)]
            (
                found.append((key, loaded))
                if isinstance(loaded, VersionRecord)
                else damaged.append(loaded)
            )
        logs = []
        for where, (found, damaged) in by_dir.items():
            if found:
                rel = found[0][1].path
                log = self._log(rel, found, self._current(rel))
            else:
                log = FileLog(path=where, versions=[], exists=False)
                log.explanation = "damaged records that no file of the workspace owns"
            log.damaged = damaged
            logs.append(log)
        return sorted(logs, key=lambda log: log.path)

    def _log(
        self, rel: str, records: list[tuple[str, VersionRecord]], current: bytes | None
    ) -> FileLog:
        current_sha = None if current is None else content_sha256(current)
        head = None
        for i in range(len(records) - 1, -1, -1):
            r = records[i][1]
            if r.redacted:
                continue
            if (current_sha is not None and r.sha256 == current_sha) or (
                current_sha is None and r.operation == "deleted"
            ):
                head = i
                break
        chain = self._chain(records, head)
        later_parents: set[str | None] = set()
        status: dict[int, Status] = {}
        for i in range(len(records) - 1, -1, -1):
            r = records[i][1]
            if r.redacted:
                status[i] = "redacted"
            elif i == head:
                status[i] = "current"
            elif (
                i in chain
                or (r.sha256 is not None and r.sha256 in later_parents)
                or (r.operation == "deleted" and None in later_parents)
            ):
                status[i] = "applied"
            else:
                status[i] = "recorded, not applied"
            later_parents.add(r.parent)
        order = self._order(records, chain)
        entries = [
            Version(record=records[i][1], status=status[i], key=records[i][0]) for i in order
        ]
        log = FileLog(path=rel, versions=entries, exists=current is not None)
        log.unrecorded = current is not None and head is None
        log.explanation = self._explain(log, current_sha)
        return log

    @staticmethod
    def _chain(records: list[tuple[str, VersionRecord]], head: int | None) -> list[int]:
        """The applied versions from ``head`` back through each record's parent: the order
        the store accepted the writes (each was conditional on its parent)."""
        if head is None:
            return []
        chain, used = [head], {head}
        cursor = head
        while True:
            parent = records[cursor][1].parent
            # earlier names first; then later ones: a name's time is its writer's clock,
            # and a writer's clock behind another's puts its version's name before it
            around = [*range(cursor - 1, -1, -1), *range(len(records) - 1, cursor, -1)]
            if parent is None:  # no hash to follow: only a name before it can say which
                around = around[:cursor]
            earlier = (i for i in around if i not in used)
            if parent is None:
                # no file before it (after a delete), or a parent a redaction dropped: only
                # the version just before it can be that one
                match = next(earlier, None)
            else:
                match = next((i for i in earlier if _may_precede(records[i][1], parent)), None)
            if match is None or not _may_precede(records[match][1], parent):
                break
            chain.append(match)
            used.add(match)
            cursor = match
        return chain

    @staticmethod
    def _order(records: list[tuple[str, VersionRecord]], chain: list[int]) -> list[int]:
        """Applied versions in chain order, each other record after the version it branched
        from (its parent), else where its time puts it."""
        applied = list(reversed(chain))
        placed = set(applied)
        after: dict[int, list[int]] = defaultdict(list)
        loose = []
        # a hash can be held by several applied versions (a restore writes old bytes again):
        # a record branched from the last of them written before it
        sha_at: dict[str | None, list[int]] = defaultdict(list)
        for n, i in enumerate(applied):
            sha_at[records[i][1].sha256].append(n)
        for i in range(len(records)):
            if i in placed:
                continue
            held = sha_at.get(records[i][1].parent, [])
            at = next((n for n in reversed(held) if applied[n] < i), held[0] if held else None)
            (after[at].append(i) if at is not None else loose.append(i))
        out: list[int] = []
        for n, i in enumerate(applied):
            out.append(i)
            out += after[n]
        return _merge_loose(out, loose)

    def _explain(self, log: FileLog, current_sha: str | None) -> str:
        if log.unrecorded:
            return (
                "the file's current content is in no version: it was written outside memfs or "
                "before history was kept (memfs gc records it)"
            )
        if not log.versions:
            return "no versions recorded"
        newest = log.versions[-1]
        if newest.status == "recorded, not applied" and newest.record.parent == current_sha:
            return (
                f"version {newest.id} was recorded and not applied: the write stopped between "
                f"the version and the file (a crash, or a write that lost a race); the file "
                f"still holds the version before it. `memfs restore {log.path}@{newest.id}` "
                "applies it"
            )
        return ""

    def resolve(self, path: str, version: str) -> Version:
        """The version of ``path`` named by ``version`` (an id or an unambiguous prefix)."""
        rel = self._rel(path)
        ref = version.strip().lower()
        if len(ref) < versions.MIN_PREFIX or any(c not in "0123456789abcdef" for c in ref):
            raise VersionError(
                f"{version!r} is not a version id; give at least {versions.MIN_PREFIX} hex "
                f"digits of one from `memfs log … {rel}`."
            )
        log = self.log(rel)
        matches = [v for v in log.versions if v.id.startswith(ref)]
        broken = [d for d in log.damaged if _key_id(d.key).startswith(ref)]
        if not matches and broken:
            raise VersionError(
                f"the record of version {_key_id(broken[0].key)} of {rel} is damaged "
                f"({broken[0].reason}); it is not used, the live file was not touched. Name "
                "another version from `memfs log`."
            )
        if not matches:
            raise VersionError(f"{rel} has no version {version!r}; `memfs log … {rel}` lists them.")
        if len(matches) > 1:
            ids = ", ".join(v.id for v in matches)
            raise VersionError(f"{version!r} names {len(matches)} versions of {rel} ({ids}).")
        return matches[0]

    def content(self, version: Version) -> bytes:
        """The bytes of ``version`` (held in its record, or in a blob), checked against its
        sha256; VersionError for a deletion, a redaction, damaged content or a lost blob."""
        r = version.record
        if r.redacted:
            raise VersionError(f"version {r.id} of {r.path} was redacted; its content is gone.")
        if r.sha256 is None:
            raise VersionError(
                f"version {r.id} of {r.path} deleted the file; it has no content. Name the "
                "version before it."
            )
        if version.key not in self._inline:
            self._load(version.key)  # a version this History did not read: its record now
        inline = self._inline.get(version.key)
        if inline is not None:
            data = versions.inline_content(inline, r.sha256)
        else:
            try:
                stored = self.store.read(versions.blob_key(r.sha256))
            except FileNotFoundError:
                raise VersionError(
                    f"the content of version {r.id} of {r.path} is missing from the store."
                ) from None
            data = versions.decode_blob(stored, r.sha256)
        if data is None:
            raise VersionError(
                f"the stored content of version {r.id} of {r.path} is damaged (it does not "
                "match the hash its record holds); nothing was used or changed, the live file "
                "was not touched. Name another version from `memfs log`."
            )
        return data

    def show(self, path: str, version: str) -> bytes:
        return self.content(self.resolve(path, version))

    def diff(self, path: str, old: str, new: str | None = None) -> str:
        """A unified diff from version ``old`` to version ``new`` (None: the current file)."""
        rel = self._rel(path)
        a_ver = self.resolve(rel, old)
        a = self.content(a_ver)
        if new is None or new == "current":
            b = self._current(rel) or b""
            b_name = f"{rel} (current)"
        else:
            b = self.content(self.resolve(rel, new))
            b_name = f"{rel}@{new}"
        lines = difflib.unified_diff(
            a.decode("utf-8", "replace").splitlines(keepends=True),
            b.decode("utf-8", "replace").splitlines(keepends=True),
            fromfile=f"{rel}@{a_ver.id}",
            tofile=b_name,
        )
        return "".join(lines)

    def restorable(self, path: str, data: bytes) -> bool:
        """Whether some version of ``path`` holds exactly ``data`` and its content is stored
        intact."""
        sha = content_sha256(data)
        for v in self.log(path).versions:
            if v.record.sha256 == sha:
                try:
                    return self.content(v) == data
                except VersionError:
                    return False
        return False

    # -- changing ------------------------------------------------------------------------------

    def restore(self, path: str, version: str) -> Version:
        """Put the content of ``version`` back as ``path``'s content: a new version
        (``restored``), written conditionally on what the file holds now."""
        self._check_writable(path, "restore")
        target = self.resolve(path, version)
        data = self.content(target)
        rel = target.record.path
        current = self._current(rel)
        fs = self.fs.migrating()  # the version's bytes and date (a future one: today)
        if current is None:
            fs.save(rel, data, create=True, restored_from=target.id)
        elif current == data:
            raise VersionError(f"{rel} already holds version {target.id}; nothing to restore.")
        else:
            fs.save(rel, data, expected_sha256=content_sha256(current), restored_from=target.id)
        return next(v for v in reversed(self.log(rel).versions) if v.status == "current")

    def redact(self, path: str, version: str) -> Version:
        """Remove the content, hash and size of ``version`` (a leaked secret, a deletion
        request); its actor, time and operation stay. The blob goes when no other version
        refers to it. The file's current content is not changed: restore or edit it first."""
        self._check_writable(path, "redact a version of")
        target = self.resolve(path, version)
        r = target.record
        if r.redacted:
            raise VersionError(f"version {r.id} of {r.path} is already redacted.")
        if target.status == "current" and r.sha256 is not None:
            raise VersionError(
                f"version {r.id} is {r.path}'s current content; restore an earlier version or "
                "change the file first, then redact it."
            )
        sha = r.sha256
        self._rewrite(  # the content goes with the hash: a redacted record holds none
            target.key,
            r.replace(
                sha256=None,
                size=None,
                redacted=True,
                redacted_time=self.fs.history_options.now(),
                redacted_by=self.fs.actor,
            ),
            keep_content=False,
        )
        if sha is not None:
            refs = [rec for _, rec in self._all_records() if rec.sha256 == sha]
            if not refs:
                self._delete_blobs([sha])
            # the next version names the redacted content's hash as its parent: drop it too,
            # unless another version of this file still holds that content
            if not any(rec.path == r.path for rec in refs):
                for key, rec in self._records(r.path):
                    if rec.parent == sha:
                        self._rewrite(key, rec.replace(parent=None))
        return next(v for v in self.log(r.path).versions if v.id == r.id)

    def _rewrite(self, key: str, record: VersionRecord, *, keep_content: bool = True) -> None:
        """Store ``record`` over the record at ``key`` (loose and packed copies), conditionally
        on the bytes read, with the content it holds inline unless not ``keep_content``."""

        def new(old: bytes) -> bytes:
            inline = versions.parse_stored(old)[1] if keep_content else None
            self._inline[key] = inline
            return versions.stored_bytes(record, inline)

        try:
            versions.rewrite_record(self.store, key, new)
        except PreconditionFailedError:
            raise VersionError(
                f"the record at {key} changed meanwhile; run the command again."
            ) from None

    def _all_records(self) -> list[tuple[str, VersionRecord]]:
        return self._parsed(versions.load_records(self.store, versions.list_records(self.store)))

    def _parsed(self, loaded: versions.LoadedRecords) -> list[tuple[str, VersionRecord]]:
        """The records memfs wrote among ``loaded``, each one's inline content noted."""
        out = []
        for key, data in loaded.stored.items():
            with contextlib.suppress(ValueError):
                record, self._inline[key] = versions.parse_stored(data)
                out.append((key, record))
        return out

    def gc(
        self,
        retention: Retention | None = None,
        *,
        baseline: bool = True,
        grace: dt.timedelta = versions.GC_GRACE,
        pod: str | None = None,
    ) -> GcReport:
        """Apply ``retention`` (the workspace's own when None) to every file's records, delete
        the blobs no record refers to any more, and (``baseline``) record the current content
        of every memory file that is in no version, so that it too can be restored. First it
        removes what killed writers left in the workspace, its history included (a store that
        can have leftovers: a local disk).

        Safe beside writers, without a lock, and without trusting clocks across pods:
        retention orders each file's versions by their parent chain (:func:`versions.
        applied_order`); a blob is deleted only when an earlier gc *of the same pod* (``pod``,
        the host's name by default) found it unreferenced at least ``grace`` before by that
        pod's own clock, so a writer's blob, stored a moment before its record, is never taken,
        whatever another pod's clock says. A blob that a change refers to again while it is
        being deleted is written back: gc reads each blob before deleting it and checks the
        records again afterwards, and a writer that reused a stored blob checks it after
        storing its record. On a full disk the list of waiting blobs cannot be written; then
        gc deletes at once the blobs whose last records it pruned itself (no writer can be
        storing those: a writer finds them stored, and checks them after its record)."""
        self._check_writable("", "collect the history of")
        retention = retention or self.fs.history_options.retention
        now = self.fs.history_options.now()
        pod = pod or socket.gethostname()
        sweep = getattr(self.store, "sweep_leftovers", None)
        report = GcReport(leftovers_removed=sweep("") if sweep else 0)
        kept, released = self._prune(retention, now, report)
        if baseline:
            report.baselines_recorded = self._baseline()
        referenced = self._referenced(kept)
        seen, stamp = self._pending()
        pending: dict[str, dict[str, str]] = {}
        due: list[str] = []
        for key in self.store.ls(versions.BLOBS_DIR):
            sha = key.rpartition("/")[2]
            if sha in referenced:
                continue
            stamps = dict(seen.get(sha, {}))
            since = _parse_time(stamps.get(pod))
            if since is not None and _older(since, now, grace):
                due.append(sha)
                continue
            stamps[pod] = (since or now).isoformat()
            pending[sha] = stamps
        report.blobs_deleted, report.blobs_kept = self._delete_blobs(due)
        if not self._set_pending(pending, stamp):
            freed, back = self._delete_blobs(sorted(released & pending.keys()))
            report.blobs_deleted += freed
            report.blobs_kept += back
            for sha in released:
                pending.pop(sha, None)
            report.pending_saved = self._set_pending(pending, None)
        report.blobs_pending = len(pending)
        return report

    def _prune(
        self, retention: Retention, now: dt.datetime, report: GcReport
    ) -> tuple[dict[str, VersionRecord], set[str]]:
        """Apply ``retention`` to every file; the records kept (by key) and the hashes whose
        every record this gc deleted itself (no record left names them)."""
        listing = versions.list_records(self.store)
        by_dir: dict[str, list[tuple[str, VersionRecord]]] = defaultdict(list)
        for key, record in self._parsed(versions.load_records(self.store, listing)):
            by_dir[_records_dir_of(key)].append((key, record))
        kept = {key: rec for found in by_dir.values() for key, rec in found}
        pruned: set[str] = set()
        for found in by_dir.values():
            if retention.keeps_everything or len(found) <= 1:
                continue
            current = self._current(found[-1][1].path)
            head = None if current is None else content_sha256(current)
            drop = versions.to_prune(found, retention, now, head)
            # one gone meanwhile was pruned by another pod: that pod released its blob
            for key in versions.delete_records(self.store, drop, listing.packs) if drop else []:
                record = kept.pop(key)
                report.records_deleted += 1
                if record.sha256:
                    pruned.add(record.sha256)
            for key in drop:
                kept.pop(key, None)
        still = {rec.sha256 for rec in kept.values()}
        return kept, pruned - still

    def _delete_blobs(self, shas: list[str]) -> tuple[int, int]:
        """Delete the blobs ``shas``, then write back any that a record names by the time they
        are gone (a change that reused one meanwhile); (deleted, written back)."""
        held: dict[str, bytes] = {}
        for sha in shas:
            try:
                held[sha] = self.store.read(versions.blob_key(sha))
            except FileNotFoundError:
                continue  # another gc took it
        deletes = [(versions.blob_key(sha), None) for sha in held]
        for sha, failed in zip(list(held), delete_all(self.store, deletes), strict=True):
            if isinstance(failed, FileNotFoundError):
                del held[sha]  # another gc took it
            elif failed is not None:
                raise failed
        kept = 0
        if held:
            again = self._referenced()
            for sha, data in held.items():
                if sha in again:
                    versions.keep_blob(self.store, sha, data)
                    kept += 1
        return len(held) - kept, kept

    def _referenced(self, known: dict[str, VersionRecord] | None = None) -> set[str]:
        """The hashes of the blobs the records refer to (a record holding its content inline
        refers to none); records in ``known`` (already read) are not read again, only the
        ones stored since."""
        known = known or {}
        out = {sha for key, rec in known.items() if (sha := self._blob_of(key, rec))}
        listing = versions.list_records(self.store)
        unread = versions.RecordListing([k for k in listing.loose if k not in known], listing.packs)
        for key, rec in self._parsed(versions.load_records(self.store, unread)):
            if key not in known and (sha := self._blob_of(key, rec)):
                out.add(sha)
        return out

    def _blob_of(self, key: str, record: VersionRecord) -> str | None:
        """The hash of the blob ``record`` (read at ``key``) keeps its content in, or None
        (no content, or held inline)."""
        return None if self._inline.get(key) is not None else record.sha256

    def _pending(self) -> tuple[dict[str, dict[str, str]], str | None]:
        """The blobs earlier gcs found unreferenced, each with the time each pod first found
        it so, by that pod's clock; and the hash of the list as read (None: none stored). A
        list that cannot be read counts as empty (blobs only wait longer)."""
        try:
            data = self.store.read(versions.GC_PENDING)
        except FileNotFoundError:
            return {}, None
        try:
            raw = json.loads(data)["pending"]
            pending = {
                sha: {p: t for p, t in stamps.items() if isinstance(t, str)}
                for sha, stamps in raw.items()
                if isinstance(stamps, dict)  # an older list of one shared time: not used
            }
        except (ValueError, KeyError, TypeError, AttributeError):
            pending = {}
        return pending, content_sha256(data)

    def _set_pending(self, pending: dict[str, dict[str, str]], read: str | None) -> bool:
        """Store the list, conditional on the one read (another pod's gc in between: its
        stamps are merged in, the list written again); False when the disk is full."""
        for _ in range(4):
            try:
                if not pending:
                    with contextlib.suppress(FileNotFoundError):
                        self.store.delete(versions.GC_PENDING, expected_sha256=read)
                    return True
                body = {"pending": {sha: pending[sha] for sha in sorted(pending)}}
                data = json.dumps(body, indent=1).encode("ascii")
                self.store.write(
                    versions.GC_PENDING, data, expected_sha256=read, create=read is None
                )
                return True
            except (PreconditionFailedError, PathConflictError):
                theirs, read = self._pending()
                for sha, stamps in pending.items():
                    pending[sha] = {**theirs.get(sha, {}), **stamps}
            except OSError as e:
                if e.errno in (errno.ENOSPC, errno.EDQUOT):
                    return False
                raise
        return True  # pods keep rewriting it: the next gc stamps again (blobs only wait longer)

    def _baseline(self) -> int:
        """Record the content of every versioned file that no version holds. Each file is read
        before its records are listed: a writer stores its record before its file, so content
        read first whose record is not listed after is truly unrecorded, never a change in
        flight."""
        fs = self.fs
        recorded = 0
        for rel in fs.store.ls(""):
            if not fs.records(rel):
                continue
            data = self._current(rel)
            if data is None:
                continue
            sha = content_sha256(data)
            if any(rec.sha256 == sha for _, rec in self._records(rel)):
                continue
            fs.recorder.record_baseline(rel, data)
            recorded += 1
        return recorded


def _records_dir_of(key: str) -> str:
    """The records directory a record's key (or a damaged pack line's, ``<pack>#<line>``)
    lies in."""
    return key.partition("#")[0].rpartition("/")[0]


def _key_id(key: str) -> str:
    """The version id a record's key names ('' for a key that names none)."""
    named = versions.parse_record_name(key)
    return "" if named is None else named[1]


def _parse_time(text: str | None) -> dt.datetime | None:
    if text is None:
        return None
    try:
        return dt.datetime.fromisoformat(text)
    except ValueError:
        return None


def _older(since: dt.datetime, now: dt.datetime, grace: dt.timedelta) -> bool:
    """Whether ``grace`` has passed since ``since`` (False when the two cannot be compared,
    one with a time zone and one without: the blob waits for a later gc)."""
    try:
        return now - since >= grace
    except TypeError:
        return False


def _may_precede(record: VersionRecord, parent: str | None) -> bool:
    """Whether ``record`` can be the version a change with ``parent`` replaced: the one that
    holds that hash; for no parent (no file), a delete. A redacted version has lost its hash,
    and a redaction also drops the next version's parent (:meth:`History.redact`), so it
    stands for any parent, none included."""
    if record.redacted:
        return True
    return record.operation == "deleted" if parent is None else record.sha256 == parent


def _merge_loose(out: list[int], loose: list[int]) -> list[int]:
    """Records that branched from no applied version, placed by time among the others."""
    merged = list(out)
    for i in loose:
        at = next((n for n, j in enumerate(merged) if j > i), len(merged))
        merged.insert(at, i)
    return merged


def parse_age(text: str) -> float:
    """``30`` / ``30d`` / ``12h`` as days, for ``--max-age``."""
    t = text.strip().lower()
    try:
        if t.endswith("h"):
            return float(t[:-1]) / 24
        return float(t[:-1] if t.endswith("d") else t)
    except ValueError:
        raise VersionError(f"--max-age {text!r}: give days (30, 30d) or hours (12h).") from None
