"""gc at its edges: the list of waiting blobs that another pod rewrites at every try, or that
the host refuses to write; a memory file removed between gc's listing and its read; a stamp
that is no time; a retention cutoff without a time zone beside records with one."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest
from memfs import InMemoryFileStore, versions
from memfs.errors import PreconditionFailedError
from memfs.history import History
from memfs.versions import GC_PENDING, Retention, record_keys

from tests.test_history import T0, Ticks, memory
from tests.test_history_clocks import pod


def _orphan(store: Any, data: bytes) -> str:
    sha, reused = versions.put_blob(store, data)
    assert not reused
    return sha


def test_a_gc_list_rewritten_by_another_pod_at_every_try_is_left_to_the_next_gc(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = InMemoryFileStore()
    fs = pod(store, Ticks(), "w")
    fs.pipe_file("memory/a.md", memory("a", "v0"))
    sha = _orphan(store, b"orphan")
    real_write = store.write
    tries: list[str] = []

    def write(path: str, data: bytes, **kw: Any) -> Any:
        if path == GC_PENDING:  # another pod's gc writes the list just before this one
            tries.append(path)
            theirs = {"pending": {sha: {"other": f"2026-01-0{len(tries)}T00:00:00+00:00"}}}
            real_write(path, json.dumps(theirs).encode())
            raise PreconditionFailedError(path, kw.get("expected_sha256"), "theirs")
        return real_write(path, data, **kw)

    monkeypatch.setattr(store, "write", write)
    report = History(fs).gc(pod="me")
    assert len(tries) == 4  # it gives up after four merges: the next gc stamps again
    assert report.blobs_pending == 1 and report.blobs_deleted == 0
    assert report.pending_saved is not False
    assert store.exists(versions.blob_key(sha))
    listed = json.loads(store.read(GC_PENDING))["pending"]
    assert listed == {sha: {"other": "2026-01-04T00:00:00+00:00"}}  # the last pod's list stays


def test_a_gc_list_the_host_refuses_to_write_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    store = InMemoryFileStore()
    fs = pod(store, Ticks(), "w")
    fs.pipe_file("memory/a.md", memory("a", "v0"))
    sha = _orphan(store, b"orphan")
    real_write = store.write

    def write(path: str, data: bytes, **kw: Any) -> Any:
        if path == GC_PENDING:
            raise PermissionError(13, "Permission denied", path)
        return real_write(path, data, **kw)

    monkeypatch.setattr(store, "write", write)
    with pytest.raises(PermissionError, match="Permission denied"):
        History(fs).gc(pod="me")
    assert store.exists(versions.blob_key(sha))  # only a full disk is answered by deleting


def test_a_memory_file_removed_after_gc_listed_it_gets_no_baseline(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = InMemoryFileStore()
    fs = pod(store, Ticks(), "w")
    fs.pipe_file("memory/a.md", memory("a", "v0"))
    store.write("memory/b.md", memory("b", "unrecorded"))  # in no version: a baseline is due
    real_ls = store.ls

    def ls(path: str = "") -> list[str]:
        out = list(real_ls(path))
        if path == "" and store.exists("memory/b.md"):
            store.delete("memory/b.md")  # another process removes it right after the listing
        return out

    monkeypatch.setattr(store, "ls", ls)
    report = History(fs).gc(pod="me")
    assert report.baselines_recorded == 0
    assert list(record_keys(store, "memory/b.md")) == []


def test_a_stamp_that_is_no_time_is_stamped_again_and_only_delays() -> None:
    store = InMemoryFileStore()
    clock = Ticks()
    fs = pod(store, clock, "w")
    fs.pipe_file("memory/a.md", memory("a", "v0"))
    sha = _orphan(store, b"orphan")
    store.write(GC_PENDING, json.dumps({"pending": {sha: {"p": "yesterday"}}}).encode())
    h = History(fs)
    assert h.gc(pod="p").blobs_deleted == 0
    stamp = json.loads(store.read(GC_PENDING))["pending"][sha]["p"]
    assert dt.datetime.fromisoformat(stamp).tzinfo is not None  # a real time replaced it
    clock.now += versions.GC_GRACE
    assert h.gc(pod="p").blobs_deleted == 1
    assert not store.exists(versions.blob_key(sha))


def test_a_cutoff_without_a_time_zone_keeps_every_version() -> None:
    store = InMemoryFileStore()
    fs = pod(store, Ticks(T0), "w")
    for i in range(3):
        fs.pipe_file("memory/a.md", memory("a", f"v{i}"))
    records = [
        (k, r) for k in record_keys(store, "memory/a.md") if (r := versions.read_record(store, k))
    ]
    head = versions.content_sha256(memory("a", "v2"))
    aware_later = T0 + dt.timedelta(days=30)
    assert len(versions.to_prune(records, Retention(max_age_days=1), aware_later, head)) == 2
    naive_later = aware_later.replace(tzinfo=None)  # the records' times have a zone
    assert versions.to_prune(records, Retention(max_age_days=1), naive_later, head) == []
