"""Version history in the store: content-addressed blobs and one immutable record per change.

Every change MemFS makes to a memory file or the index (create, modify, delete, move, restore)
is kept in the same store, under memfs's own area (:data:`memfs.paths.RESERVED_DIR`), which no
workspace path reaches and no listing shows:

* ``.memfs/history/records/<key>/<time>-<id>.json`` — one small JSON record per version
  (:class:`VersionRecord`), ``<key>`` the first 32 hex digits of the sha256 of the file's path,
  ``<time>`` sortable UTC, ``<id>`` a random 12-digit hex id, so a listing orders them. A
  version's content whose zlib stream is at most :attr:`HistoryOptions.inline_limit` bytes
  (:data:`INLINE_LIMIT`: a memory file, nearly always) is stored in its record
  (:data:`CONTENT_FIELD`, base64), so the record is the whole version;
* ``.memfs/history/blobs/<sha256>`` — the content of a larger version, stored once per hash,
  zlib-compressed behind :data:`BLOB_MAGIC` (:func:`encode_blob`); a blob without that
  header (as earlier memfs wrote them) is the bytes themselves, and reads the same. Records
  an earlier memfs wrote, content in a blob whatever its size, read the same. The sha256
  always names, and verifies, the uncompressed bytes, inline or in a blob.

* ``.memfs/history/records/<key>/pack.memfs`` — a file's records packed into one object
  (:data:`PACK_NAME`, :func:`encode_pack`): once a file has more than
  :attr:`HistoryOptions.pack_after` loose records, the change past it moves them into the pack
  (:func:`pack_records`), so a log of hundreds of versions reads a listing and two objects, not
  hundreds (one request each on S3). The pack is one line per record, each with its own
  sha256, so a flipped byte damages that record and no other; a reader takes a loose record
  over a packed copy of the same name.

Records and blobs are written create-only (``create=True``), so two pods never overwrite each
other's record and a blob, once there, is never replaced; each is one atomic store write, so a
killed writer leaves a whole object or none. The order of one change is (blob →) record → file:
a crash after the record and before the file leaves a record whose content is not (yet) the
file's, which ``memfs log`` shows as "recorded, not applied" and ``memfs restore`` can apply. A
record names the hash of the content it replaced (``parent``); the file write is conditional on
it, so the records that were applied form one chain in the order the store accepted the writes.

History is bounded by default (:data:`DEFAULT_RETENTION`): each change of a file prunes that
file's oldest records once it has a quarter more than the retention keeps
(:func:`prune_slack`), so the listing and the deletes cost one change in a dozen, not every
one. A pruned record holding its content inline frees it at once; the blobs no record refers
to any more go with ``memfs gc``, which sees every file.

A pack is rewritten whole, always conditional on the bytes read (``expected_sha256``), so
two pods packing, pruning or redacting the same file at once take turns and neither drops
what the other added; a loose record is deleted only after a durable pack holds it, and only
while it still holds the bytes packed (a redaction in between is packed again). A record a
racing packer folded into the pack after another pod deleted the loose copy (a pruned record,
or one a refused change took back) may come back from it: retention prunes it again, and a
taken-back record shows as "recorded, not applied"; none is ever lost.

This module writes and reads those objects; :meth:`MemFS.save
<memfs.filesystem.MemFS.save>` decides when (the one write path), and :mod:`memfs.history` is
the API and the commands on top.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import dataclasses
import datetime as dt
import hashlib
import json
import secrets
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_args

from memfs.conflicts import content_sha256
from memfs.errors import PathConflictError, PreconditionFailedError
from memfs.paths import RESERVED_DIR
from memfs.stores import ConditionalFileStore, delete_all

HISTORY_DIR = f"{RESERVED_DIR}/history"
RECORDS_DIR = f"{HISTORY_DIR}/records"
BLOBS_DIR = f"{HISTORY_DIR}/blobs"
GC_PENDING = f"{HISTORY_DIR}/gc-pending.json"
"""The blobs the last ``gc`` found unreferenced, with when each was first found so."""

GC_GRACE = dt.timedelta(minutes=10)
"""How long a blob must have been unreferenced, seen by an earlier ``gc``, before one deletes
it: a change in flight writes its blob a moment before its record."""

ID_DIGITS = 12
"""Hex digits of a version id (48 random bits); a prefix of 4 or more names a version."""

MIN_PREFIX = 4

Operation = Literal["created", "modified", "deleted", "restored", "unrecorded"]
"""``unrecorded``: content found in the file that no version held (written before history was
kept or outside memfs), recorded before its first change or delete, or by ``gc``."""

_STAMP = "%Y%m%dT%H%M%S.%fZ"

BLOB_MAGIC = b"\x00memfs-zlib\n"
"""The header of a compressed blob. A memory file is text and never starts with a NUL byte;
and a blob is only ever used when its decoded bytes match its record's sha256, so a raw blob
that happened to start so is still read right (:func:`decode_blob`)."""


INLINE_LIMIT = 16 * 1024
"""The largest zlib stream of a version's content stored in its record: a memory file (a few
KB, a fraction of that compressed) is, so a change writes one object for its version, not two,
and pruning its record frees its content at once; larger content goes to a blob, stored once
per hash (a log reads every record, and should not read megabytes to list them)."""

CONTENT_FIELD = "content_zlib"
"""The record field holding a version's content inline: base64 of its zlib stream."""


PACK_AFTER = 64
"""Loose records of one file past which a change packs them: more than the default retention
ever leaves (:data:`DEFAULT_RETENTION` prunes at 62), so a workspace with the defaults never
packs, and one that keeps long histories reads them in a few objects. Packing costs a listing,
a read of each loose record, one write and one delete each, once every this many changes."""


def prune_slack(keep: int) -> int:
    """How many records past ``keep`` a file may gather before a change prunes it (a quarter
    of ``keep``): one listing and a batch of deletes every ``keep // 4`` changes instead of
    on each."""
    return keep // 4


def utc_now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def new_version_id() -> str:
    return secrets.token_hex(ID_DIGITS // 2)


@dataclass(frozen=True, kw_only=True)
class Retention:
    """How many versions of each file to keep, and for how long; None keeps everything.

    The version that is the file's current content (the newest record) is always kept."""

    keep: int | None = None
    """Versions kept per file (at least 1)."""
    max_age_days: float | None = None
    """Versions older than this many days are dropped (0 or more)."""

    def __post_init__(self) -> None:
        if self.keep is not None and (isinstance(self.keep, bool) or self.keep < 1):
            raise ValueError(f"keep={self.keep!r}: keep at least 1 version per file.")
        if self.max_age_days is not None and not self.max_age_days >= 0:
            raise ValueError(f"max_age_days={self.max_age_days!r}: give an age of 0 days or more.")

    @property
    def keeps_everything(self) -> bool:
        return self.keep is None and self.max_age_days is None


DEFAULT_RETENTION = Retention(keep=50)
"""What a workspace keeps unless told otherwise: the last 50 versions of each file, of any
age. A count and not an age, because pods need not agree on the time, and an agent that
edits one memory a thousand times in an afternoon should not keep a thousand versions."""


@dataclass(frozen=True)
class HistoryOptions:
    """What MemFS records: on or off, retention, and the injected clock and id source."""

    enabled: bool = True
    retention: Retention = DEFAULT_RETENTION
    prune_on_write: bool = True
    """Apply ``retention`` to a file's records as it changes, once it holds
    :func:`prune_slack` records more than ``retention.keep`` (on every change for an age
    alone; records only; blobs nothing
    refers to any more are removed by ``memfs gc``, which sees every file)."""
    now: Callable[[], dt.datetime] = utc_now
    new_id: Callable[[], str] = new_version_id
    inline_limit: int = INLINE_LIMIT
    """A version whose content compresses to at most this many bytes keeps it in its record;
    0 stores every version's content in a blob (as memfs did before records held content)."""
    pack_after: int = PACK_AFTER
    """A change that leaves a file with more loose records than this packs them
    (:func:`pack_records`); 0 never packs."""


NO_HISTORY = HistoryOptions(enabled=False)


OPERATIONS: frozenset[str] = frozenset(get_args(Operation))


@dataclass(frozen=True, kw_only=True)
class VersionRecord:
    """One version of one file: what changed, when, by whom, and the hash of its content."""

    id: str
    path: str
    operation: Operation
    time: dt.datetime
    actor: str = "unknown"
    sha256: str | None = None
    """Content after the change; None after a delete or a redaction."""
    size: int | None = None
    parent: str | None = None
    """sha256 of the content this change replaced; None: no file."""
    moved_from: str | None = None
    moved_to: str | None = None
    restored_from: str | None = None
    redacted: bool = False
    redacted_time: dt.datetime | None = None
    redacted_by: str | None = None

    @property
    def key(self) -> str:
        return record_key(self.path, self.time, self.id)

    def replace(self, **changes: Any) -> VersionRecord:
        """A copy with ``changes`` applied (records are immutable)."""
        return dataclasses.replace(self, **changes)

    def to_json_dict(self) -> dict[str, Any]:
        """The record as JSON values: times as ISO 8601 in UTC (``Z``), None fields left out."""
        out: dict[str, Any] = {}
        for f in _FIELDS:
            value = getattr(self, f.name)
            if value is None:
                continue
            out[f.name] = _iso(value) if isinstance(value, dt.datetime) else value
        return out

    def to_bytes(self) -> bytes:
        # ASCII with escapes: any text (an actor's name included) reads back exactly
        return json.dumps(self.to_json_dict(), separators=(",", ":")).encode("ascii")

    @classmethod
    def from_bytes(cls, data: bytes) -> VersionRecord:
        """Read a stored record; ValueError says which field is missing or of the wrong type.

        Unknown keys are ignored (a newer memfs may add fields)."""
        return parse_stored(data)[0]


def parse_stored(data: bytes) -> tuple[VersionRecord, str | None]:
    """A stored record and the content it holds inline (:data:`CONTENT_FIELD`, still encoded:
    :func:`inline_content` decodes and checks it; None when the content is in a blob or there
    is none). ValueError says which field is missing or of the wrong type."""
    try:
        raw = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"not a version record (not JSON: {exc})") from None
    if not isinstance(raw, dict):
        raise ValueError("not a version record (not a JSON object)")
    values: dict[str, Any] = {}
    for f in _FIELDS:
        if f.name not in raw or raw[f.name] is None:
            if f.default is dataclasses.MISSING:
                raise ValueError(f"not a version record (no {f.name!r})")
            continue
        values[f.name] = _field_value(f.name, raw[f.name])
    content = raw.get(CONTENT_FIELD)
    if content is not None and not isinstance(content, str):
        raise ValueError(f"not a version record ({CONTENT_FIELD!r} is not text)")
    return VersionRecord(**values), content


def stored_bytes(record: VersionRecord, content: str | None) -> bytes:
    """How ``record`` is stored, with its content inline when ``content`` (base64 of the zlib
    stream, :func:`inline_form`) is given."""
    if content is None:
        return record.to_bytes()
    out = record.to_json_dict()
    out[CONTENT_FIELD] = content
    return json.dumps(out, separators=(",", ":")).encode("ascii")


def inline_form(data: bytes, limit: int) -> str | None:
    """``data`` as a record holds it (base64 of its zlib stream), or None when that stream is
    over ``limit`` bytes (the content goes to a blob)."""
    if limit <= 0:
        return None
    packed = zlib.compress(data, 6)
    return base64.b64encode(packed).decode("ascii") if len(packed) <= limit else None


def inline_content(content: str, sha: str) -> bytes | None:
    """The bytes a record's inline ``content`` holds, checked against ``sha``; None when they
    do not match or do not decode (a flipped character, a field cut short)."""
    try:
        data = zlib.decompress(base64.b64decode(content, validate=True))
    except (binascii.Error, ValueError, zlib.error):
        return None
    return data if content_sha256(data) == sha else None


def _iso(value: dt.datetime) -> str:
    text = value.isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


_INTS = frozenset({"size"})
_BOOLS = frozenset({"redacted"})
_TIMES = frozenset({"time", "redacted_time"})


def _field_value(name: str, value: object) -> object:
    if name in _TIMES:
        if isinstance(value, str):
            try:
                time = dt.datetime.fromisoformat(value)
            except ValueError:
                pass
            else:
                return time if time.tzinfo is not None else time.replace(tzinfo=dt.UTC)
        raise ValueError(f"not a version record ({name!r} is not an ISO 8601 time: {value!r})")
    if name in _INTS:
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return value
        raise ValueError(f"not a version record ({name!r} is not a size: {value!r})")
    if name in _BOOLS:
        if isinstance(value, bool):
            return value
        raise ValueError(f"not a version record ({name!r} is not true or false: {value!r})")
    if not isinstance(value, str):
        raise ValueError(f"not a version record ({name!r} is not text: {value!r})")
    if name == "operation" and value not in OPERATIONS:
        raise ValueError(f"not a version record (unknown operation {value!r})")
    return value


_FIELDS = dataclasses.fields(VersionRecord)


def path_key(path: str) -> str:
    """The directory name of ``path``'s records: fixed length whatever the path."""
    return hashlib.sha256(path.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def records_dir(path: str) -> str:
    return f"{RECORDS_DIR}/{path_key(path)}"


def record_key(path: str, time: dt.datetime, version_id: str) -> str:
    stamp = time.astimezone(dt.UTC).strftime(_STAMP)
    return f"{records_dir(path)}/{stamp}-{version_id}.json"


def blob_key(sha256: str) -> str:
    return f"{BLOBS_DIR}/{sha256}"


def parse_record_name(key: str) -> tuple[dt.datetime, str] | None:
    """The time and id a record's key names, or None for anything else under the directory."""
    name = key.rpartition("/")[2]
    if not name.endswith(".json"):
        return None
    stamp, _, version_id = name[: -len(".json")].rpartition("-")
    try:
        time = dt.datetime.strptime(stamp, _STAMP).replace(tzinfo=dt.UTC)
    except ValueError:
        return None
    return time, version_id


# -- writing ---------------------------------------------------------------------------------------


def encode_blob(data: bytes) -> bytes:
    """How ``data`` is stored as a blob: :data:`BLOB_MAGIC` and its zlib stream."""
    return BLOB_MAGIC + zlib.compress(data, 6)


def decode_blob(stored: bytes, sha: str) -> bytes | None:
    """The bytes a stored blob holds, checked against ``sha``; None when they do not match
    (a flipped byte, a blob cut short). Reads a compressed blob and a raw one (as memfs
    wrote them before compressing) alike."""
    if stored.startswith(BLOB_MAGIC):
        try:
            data = zlib.decompress(stored[len(BLOB_MAGIC) :])
        except zlib.error:
            data = None
        if data is not None and content_sha256(data) == sha:
            return data
    return stored if content_sha256(stored) == sha else None


def put_blob(store: ConditionalFileStore, data: bytes) -> tuple[str, bool]:
    """Store ``data`` (compressed, :func:`encode_blob`) under its hash unless a blob of that
    hash is already there.

    Returns the hash and whether the blob was already stored (then call :func:`keep_blob`
    once the record that refers to it is stored: a ``gc`` may have been deleting it)."""
    sha = content_sha256(data)
    try:
        store.write(blob_key(sha), encode_blob(data), create=True)
    except PathConflictError:  # stored once per hash: these very bytes
        return sha, True
    return sha, False


def put_version(
    store: ConditionalFileStore,
    options: HistoryOptions,
    record: VersionRecord,
    content: bytes | None,
    inline: str | None = None,
) -> str:
    """Store the version ``record`` of ``content`` (None: a delete, no content); its key. The
    one place a version is written: inline in its record when ``inline`` (its
    :func:`inline_form`) is given, else its blob before its record, and a reused blob checked
    after its record."""
    if content is None or inline is not None:
        return put_record(store, record, options, inline)
    _, reused = put_blob(store, content)
    key = put_record(store, record, options)
    if reused:
        keep_blob(store, content_sha256(content), encode_blob(content))
    return key


def keep_blob(store: ConditionalFileStore, sha: str, data: bytes) -> None:
    """Write the blob ``sha`` (its stored bytes ``data``, as :func:`put_blob` or an earlier
    memfs wrote them) again if it is gone: called after storing a record that refers to a
    blob found already stored, which a concurrent ``gc`` may have deleted as unreferenced
    before it saw the record (gc checks again after deleting)."""
    if not store.exists(blob_key(sha)):
        with contextlib.suppress(PathConflictError):
            store.write(blob_key(sha), data, create=True)


RECORD_ATTEMPTS = 4
"""Ids a record tries when its key is taken (48 random bits: a taken key is a test's fixed id)."""


def put_record(
    store: ConditionalFileStore,
    record: VersionRecord,
    options: HistoryOptions,
    inline: str | None = None,
) -> str:
    """Store ``record`` (with its content ``inline``, when given) create-only, a fresh id if
    its key is taken; the key it was stored at."""
    for _ in range(RECORD_ATTEMPTS - 1):
        try:
            store.write(record.key, stored_bytes(record, inline), create=True)
            return record.key
        except PathConflictError:
            record = record.replace(id=options.new_id())
    store.write(record.key, stored_bytes(record, inline), create=True)  # the last: its conflict
    return record.key


def new_record(
    options: HistoryOptions,
    *,
    path: str,
    operation: Operation,
    actor: str,
    data: bytes | None,
    sha256: str | None,
    parent: str | None,
    moved_from: str | None = None,
    moved_to: str | None = None,
    restored_from: str | None = None,
) -> VersionRecord:
    return VersionRecord(
        id=options.new_id(),
        path=path,
        operation=operation,
        time=options.now(),
        actor=actor,
        sha256=sha256,
        size=None if data is None else len(data),
        parent=parent,
        moved_from=moved_from,
        moved_to=moved_to,
        restored_from=restored_from,
    )


# -- reading and pruning ---------------------------------------------------------------------------


@dataclass(frozen=True)
class RecordListing:
    """What one listing of a records directory (or of all of them) found."""

    loose: list[str]
    """Keys of the records stored on their own, sorted (oldest first per file)."""
    packs: list[str]
    """Keys of the packs (:data:`PACK_NAME`), sorted."""


def list_records(store: ConditionalFileStore, path: str | None = None) -> RecordListing:
    """The loose records and packs of ``path`` (every file's when None): one listing."""
    where = RECORDS_DIR if path is None else records_dir(path)
    loose, packs = [], []
    for key in store.ls(where):
        if parse_record_name(key) is not None:
            loose.append(key)
        elif is_pack_key(key):
            packs.append(key)
    return RecordListing(sorted(loose), sorted(packs))


def record_keys(store: ConditionalFileStore, path: str | None = None) -> list[str]:
    """Keys of the records of ``path`` (every file's when None), loose and packed, oldest
    first per file (a packed record keeps the key it had loose)."""
    listing = list_records(store, path)
    keys = set(listing.loose)
    for key in listing.packs:
        keys.update(read_pack(store, key).entries)
    return sorted(keys)


def read_record(store: ConditionalFileStore, key: str) -> VersionRecord | None:
    """The record at ``key`` (loose, else packed), or None when it is gone or is not a
    record memfs wrote."""
    data = stored_record(store, key)
    try:
        return None if data is None else parse_stored(data)[0]
    except ValueError:
        return None


def stored_record(store: ConditionalFileStore, key: str) -> bytes | None:
    """The stored bytes of the record ``key``: loose, else its copy in its file's pack (None:
    in neither)."""
    data = _get(store, key)
    if data is None:
        data = read_pack(store, pack_of(key)).entries.get(key)
    return data


def _get(store: ConditionalFileStore, key: str) -> bytes | None:
    try:
        return store.read(key)
    except FileNotFoundError:
        return None


# -- packs -----------------------------------------------------------------------------------------

PACK_NAME = "pack.memfs"
"""The name of a file's pack in its records directory (never a record's name)."""

PACK_MAGIC = b"memfs-pack 1"
"""A pack's first line, followed by its count of records: ``memfs-pack 1 <count>``. Each line
after it is ``<record name> <sha256 of the record's bytes> <the bytes>`` (records are ASCII
JSON on one line; bytes that are not are ``=`` and their base64)."""

PACK_ATTEMPTS = 8
"""Rounds a pack rewrite tries when other pods keep rewriting the same pack; past them the
records stay loose (nothing lost; a later change packs them)."""


def pack_key(path: str) -> str:
    return f"{records_dir(path)}/{PACK_NAME}"


def pack_of(record: str) -> str:
    """The key of the pack a record with key ``record`` would be packed in."""
    return f"{record.rpartition('/')[0]}/{PACK_NAME}"


def is_pack_key(key: str) -> bool:
    where, _, name = key.rpartition("/")
    return name == PACK_NAME and where.rpartition("/")[0] == RECORDS_DIR


@dataclass
class Pack:
    """A pack as read: its intact records, what is damaged in it, and the hash it was read at."""

    key: str
    entries: dict[str, bytes] = dataclasses.field(default_factory=dict)
    """record key -> the record's stored bytes, each checked against the hash on its line."""
    damaged: list[tuple[str, str]] = dataclasses.field(default_factory=list)
    """(key, reason) of each damaged line (the record's key, else ``<pack key>#<line>``) and
    of a pack cut short (the pack's key)."""
    kept: list[bytes] = dataclasses.field(default_factory=list)
    """The damaged lines as stored: a rewrite keeps them, so the damage is still reported."""
    sha: str | None = None
    """sha256 of the pack's stored bytes; None: there is no pack."""


def encode_pack(entries: dict[str, bytes], kept: Sequence[bytes] = ()) -> bytes:
    """A pack of ``entries`` (record key -> stored bytes) and the damaged lines ``kept``."""
    lines = [PACK_MAGIC + b" %d" % (len(entries) + len(kept))]
    for key in sorted(entries):
        data = entries[key]
        body = data if _one_ascii_line(data) else b"=" + base64.b64encode(data)
        name = key.rpartition("/")[2].encode("ascii")
        lines.append(b"%s %s %s" % (name, content_sha256(data).encode("ascii"), body))
    lines.extend(kept)
    return b"\n".join(lines) + b"\n"


def _one_ascii_line(data: bytes) -> bool:
    return data.isascii() and b"\n" not in data and not data.startswith(b"=")


def parse_pack(key: str, data: bytes) -> Pack:
    """The pack stored at ``key`` as :class:`Pack`: every line is checked on its own, so a
    damaged line or a pack cut short is reported and the other records still read."""
    pack = Pack(key=key, sha=content_sha256(data))
    where = key.rpartition("/")[0]
    header, *lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()  # the newline ending the last line
    count: int | None = None
    head = header.split(b" ")
    if b" ".join(head[:2]) == PACK_MAGIC and len(head) == 3 and head[2].isdigit():
        count = int(head[2])
    else:
        pack.damaged.append((key, "not a memfs pack (its first line is not a pack's header)"))
    for n, line in enumerate(lines, start=2):
        name, sha, body = [*line.split(b" ", 2), b"", b""][:3]
        record = f"{where}/{name.decode('ascii', 'replace')}"
        named = parse_record_name(record) is not None
        data_ = _pack_body(body)
        if (
            named
            and record not in pack.entries
            and data_ is not None
            and content_sha256(data_) == sha.decode("ascii", "replace")
        ):
            pack.entries[record] = data_
            continue
        pack.damaged.append(
            (
                record if named else f"{key}#{n}",
                f"its line {n} in the pack {key} is damaged (it does not match its hash)",
            )
        )
        pack.kept.append(line)
    if count is not None and len(lines) < count:
        missing = count - len(lines)
        pack.damaged.append(
            (key, f"the pack is cut short: {missing} of its {count} records are missing")
        )
    return pack


def _pack_body(body: bytes) -> bytes | None:
    if not body.startswith(b"="):
        return body
    try:
        return base64.b64decode(body[1:], validate=True)
    except (binascii.Error, ValueError):
        return None


def read_pack(store: ConditionalFileStore, key: str) -> Pack:
    """The pack at ``key`` (an empty one, ``sha`` None, when there is none)."""
    data = _get(store, key)
    return Pack(key=key) if data is None else parse_pack(key, data)


def _write_pack(store: ConditionalFileStore, pack: Pack, entries: dict[str, bytes]) -> bool:
    """Store ``entries`` (and the damaged lines ``pack`` kept) over ``pack`` as read,
    conditional on its bytes (no pack left when nothing is); False when another pod rewrote
    it since (read it again)."""
    try:
        if not entries and not pack.kept:
            if pack.sha is not None:
                store.delete(pack.key, expected_sha256=pack.sha)
            return True
        data = encode_pack(entries, pack.kept)
        store.write(pack.key, data, expected_sha256=pack.sha, create=pack.sha is None)
    except (PreconditionFailedError, PathConflictError, FileNotFoundError):
        return False
    return True


def pack_records(store: ConditionalFileStore, path: str, loose: Sequence[str]) -> list[str]:
    """Move the loose records ``loose`` of ``path`` into its pack; the keys moved. Each loose
    record is deleted after the pack holding it is stored, and only if it still holds the
    bytes packed: one a redaction rewrote meanwhile is packed again (its new bytes)."""
    key = pack_key(path)
    moved: list[str] = []
    pending = list(loose)
    for _ in range(PACK_ATTEMPTS):
        held = {k: data for k in pending if (data := _get(store, k)) is not None}
        if not held:
            break
        pack = read_pack(store, key)
        if not _write_pack(store, pack, {**pack.entries, **held}):
            continue
        pending = []
        deletes = [(k, content_sha256(data)) for k, data in held.items()]
        for (k, _), failed in zip(deletes, delete_all(store, deletes), strict=True):
            if isinstance(failed, (FileNotFoundError, PreconditionFailedError)):
                # rewritten since it was read (a redaction): packed again next round; gone
                # (another packer moved it, or it was pruned): that round finds nothing
                pending.append(k)
                continue
            if failed is not None:
                raise failed
            moved.append(k)
        if not pending:
            break
    return moved


def delete_records(
    store: ConditionalFileStore, keys: Sequence[str], packs: Sequence[str] | None = None
) -> list[str]:
    """Delete the records ``keys``, loose and packed; the keys deleted. ``packs``: the packs
    to look in (those a listing found; None: the pack of each key's directory)."""
    gone = set()
    for key, failed in zip(keys, delete_all(store, [(k, None) for k in keys]), strict=True):
        if failed is None:
            gone.add(key)
        elif not isinstance(failed, FileNotFoundError):
            raise failed
    wanted = {pack_of(k) for k in keys}
    for pk in sorted(wanted if packs is None else wanted & set(packs)):
        for _ in range(PACK_ATTEMPTS):
            pack = read_pack(store, pk)
            drop = [k for k in keys if k in pack.entries]
            if not drop:
                break
            if _write_pack(store, pack, {k: v for k, v in pack.entries.items() if k not in drop}):
                gone.update(drop)
                break
    return sorted(gone)


def rewrite_record(store: ConditionalFileStore, key: str, new: Callable[[bytes], bytes]) -> None:
    """Store ``new(old)`` over the record ``key``, its packed copy and its loose one alike,
    each conditional on its bytes; PreconditionFailedError when one changed meanwhile (the
    pack first: when it keeps changing, nothing was rewritten), FileNotFoundError when the
    record is in neither."""
    found = False
    for _ in range(PACK_ATTEMPTS):
        pack = read_pack(store, pack_of(key))
        packed = pack.entries.get(key)
        if packed is None:
            break
        if _write_pack(store, pack, {**pack.entries, key: new(packed)}):
            found = True
            break
    else:
        raise PreconditionFailedError(pack_of(key), None, None)
    old = _get(store, key)
    if old is not None:
        store.write(key, new(old), expected_sha256=content_sha256(old))
        found = True
    if not found:
        raise FileNotFoundError(key)


@dataclass
class LoadedRecords:
    """Every record a listing names, as stored: loose over packed."""

    stored: dict[str, bytes]
    """record key -> its stored bytes."""
    damaged: list[tuple[str, str]]
    """(key, reason) of what the packs hold damaged."""


def load_records(
    store: ConditionalFileStore,
    listing: RecordListing,
    reader: Callable[[Callable[[str], bytes | None], list[str]], Any] = map,
) -> LoadedRecords:
    """Read every object ``listing`` names (``reader``: a ``map`` that may read them at
    once); a record gone meanwhile (pruned, packed) is left out."""
    objects = [*listing.packs, *listing.loose]
    datas = list(reader(lambda k: _get(store, k), objects))
    stored: dict[str, bytes] = {}
    damaged: list[tuple[str, str]] = []
    for key, data in zip(listing.packs, datas, strict=False):
        if data is not None:
            pack = parse_pack(key, data)
            stored.update(pack.entries)
            damaged += pack.damaged
    vanished = set()
    for key, data in zip(listing.loose, datas[len(listing.packs) :], strict=True):
        if data is not None:
            stored[key] = data
        elif key not in stored:
            vanished.add(pack_of(key))
    for key in sorted(vanished):  # gone since the listing: pruned, or packed meanwhile
        pack = read_pack(store, key)
        stored.update({k: v for k, v in pack.entries.items() if k not in stored})
        if key not in listing.packs:
            damaged += pack.damaged
    return LoadedRecords(dict(sorted(stored.items())), damaged)


def applied_order(records: Sequence[tuple[str, VersionRecord]], head_sha: str | None) -> list[str]:
    """Keys of one file's records in the order the store applied them, oldest first.
    Records on no chain (:func:`chain_of`) come first, in name order."""
    loose, chain = chain_of(records, head_sha)
    return loose + chain


def chain_of(
    records: Sequence[tuple[str, VersionRecord]], head_sha: str | None
) -> tuple[list[str], list[str]]:
    """One file's record keys as (on no chain, in name order; the chain, oldest first).

    The order comes from the parent chain (each change names the hash of the content it
    replaced, and its file write was conditional on it), never from the times in the records'
    names: those are each writer's own clock, and pods' clocks disagree. The chain is walked
    back from the record that holds ``head_sha`` (the file's content now; None: no file, then
    from a delete), the one with the longest chain when several hold it (a restore writes old
    bytes again). A record on no chain is a write killed between its version and its file, or
    one in flight whose file is not written yet."""
    recs = [r for _, r in records]
    by_sha: dict[str | None, list[int]] = {}
    for i, r in enumerate(recs):
        by_sha.setdefault(None if r.operation == "deleted" else r.sha256, []).append(i)
    heads = [i for i in by_sha.get(head_sha, []) if not recs[i].redacted]
    chain: list[int] = []
    for start in sorted(heads, key=lambda i: records[i][0]):
        walked = _walk(recs, by_sha, start)
        if len(walked) >= len(chain):
            chain = walked
    on_chain = set(chain)
    loose = sorted((i for i in range(len(recs)) if i not in on_chain), key=lambda i: records[i][0])
    return [records[i][0] for i in loose], [records[i][0] for i in chain[::-1]]


def _walk(recs: list[VersionRecord], by_sha: dict[str | None, list[int]], start: int) -> list[int]:
    """The chain from ``start`` back through each record's parent (None: after a delete); a
    redacted version stands for any parent (it lost its hash)."""
    chain, used = [start], {start}
    while True:
        parent = recs[chain[-1]].parent
        if parent is None and recs[chain[-1]].operation == "unrecorded":
            return chain  # a baseline starts a chain
        pool = [i for i in by_sha.get(parent, []) if i not in used]
        pool = pool or [i for i, r in enumerate(recs) if r.redacted and i not in used]
        if not pool:
            return chain
        chain.append(max(pool))
        used.add(chain[-1])


def to_prune(
    records: Sequence[tuple[str, VersionRecord]],
    retention: Retention,
    now: dt.datetime,
    head_sha: str | None,
) -> list[str]:
    """Which of one file's ``records`` ``retention`` drops, in the order applied: the
    oldest beyond ``keep``, and by age only an oldest run (a version is dropped for its age
    only with every version before it, so a writer's clock ahead or behind cannot make
    retention keep an old version and drop a newer one). The current version is always kept.
    Only the chain is pruned (:func:`chain_of`): a record on no chain may be a writer's in
    flight, newer than the file. When no record holds ``head_sha`` there is no chain, so
    nothing is dropped: the file changed after its records were listed; a later pass prunes."""
    ordered = chain_of(records, head_sha)[1]
    if retention.keeps_everything or len(ordered) <= 1:
        return []
    drop: set[str] = set()
    if retention.keep is not None and len(ordered) > retention.keep:
        drop.update(ordered[: len(ordered) - retention.keep])
    if retention.max_age_days is not None:
        cutoff = now - dt.timedelta(days=retention.max_age_days)
        times = {key: r.time for key, r in records}
        for key in ordered:
            if not _before(times[key], cutoff):
                break
            drop.add(key)
    drop.discard(ordered[-1])
    return sorted(drop)


def _before(time: dt.datetime, cutoff: dt.datetime) -> bool:
    try:
        return time < cutoff
    except TypeError:  # a naive time cannot be compared: keep the version
        return False


def prune_file(
    store: ConditionalFileStore,
    path: str,
    retention: Retention,
    now: dt.datetime,
    head_sha: str | None,
    listing: RecordListing | None = None,
) -> list[str]:
    """Delete the records of ``path`` (those ``listing`` names, listed when None) that
    ``retention`` drops (``head_sha``: the file's content now, None for no file); the keys
    deleted."""
    if retention.keeps_everything:
        return []
    listing = list_records(store, path) if listing is None else listing
    if (
        retention.max_age_days is None
        and not listing.packs
        and len(listing.loose) <= (retention.keep or 0)
    ):
        return []  # nothing to drop: no record is read
    loaded = load_records(store, listing)
    records = []
    for key, data in loaded.stored.items():
        with contextlib.suppress(ValueError):
            records.append((key, parse_stored(data)[0]))
    drop = to_prune(records, retention, now, head_sha)
    return delete_records(store, drop, listing.packs) if drop else []
