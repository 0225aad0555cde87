"""Version history (memfs.history) refusing what it cannot do, in one line each, and the
records it will not use: stored among another file's records, or under another id."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest
from memfs import InMemoryFileStore, MemFS
from memfs.conflicts import content_sha256
from memfs.history import DamagedRecord, History, VersionError, _older, parse_age
from memfs.versions import HistoryOptions, Retention, VersionRecord, blob_key, record_key

from tests.conftest import TODAY

T0 = dt.datetime(2026, 12, 1, 9, 0, tzinfo=dt.UTC)


def memory(name: str, body: str) -> bytes:
    head = f"---\nname: {name}\nmetadata:\n  type: user\n  recorded: {TODAY}\n---\n"
    return f"{head}{body}\n".encode()


def mounted(**history: Any) -> MemFS:
    ticks = iter(T0 + dt.timedelta(seconds=n) for n in range(1, 1000))
    options = HistoryOptions(now=lambda: next(ticks), **history)
    return MemFS(InMemoryFileStore(), clock=lambda: TODAY, history=options, actor="tester")


@pytest.mark.parametrize(
    ("text", "days"), [("30", 30.0), ("30d", 30.0), (" 12H ", 0.5), ("36h", 1.5), ("0.5d", 0.5)]
)
def test_a_max_age_is_days_or_hours(text: str, days: float) -> None:
    assert parse_age(text) == days


def test_a_max_age_in_another_unit_is_refused() -> None:
    with pytest.raises(VersionError) as caught:
        parse_age("2w")
    assert str(caught.value) == "--max-age '2w': give days (30, 30d) or hours (12h)."


def test_a_pending_blob_time_without_a_time_zone_waits_for_a_later_gc() -> None:
    naive = dt.datetime(2026, 1, 1, 9, 0)
    assert _older(naive, T0, dt.timedelta(minutes=1)) is False
    assert _older(T0 - dt.timedelta(hours=1), T0, dt.timedelta(minutes=1)) is True


def test_the_workspace_root_has_no_versions() -> None:
    with pytest.raises(VersionError) as caught:
        History(mounted()).log("/")
    assert str(caught.value) == "The workspace root has no versions; name a file."


def test_a_redacted_version_cannot_be_redacted_again() -> None:
    fs = mounted()
    fs.pipe_file("memory/a.md", memory("a", "First."))
    fs.pipe_file("memory/a.md", memory("a", "Second."))
    h = History(fs)
    first = h.log("memory/a.md").versions[0].id
    h.redact("memory/a.md", first)
    with pytest.raises(VersionError) as caught:
        h.redact("memory/a.md", first)
    assert str(caught.value) == f"version {first} of memory/a.md is already redacted."


def test_a_redacted_newest_record_is_passed_over_when_finding_the_current_version() -> None:
    fs = mounted()
    fs.pipe_file("memory/a.md", memory("a", "First."))
    fs.pipe_file("memory/a.md", memory("a", "Second."))
    fs.store.write("memory/a.md", memory("a", "Changed outside memfs."))
    h = History(fs)
    second = h.log("memory/a.md").versions[1].id
    h.redact("memory/a.md", second)  # not the current content: the file changed since
    log = h.log("memory/a.md")
    assert [v.status for v in log.versions] == ["applied", "redacted"]
    assert log.unrecorded


def test_a_version_whose_content_is_gone_from_the_store_says_so() -> None:
    fs = mounted(inline_limit=0)  # every version's content in a blob
    fs.pipe_file("memory/a.md", memory("a", "First."))
    fs.pipe_file("memory/a.md", memory("a", "Second."))
    h = History(fs)
    first = h.log("memory/a.md").versions[0]
    fs.store.delete(blob_key(content_sha256(memory("a", "First."))))
    with pytest.raises(VersionError) as caught:
        h.show("memory/a.md", first.id)
    assert str(caught.value) == (
        f"the content of version {first.id} of memory/a.md is missing from the store."
    )


def test_records_stored_under_another_files_records_or_another_id_are_damaged() -> None:
    fs = mounted()
    fs.pipe_file("memory/a.md", memory("a", "A."))
    fs.pipe_file("memory/b.md", memory("b", "B."))
    h = History(fs)
    (b_version,) = h.log("memory/b.md").versions
    b_record = b_version.record
    a_dir_key = record_key("memory/a.md", T0 + dt.timedelta(days=1), b_record.id)
    fs.store.write(a_dir_key, b_record.to_bytes())  # b's record, among a's
    renamed = record_key("memory/b.md", T0 + dt.timedelta(days=1), "0000ffff")
    fs.store.write(renamed, b_record.to_bytes())  # b's record, under another id
    assert h.log("memory/a.md").damaged == [
        DamagedRecord(
            key=a_dir_key,
            reason="it names memory/b.md but is stored among another file's records",
        )
    ]
    assert h.log("memory/b.md").damaged == [
        DamagedRecord(key=renamed, reason=f"its name does not match its id {b_record.id!r}")
    ]
    assert [v.id for v in h.log("memory/b.md").versions] == [b_record.id]
    assert isinstance(VersionRecord.from_bytes(fs.store.read(renamed)), VersionRecord)


# -- another process working on the same history ---------------------------------------------------


class Racing(InMemoryFileStore):
    """A store in which another process acts at a chosen moment: ``before_read`` /
    ``before_write`` / ``before_delete`` run once for the key they name, then are dropped."""

    def __init__(self) -> None:
        super().__init__()
        self.before_read: dict[str, Callable[[], None]] = {}
        self.before_write: dict[str, Callable[[], None]] = {}
        self.before_delete: dict[str, Callable[[], None]] = {}

    def read(self, path: str) -> bytes:
        if (act := self.before_read.pop(path, None)) is not None:
            act()
        return super().read(path)

    def write(self, path: str, data: bytes, **conditions: Any) -> None:
        if (act := self.before_write.pop(path, None)) is not None:
            act()
        super().write(path, data, **conditions)

    def delete(self, path: str, *, expected_sha256: str | None = None) -> None:
        if (act := self.before_delete.pop(path, None)) is not None:
            act()
        super().delete(path, expected_sha256=expected_sha256)


def racing(**history: Any) -> tuple[MemFS, Racing]:
    store = Racing()
    ticks = iter(T0 + dt.timedelta(seconds=n) for n in range(1, 1000))
    options = HistoryOptions(now=lambda: next(ticks), **history)
    return MemFS(store, clock=lambda: TODAY, history=options, actor="tester"), store


def test_a_record_removed_between_the_listing_and_its_read_is_left_out() -> None:
    fs, store = racing()
    fs.pipe_file("memory/a.md", memory("a", "First."))
    fs.pipe_file("memory/a.md", memory("a", "Second."))
    h = History(fs)
    first, second = h.log("memory/a.md").versions
    store.before_read[first.key] = lambda: InMemoryFileStore.delete(store, first.key)
    log = h.log("memory/a.md")
    assert [v.id for v in log.versions] == [second.id]
    assert log.damaged == []


def test_a_record_changed_while_it_is_redacted_is_left_as_the_other_writer_made_it() -> None:
    fs, store = racing()
    fs.pipe_file("memory/a.md", memory("a", "First."))
    fs.pipe_file("memory/a.md", memory("a", "Second."))
    h = History(fs)
    first = h.log("memory/a.md").versions[0]
    theirs = first.record.replace(actor="someone else").to_bytes()
    store.before_write[first.key] = lambda: InMemoryFileStore.write(store, first.key, theirs)
    with pytest.raises(VersionError) as caught:
        h.redact("memory/a.md", first.id)
    assert str(caught.value) == (
        f"the record at {first.key} changed meanwhile; run the command again."
    )
    assert store.read(first.key) == theirs


def test_gc_counts_only_what_it_deleted_itself_beside_another_gc() -> None:
    fs, store = racing(inline_limit=0)  # every version's content in a blob
    fs.pipe_file("README.md", b"Not a memory: no versions.\n")
    for body in ("One.", "Two.", "Three."):
        fs.pipe_file("memory/a.md", memory("a", body))
    h = History(fs)
    oldest = h.log("memory/a.md").versions[0]
    # another gc deletes the oldest record just before this one does
    store.before_delete[oldest.key] = lambda: InMemoryFileStore.delete(store, oldest.key)
    report = h.gc(Retention(keep=2))
    assert (report.records_deleted, report.baselines_recorded) == (0, 0)
    assert len(h.log("memory/a.md").versions) == 2
    assert h.log("README.md").versions == []
    # the blob only that record named is now unreferenced; once due, another gc takes it first
    blob = blob_key(content_sha256(memory("a", "One.")))
    assert store.exists(blob)
    store.before_read[blob] = lambda: InMemoryFileStore.delete(store, blob)
    report = h.gc(Retention(keep=2), grace=dt.timedelta(0))
    assert (report.blobs_deleted, report.blobs_kept, report.blobs_pending) == (0, 0, 0)
    assert not store.exists(blob)
