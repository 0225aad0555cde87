"""Version records and retention (memfs.versions): settings and stored records that cannot be
used are refused with one line; a record id already taken is replaced by a fresh one."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from memfs import InMemoryFileStore, versions
from memfs.errors import PathConflictError

NOW = dt.datetime(2026, 1, 5, 12, 0, tzinfo=dt.UTC)


@pytest.mark.parametrize(
    ("settings", "says"),
    [
        ({"keep": 0}, "keep=0: keep at least 1 version per file."),
        ({"keep": True}, "keep=True: keep at least 1 version per file."),
        ({"max_age_days": -1}, "max_age_days=-1: give an age of 0 days or more."),
        ({"max_age_days": float("nan")}, "max_age_days=nan: give an age of 0 days or more."),
    ],
)
def test_a_retention_that_keeps_nothing_is_refused(settings: dict[str, object], says: str) -> None:
    with pytest.raises(ValueError) as caught:
        versions.Retention(**settings)  # type: ignore[arg-type]
    assert str(caught.value) == says


def _record(**fields: object) -> bytes:
    base = {
        "id": "ab12",
        "path": "memory/a.md",
        "operation": "modified",
        "time": "2026-01-05T12:00:00Z",
    }
    return json.dumps({**base, **fields}).encode()


def test_a_stored_flag_that_is_not_true_or_false_is_not_a_record() -> None:
    assert versions.VersionRecord.from_bytes(_record(redacted=False)).redacted is False
    with pytest.raises(ValueError) as caught:
        versions.VersionRecord.from_bytes(_record(redacted="yes"))
    assert str(caught.value) == "not a version record ('redacted' is not true or false: 'yes')"


def test_only_a_json_name_with_a_record_stamp_names_a_record() -> None:
    key = versions.record_key("memory/a.md", NOW, "ab12")
    assert versions.parse_record_name(key) == (NOW, "ab12")
    folder = key.rpartition("/")[0]
    assert versions.parse_record_name(f"{folder}/notes.txt") is None
    assert versions.parse_record_name(f"{folder}/yesterday-ab12.json") is None
    store = InMemoryFileStore()
    for name in (key, f"{folder}/notes.txt", f"{folder}/yesterday-ab12.json"):
        store.write(name, b"{}")
    assert versions.record_keys(store, "memory/a.md") == [key]


def test_a_record_id_already_taken_is_replaced_by_a_fresh_one() -> None:
    ids = iter(["fresh1", "fresh2", "fresh3", "fresh4"])
    options = versions.HistoryOptions(now=lambda: NOW, new_id=lambda: next(ids))
    record = versions.VersionRecord(id="taken", path="memory/a.md", operation="modified", time=NOW)
    store = InMemoryFileStore()
    store.write(record.key, b"someone else's record")
    key = versions.put_record(store, record, options)
    assert key == versions.record_key("memory/a.md", NOW, "fresh1")
    assert versions.VersionRecord.from_bytes(store.read(key)).id == "fresh1"
    assert store.read(record.key) == b"someone else's record"


def test_a_record_is_stored_at_its_last_fresh_id_when_every_earlier_one_is_taken() -> None:
    fresh = [f"fresh{n}" for n in range(1, versions.RECORD_ATTEMPTS)]
    ids = iter(fresh)
    options = versions.HistoryOptions(now=lambda: NOW, new_id=lambda: next(ids))
    record = versions.VersionRecord(id="taken", path="memory/a.md", operation="modified", time=NOW)
    store = InMemoryFileStore()
    taken = [record.key] + [versions.record_key("memory/a.md", NOW, i) for i in fresh[:-1]]
    for key in taken:
        store.write(key, b"someone else's record")
    key = versions.put_record(store, record, options)
    assert key == versions.record_key("memory/a.md", NOW, fresh[-1])
    assert versions.VersionRecord.from_bytes(store.read(key)).id == fresh[-1]
    assert all(store.read(k) == b"someone else's record" for k in taken)


def test_a_record_whose_every_fresh_id_is_taken_too_raises_the_conflict() -> None:
    options = versions.HistoryOptions(now=lambda: NOW, new_id=lambda: "taken")
    record = versions.VersionRecord(id="taken", path="memory/a.md", operation="modified", time=NOW)
    store = InMemoryFileStore()
    store.write(record.key, b"someone else's record")
    with pytest.raises(PathConflictError):
        versions.put_record(store, record, options)
    assert store.ls(versions.RECORDS_DIR) == [record.key]


def test_pruning_under_a_retention_that_keeps_everything_deletes_nothing() -> None:
    store = InMemoryFileStore()
    keys = [
        versions.record_key("memory/a.md", NOW - dt.timedelta(days=d), f"id{d}") for d in range(3)
    ]
    for key in keys:
        store.write(key, b"{}")
    assert versions.prune_file(store, "memory/a.md", versions.Retention(), NOW, None) == []
    assert sorted(store.ls(versions.RECORDS_DIR)) == sorted(keys)
