"""Packs of version records: a long history is read in a few objects, and stays as trustworthy
as loose records. A damaged pack, or a damaged record inside one, is listed as damaged with its
key and never used; show and restore still check every version's sha256; pods packing,
pruning and redacting one file at once lose no record and leave no redacted content behind.

Each runs on local disk, the in-memory store and the moto S3 server (the fixture of
``tests/test_s3.py``); the races are driven by a store that runs the other pod's step at a
chosen call, so they are decided by counts, never by sleeps."""

# ruff: noqa: F811  (the store and moto fixtures are imported, then taken as arguments)
from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from memfs import InMemoryFileStore, LocalFileStore, MemFS, versions
from memfs.errors import VersionError
from memfs.history import History
from memfs.versions import HistoryOptions, Retention

from tests.conftest import TODAY
from tests.test_history import memory
from tests.test_history_trust import BUCKET, Clock, _put, store  # noqa: F401

if BUCKET:
    from tests.test_s3 import s3_server  # noqa: F401

PATH = "memory/role.md"


def mount(store: Any, *, pack_after: int, pod: int = 0, **options: Any) -> MemFS:
    """A workspace keeping every version unless told otherwise, ids from a counter (each
    ``pod`` its own)."""
    counter = itertools.count(pod << 32 | 1)
    opts = HistoryOptions(
        now=Clock(),
        new_id=lambda: f"{next(counter):012x}",
        retention=options.pop("retention", Retention()),
        pack_after=pack_after,
        **options,
    )
    return MemFS(store, clock=lambda: TODAY, history=opts, actor="tester")


def body(i: int) -> bytes:
    return memory("role", f"Version {i} of the role.")


def write(fs: MemFS, n: int, start: int = 0) -> None:
    for i in range(start, start + n):
        fs.pipe_file(PATH, body(i))


def summary(fs: MemFS) -> list[tuple[str, str, str]]:
    return [(v.id, v.record.operation, v.status) for v in History(fs).log(PATH).versions]


def pack_of(store: Any) -> str:
    return versions.pack_key(PATH)


def stored(store: Any) -> bytes:
    """Every object under the history, concatenated (to look for content that must be gone)."""
    return b"".join(store.read(k) for k in store.ls(versions.HISTORY_DIR))


# -- a long history is packed and reads as it did loose ------------------------------------------


def test_a_long_history_is_packed_and_logs_shows_and_restores_as_loose(store: Any) -> None:
    fs = mount(store, pack_after=8)
    loose = mount(InMemoryFileStore(), pack_after=0)
    write(fs, 30)
    write(loose, 30)
    listing = versions.list_records(store, PATH)
    assert listing.packs == [pack_of(store)] and len(listing.loose) <= 8
    assert len(versions.record_keys(store, PATH)) == 30
    assert summary(fs) == summary(loose)
    h = History(fs)
    log = h.log(PATH)
    assert not log.damaged and [h.content(v) for v in log.versions] == [body(i) for i in range(30)]
    h.restore(PATH, log.versions[2].id)
    assert fs.raw.cat_file(PATH) == body(2)
    assert History(fs).log(PATH).versions[-1].record.operation == "restored"


def test_a_workspace_with_the_defaults_never_packs(store: Any) -> None:
    fs = MemFS(store, clock=lambda: TODAY, history=HistoryOptions(now=Clock()))
    for i in range(versions.PACK_AFTER + 10):
        fs.pipe_file(PATH, body(i))
    assert versions.list_records(store, PATH).packs == []


def test_retention_prunes_packed_records_too(store: Any) -> None:
    fs = mount(store, pack_after=3, retention=Retention(keep=8))
    write(fs, 40)
    kept = summary(fs)
    assert 8 <= len(kept) <= 8 + versions.prune_slack(8) + 1
    assert versions.list_records(store, PATH).packs  # some of those kept are packed
    h = History(fs)
    report = h.gc(Retention(keep=2), baseline=False)
    assert report.records_deleted == len(kept) - 2
    log = h.log(PATH)
    assert [h.content(v) for v in log.versions] == [body(38), body(39)]
    assert len(versions.record_keys(store, PATH)) == 2


def test_gc_keeps_the_blobs_that_packed_records_refer_to(store: Any) -> None:
    clock = Clock()
    fs = mount(store, pack_after=2, inline_limit=0)
    fs = MemFS(
        store,
        clock=lambda: TODAY,
        history=HistoryOptions(now=clock, retention=Retention(), pack_after=2, inline_limit=0),
    )
    write(fs, 6)
    assert versions.list_records(store, PATH).packs
    h = History(fs)
    h.gc()
    clock.skip(versions.GC_GRACE * 2)
    report = h.gc()
    assert report.blobs_deleted == 0
    assert [h.content(v) for v in History(fs).log(PATH).versions] == [body(i) for i in range(6)]


# -- damage inside a pack ------------------------------------------------------------------------


def _packed(store: Any) -> tuple[MemFS, bytes, list[str]]:
    """Twelve versions, all packed but the last two: (fs, the pack's bytes, the packed keys)."""
    fs = mount(store, pack_after=9)
    write(fs, 12)
    assert len(versions.list_records(store, PATH).loose) == 2
    data = store.read(pack_of(store))
    return fs, data, sorted(versions.read_pack(store, pack_of(store)).entries)


def test_a_flipped_byte_damages_that_packed_record_only(store: Any, tmp_path: Path) -> None:
    fs, data, keys = _packed(store)
    lines = data.split(b"\n")
    lines[4] = lines[4][:-20] + bytes([lines[4][-20] ^ 1]) + lines[4][-19:]  # the 4th record
    _put(store, tmp_path, pack_of(store), b"\n".join(lines))
    h = History(fs)
    log = h.log(PATH)
    (damaged,) = log.damaged
    assert damaged.key == keys[3] and pack_of(store) in damaged.reason
    assert "line 5" in damaged.reason and "damaged" in damaged.reason
    assert len(log.versions) == 11 and keys[3] not in {v.key for v in log.versions}
    with pytest.raises(VersionError) as info:
        h.restore(PATH, versions.parse_record_name(keys[3])[1])  # type: ignore[index]
    assert "is damaged" in str(info.value) and "the live file was not touched" in str(info.value)
    assert fs.raw.cat_file(PATH) == body(11)
    # the next packing keeps the damaged line: still listed, never dropped
    write(fs, 10, start=12)
    again = History(fs).log(PATH)
    assert [d.key for d in again.damaged] == [keys[3]] and len(again.versions) == 21


def test_a_pack_cut_short_lists_what_is_missing(store: Any, tmp_path: Path) -> None:
    fs, data, keys = _packed(store)
    sixth = [i for i, c in enumerate(data) if c == ord("\n")][5] + 1
    _put(store, tmp_path, pack_of(store), data[: sixth + 200])  # in the sixth record's body
    log = History(fs).log(PATH)
    reasons = {d.key: d.reason for d in log.damaged}
    listed = {v.key for v in log.versions}
    assert "cut short" in reasons[pack_of(store)]
    cut = [k for k in keys if k in reasons]  # the line cut in half
    assert cut == [keys[5]] and cut[0] not in listed
    missing = int(reasons[pack_of(store)].split("short: ")[1].split(" ")[0])
    # every packed record is listed, listed as damaged, or counted as missing
    assert len(listed & set(keys)) + len(cut) + missing == len(keys)


def test_a_pack_with_a_damaged_header_is_listed_and_its_records_still_read(
    store: Any, tmp_path: Path
) -> None:
    fs, data, _ = _packed(store)
    _put(store, tmp_path, pack_of(store), b"garbage" + data[data.index(b"\n") :])
    log = History(fs).log(PATH)
    assert [(d.key, "not a memfs pack" in d.reason) for d in log.damaged] == [
        (pack_of(store), True)
    ]
    assert len(log.versions) == 12


def test_a_foreign_record_inside_a_pack_is_listed_as_damaged(store: Any, tmp_path: Path) -> None:
    fs, _, keys = _packed(store)
    pack = versions.read_pack(store, pack_of(store))
    raw = json.loads(pack.entries[keys[0]])
    raw["path"] = "../outside.md"
    entries = {**pack.entries, keys[0]: json.dumps(raw).encode()}
    _put(store, tmp_path, pack_of(store), versions.encode_pack(entries))
    log = History(fs).log(PATH)
    (damaged,) = log.damaged
    assert damaged.key == keys[0] and "outside the workspace" in damaged.reason
    assert len(log.versions) == 11


def test_packed_content_that_does_not_match_its_hash_is_refused(store: Any, tmp_path: Path) -> None:
    fs, _, keys = _packed(store)
    pack = versions.read_pack(store, pack_of(store))
    raw = json.loads(pack.entries[keys[1]])
    raw[versions.CONTENT_FIELD] = versions.inline_form(b"forged\n", versions.INLINE_LIMIT)
    # the line's own hash is right: only the record's sha256 can tell
    entries = {**pack.entries, keys[1]: json.dumps(raw).encode()}
    _put(store, tmp_path, pack_of(store), versions.encode_pack(entries))
    h = History(fs)
    version = versions.parse_record_name(keys[1])[1]  # type: ignore[index]
    for attempt in (h.show, h.restore):
        with pytest.raises(VersionError) as info:
            attempt(PATH, version)
        assert str(info.value).startswith(f"the stored content of version {version} of {PATH}")
    assert fs.raw.cat_file(PATH) == body(11)


# -- pods at once ------------------------------------------------------------------------------


class Interleaved:
    """``inner``, running ``step`` (another pod's) once, at the ``at``-th call of ``method``
    on ``key``, before that call."""

    conditional_writes = True

    def __init__(
        self, inner: Any, method: str, key: str, step: Callable[[], object], at: int = 1
    ) -> None:
        self.inner, self.method, self.key, self.step, self.left = inner, method, key, step, at
        self.ran = False

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self.inner, name)
        if name != self.method:
            return attr

        def call(path: str, *args: Any, **kwargs: Any) -> Any:
            if path == self.key or (self.key == "*loose*" and versions.parse_record_name(path)):
                self.left -= 1
                if self.left == 0:
                    self.step()
                    self.ran = True
            return attr(path, *args, **kwargs)

        return call


def _loose(store: Any, n: int) -> MemFS:
    fs = mount(store, pack_after=0)
    write(fs, n)
    return fs


@pytest.mark.parametrize(
    ("method", "key"),
    [("write", "pack"), ("delete", "*loose*")],
    ids=["before-the-pack-write", "between-the-pack-and-the-deletes"],
)
def test_two_pods_packing_at_once_lose_no_record(store: Any, method: str, key: str) -> None:
    fs = _loose(store, 20)
    before = summary(fs)
    loose = versions.list_records(store, PATH).loose
    other = [0]

    def pod_b() -> None:  # listed later: every record; pod A packs the ten it listed
        other[0] = len(versions.pack_records(store, PATH, loose))

    racing = Interleaved(store, method, pack_of(store) if key == "pack" else key, pod_b)
    versions.pack_records(racing, PATH, loose[:10])
    assert racing.ran and other[0] > 0  # pod B did pack, in the middle of pod A
    listing = versions.list_records(store, PATH)
    assert listing.loose == [] and listing.packs == [pack_of(store)]
    assert versions.record_keys(store, PATH) == sorted(loose)
    assert summary(fs) == before and not History(fs).log(PATH).damaged


def test_a_pod_writing_while_another_packs_loses_no_record(store: Any) -> None:
    fs = _loose(store, 20)
    writer = mount(store, pack_after=0)
    loose = versions.list_records(store, PATH).loose

    def pod_b() -> None:  # three changes land between pod A's listing and its pack
        for i in range(3):
            writer.pipe_file(PATH, body(100 + i))

    racing = Interleaved(store, "write", pack_of(store), pod_b)
    versions.pack_records(racing, PATH, loose)
    assert len(versions.record_keys(store, PATH)) == 23
    assert len(versions.list_records(store, PATH).loose) == 3  # pod B's, packed next time
    log = History(fs).log(PATH)
    assert len(log.versions) == 23 and log.versions[-1].status == "current"


def test_pruning_while_another_pod_packs_loses_no_kept_record(store: Any) -> None:
    fs = _loose(store, 20)
    loose = versions.list_records(store, PATH).loose

    def pod_b() -> None:
        History(fs).gc(Retention(keep=5), baseline=False)

    racing = Interleaved(store, "write", pack_of(store), pod_b)
    versions.pack_records(racing, PATH, loose)
    h = History(fs)
    log = h.log(PATH)
    # the five newest are kept; records pod B pruned may come back from pod A's pack (its
    # read was before the prune): retention takes them again, none kept is lost
    assert [h.content(v) for v in log.versions][-5:] == [body(i) for i in range(15, 20)]
    h.gc(Retention(keep=5), baseline=False)
    assert [h.content(v) for v in History(fs).log(PATH).versions] == [
        body(i) for i in range(15, 20)
    ]


def _secret(fs: MemFS) -> tuple[str, bytes]:
    """The version id holding a secret (not current), and its content as a record holds it."""
    log = History(fs).log(PATH).versions
    version = log[3]
    inline = versions.inline_form(body(3), versions.INLINE_LIMIT)
    assert inline is not None
    return version.id, inline.encode()


def test_redacting_a_packed_version_removes_its_content_from_the_store(store: Any) -> None:
    fs = mount(store, pack_after=4)
    write(fs, 12)
    version, secret = _secret(fs)
    assert secret in stored(store)
    History(fs).redact(PATH, version)
    assert secret not in stored(store)
    (redacted,) = [v for v in History(fs).log(PATH).versions if v.id == version]
    assert redacted.status == "redacted"
    assert len(versions.record_keys(store, PATH)) == 12


@pytest.mark.parametrize(
    ("method", "key"),
    [("write", "pack"), ("delete", "*loose*")],
    ids=["after-the-packer-read-it", "after-the-pack-held-it"],
)
def test_a_redaction_racing_a_packer_leaves_no_content_behind(
    store: Any, method: str, key: str
) -> None:
    fs = _loose(store, 12)
    version, secret = _secret(fs)
    loose = versions.list_records(store, PATH).loose

    def pod_b() -> None:
        History(fs).redact(PATH, version)

    racing = Interleaved(store, method, pack_of(store) if key == "pack" else key, pod_b)
    versions.pack_records(racing, PATH, loose)
    assert racing.ran
    assert secret not in stored(store)
    assert versions.list_records(store, PATH).loose == []  # the redacted one packed again
    (redacted,) = [v for v in History(fs).log(PATH).versions if v.id == version]
    assert redacted.status == "redacted"


# -- what a log costs --------------------------------------------------------------------------


@pytest.mark.skipif(not BUCKET, reason="s3fs, moto and boto3 are needed for the S3 server")
def test_a_packed_log_on_s3_is_a_listing_and_a_read_per_object(s3_server: Any) -> None:
    import uuid

    from memfs import FsspecFileStore

    from tests.test_s3 import s3_filesystem

    root = f"{BUCKET}/items/{uuid.uuid4().hex[:12]}"
    s3 = FsspecFileStore(s3_filesystem(s3_server.endpoint), root=root)
    fs = mount(s3, pack_after=16)
    write(fs, 40)
    listing = versions.list_records(s3, PATH)
    assert len(listing.packs) == 1 and len(listing.loose) == 40 - 2 * 17
    before = s3_server.requests.copy()
    log = History(fs).log(PATH)
    sent = s3_server.requests - before
    assert len(log.versions) == 40
    # the listing; the pack, each loose record and the file
    assert dict(sent) == {"LIST": 1, "GET": 1 + len(listing.loose) + 1}


def test_a_local_store_holds_a_packed_history_in_few_files(tmp_path: Path) -> None:
    store = LocalFileStore(tmp_path / "ws")
    fs = mount(store, pack_after=8)
    write(fs, 50)
    files = list((tmp_path / "ws" / versions.RECORDS_DIR).rglob("*"))
    assert len([f for f in files if f.is_file()]) <= 9


# -- the edges -----------------------------------------------------------------------------------


def test_another_pod_finds_the_content_it_replaces_in_the_pack(store: Any) -> None:
    fs = mount(store, pack_after=4)
    write(fs, 5)  # the fifth change packed all five
    assert versions.list_records(store, PATH).loose == []
    mount(store, pack_after=4, pod=1).pipe_file(PATH, body(5))  # a pod that wrote none of them
    ops = [op for _, op, _ in summary(fs)]
    assert ops == ["created", *["modified"] * 5]  # no unrecorded copy of what it replaced


def test_a_record_memfs_did_not_write_in_a_pack_is_passed_over(store: Any) -> None:
    fs = mount(store, pack_after=4)
    write(fs, 5)
    pack = versions.read_pack(store, pack_of(store))
    newest = max(pack.entries)
    planted = newest.replace(newest.rpartition("-")[2], "ffffffffffff.json")
    store.write(pack_of(store), versions.encode_pack({**pack.entries, planted: b"not json"}))
    mount(store, pack_after=4, pod=1).pipe_file(PATH, body(5))
    log = History(fs).log(PATH)
    assert [op for _, op, _ in summary(fs)] == ["created", *["modified"] * 5]
    assert [d.key for d in log.damaged] == [planted] and "not JSON" in log.damaged[0].reason


def test_a_version_read_by_another_history_is_shown_from_the_pack(store: Any) -> None:
    fs = mount(store, pack_after=4)
    write(fs, 6)
    first = History(fs).log(PATH).versions[0]
    assert History(fs).content(first) == body(0)


def test_a_record_that_is_not_one_line_of_ascii_is_packed_as_base64(
    store: Any, tmp_path: Path
) -> None:
    fs = mount(store, pack_after=0)
    write(fs, 3)
    odd = versions.record_key(PATH, Clock()(), "eeeeeeeeeeee")
    store.write(odd, b"\xff not\na record")
    loose = versions.list_records(store, PATH).loose
    versions.pack_records(store, PATH, loose)
    data = store.read(pack_of(store))
    assert b"\xff" not in data and versions.read_pack(store, pack_of(store)).entries[odd] == (
        b"\xff not\na record"
    )
    log = History(fs).log(PATH)
    assert [d.key for d in log.damaged] == [odd] and len(log.versions) == 3
    # its base64 damaged: still listed, by its key
    _put(store, tmp_path, pack_of(store), data.replace(b" =", b" =!"))
    assert [d.key for d in History(fs).log(PATH).damaged] == [odd]


def test_a_pack_whose_records_are_all_pruned_is_removed(store: Any) -> None:
    fs = mount(store, pack_after=3)
    write(fs, 4)  # the fourth change packed all four
    write(fs, 1, start=4)
    assert len(versions.list_records(store, PATH).loose) == 1
    assert History(fs).gc(Retention(keep=1), baseline=False).records_deleted == 4
    assert versions.list_records(store, PATH).packs == []
    assert [History(fs).content(v) for v in History(fs).log(PATH).versions] == [body(4)]


def test_a_redaction_that_keeps_losing_the_pack_to_other_pods_says_run_again(store: Any) -> None:
    fs = mount(store, pack_after=4)
    write(fs, 8)
    version = History(fs).log(PATH).versions[1].id
    rewrites = [0]

    class Busy:
        """Another pod rewrites the pack before each of this one's writes of it."""

        conditional_writes = True

        def __getattr__(self, name: str) -> Any:
            return getattr(store, name)

        def write(self, path: str, data: bytes, **kwargs: Any) -> None:
            if path == pack_of(store):
                rewrites[0] += 1
                pack = versions.read_pack(store, path)
                again = versions.encode_pack(pack.entries, [b"# rewrite %d" % rewrites[0]])
                store.write(path, again, expected_sha256=pack.sha)
            store.write(path, data, **kwargs)

    busy = MemFS(Busy(), clock=lambda: TODAY, history=fs.history_options, actor="tester")
    with pytest.raises(VersionError) as info:
        History(busy).redact(PATH, version)
    assert str(info.value).endswith("changed meanwhile; run the command again.")
    assert rewrites[0] == versions.PACK_ATTEMPTS
    # nothing was rewritten: the version is as it was, and a second try (no race) redacts it
    (kept,) = [v for v in History(fs).log(PATH).versions if v.id == version]
    assert kept.status == "applied"
    assert History(fs).redact(PATH, version).status == "redacted"


def test_rewriting_a_record_that_is_nowhere_says_so() -> None:
    key = versions.record_key(PATH, Clock()(), "dddddddddddd")
    with pytest.raises(FileNotFoundError):
        versions.rewrite_record(InMemoryFileStore(), key, lambda old: old)


def test_a_damaged_loose_record_is_passed_over_by_another_pods_change(store: Any) -> None:
    fs = mount(store, pack_after=4)
    write(fs, 5)
    store.write(versions.record_key(PATH, Clock()(), "cccccccccccc"), b"{cut")
    mount(store, pack_after=4, pod=1).pipe_file(PATH, body(5))
    assert [op for _, op, _ in summary(fs)] == ["created", *["modified"] * 5]


def test_a_log_racing_a_packer_lists_every_version(store: Any) -> None:
    fs = _loose(store, 20)
    before = summary(fs)
    loose = versions.list_records(store, PATH).loose

    def pod_b() -> None:  # after the log listed the loose records, before it read them
        versions.pack_records(store, PATH, loose)

    racing = Interleaved(store, "read", "*loose*", pod_b)
    reader = MemFS(racing, clock=lambda: TODAY, history=fs.history_options, actor="tester")
    log = History(reader).log(PATH)
    assert racing.ran and versions.list_records(store, PATH).loose == []
    assert [(v.id, v.record.operation, v.status) for v in log.versions] == before
    assert not log.damaged
