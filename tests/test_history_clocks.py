"""No clock trusted across pods: retention orders versions by their parent chain, gc's grace is
measured on one pod's own clock, and gc never records a change a racing writer is making.

Each test drives two pods (two MemFS/History over one store, each with its own injected clock,
one skewed) on a local disk, in memory and on the moto S3 server; the race runs two real
processes and is driven by counts."""

from __future__ import annotations

import datetime as dt
import multiprocessing
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from memfs import InMemoryFileStore, LocalFileStore, MemFS, versions
from memfs.conflicts import content_sha256
from memfs.history import History
from memfs.versions import (
    BLOBS_DIR,
    GC_GRACE,
    HistoryOptions,
    Retention,
    VersionRecord,
    blob_key,
    record_keys,
)

from tests.conftest import TODAY
from tests.test_history import T0, Ticks, memory

try:
    from tests.test_s3 import S3Server, s3_filesystem, s3_server  # noqa: F401
except pytest.skip.Exception:  # no s3fs or moto here: the s3 cases skip
    s3_server = None  # type: ignore[assignment]

HOUR = dt.timedelta(hours=1)
ELEVEN_MINUTES = dt.timedelta(minutes=11)


@pytest.fixture(params=["local", "memory", "s3"])
def shared(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    """One store that both pods mount."""
    if request.param == "local":
        return LocalFileStore(tmp_path / "ws")
    if request.param == "memory":
        return InMemoryFileStore()
    if s3_server is None:
        pytest.skip("s3fs and moto are not installed")
    import uuid

    from memfs.stores import FsspecFileStore

    server = request.getfixturevalue("s3_server")
    root = f"memfs-items/clocks/{uuid.uuid4().hex[:12]}"
    return FsspecFileStore(s3_filesystem(server.endpoint), root=root)


def pod(store: Any, clock: Callable[[], dt.datetime], name: str, **history: Any) -> MemFS:
    options = HistoryOptions(now=clock, **history)
    return MemFS(store, clock=lambda: TODAY, history=options, actor=name)


def contents(fs: MemFS, path: str) -> list[bytes]:
    h = History(fs)
    return [h.content(v) for v in h.log(path).versions]


# -- retention -----------------------------------------------------------------------------------


@pytest.mark.parametrize("skew", [HOUR, -HOUR])
def test_retention_on_write_keeps_the_newest_versions_whatever_a_pod_clock_says(
    shared: Any, skew: dt.timedelta
) -> None:
    keep = Retention(keep=2)
    here = pod(shared, Ticks(T0), "pod here", retention=keep, prune_on_write=True)
    skewed = pod(shared, Ticks(T0 + skew), "pod skewed", retention=keep, prune_on_write=True)
    writers = [here, here, here, skewed, here, here, skewed, here]
    for i, fs in enumerate(writers):
        fs.pipe_file("memory/a.md", memory("a", f"v{i}"))
        # after each write: the two newest versions the store applied, whoever wrote them
        kept = [memory("a", f"v{j}") for j in range(max(0, i - 1), i + 1)]
        assert contents(here, "memory/a.md") == kept, i
    assert len(record_keys(shared, "memory/a.md")) == 2


@pytest.mark.parametrize("skew", [HOUR, -HOUR])
def test_gc_retention_keeps_the_newest_versions_whatever_a_pod_clock_says(
    shared: Any, skew: dt.timedelta
) -> None:
    here = pod(shared, Ticks(T0), "pod here")
    skewed = pod(shared, Ticks(T0 + skew), "pod skewed")
    for i, fs in enumerate([here, skewed, here, here, skewed, here]):
        fs.pipe_file("memory/a.md", memory("a", f"v{i}"))
    for gc_pod in (skewed, here):
        report = History(gc_pod).gc(Retention(keep=2), pod=gc_pod.actor)
        assert contents(here, "memory/a.md") == [memory("a", "v4"), memory("a", "v5")]
    assert report.records_deleted == 0  # the first gc did it; the second found nothing to do


def test_retention_by_age_drops_only_an_oldest_run() -> None:
    # a version written by a pod a day behind looks old: it is dropped only with every version
    # the store applied before it, never while an older one stays
    store = InMemoryFileStore()
    here, behind = pod(store, Ticks(T0), "here"), pod(store, Ticks(T0 - dt.timedelta(days=9)), "b")
    for i, fs in enumerate([here, here, behind, here]):
        fs.pipe_file("memory/a.md", memory("a", f"v{i}"))
    h = History(here)
    h.gc(Retention(max_age_days=7))
    assert contents(here, "memory/a.md") == [memory("a", f"v{i}") for i in range(4)]
    here.history_options.now.now += dt.timedelta(days=8)  # type: ignore[attr-defined]
    assert h.gc(Retention(max_age_days=7)).records_deleted == 3
    assert contents(here, "memory/a.md") == [memory("a", "v3")]


def _order(store: Any, head: bytes | None) -> list[str]:
    records = [
        (k, r) for k in record_keys(store, "memory/a.md") if (r := versions.read_record(store, k))
    ]
    ops = {k: f"{r.operation} {r.actor}" for k, r in records}
    sha = None if head is None else versions.content_sha256(head)
    return [ops[k] for k in versions.applied_order(records, sha)]


def test_the_order_follows_the_chain_through_a_delete_and_a_redaction() -> None:
    store = InMemoryFileStore()
    ahead, here = pod(store, Ticks(T0 + HOUR), "ahead"), pod(store, Ticks(T0), "here")
    ahead.pipe_file("memory/a.md", memory("a", "one"))
    here.pipe_file("memory/a.md", memory("a", "two"))
    ahead.rm_file("memory/a.md")
    assert _order(store, None) == ["created ahead", "modified here", "deleted ahead"]
    here.pipe_file("memory/a.md", memory("a", "three"))
    applied = ["created ahead", "modified here", "deleted ahead", "created here"]
    assert _order(store, memory("a", "three")) == applied
    # a redaction loses the hash: the version stands in the chain where it was
    h = History(here)
    two = next(v for v in h.log("memory/a.md").versions if v.record.actor == "here")
    h.redact("memory/a.md", two.id)
    assert _order(store, memory("a", "three")) == applied
    # content in no version: the records the chain cannot place come first, oldest name first
    assert _order(store, b"elsewhere") == [
        "modified here",
        "created here",
        "created ahead",
        "deleted ahead",
    ]


def test_retention_drops_nothing_while_the_file_is_ahead_of_its_listed_records() -> None:
    # all versions named at one instant (their names order nothing); the file's content is in
    # none of the listed records: a writer stored its record after the listing, and its file
    # write landed before the head was read. Pruning the "oldest" could take the newest.
    store = InMemoryFileStore()
    fs = pod(store, lambda: T0, "here")
    for i in range(6):
        fs.pipe_file("memory/a.md", memory("a", f"v{i}"))
    records = [
        (k, r) for k in record_keys(store, "memory/a.md") if (r := versions.read_record(store, k))
    ]
    ahead = versions.content_sha256(memory("a", "v6"))
    assert versions.to_prune(records, Retention(keep=2), T0, ahead) == []
    head = versions.content_sha256(memory("a", "v5"))
    dropped = versions.to_prune(records, Retention(keep=2), T0, head)
    kept = {r.sha256 for k, r in records if k not in dropped}
    assert kept == {versions.content_sha256(memory("a", f"v{i}")) for i in (4, 5)}
    # v5's record stored and its file write not landed yet (the file still holds v4): v5 is
    # on no chain from the head, and must not be taken for a stale record
    head = versions.content_sha256(memory("a", "v4"))
    dropped = versions.to_prune(records, Retention(keep=2), T0, head)
    kept = {r.sha256 for k, r in records if k not in dropped}
    assert kept == {versions.content_sha256(memory("a", f"v{i}")) for i in (3, 4, 5)}


# -- gc's grace ----------------------------------------------------------------------------------


def _in_flight(store: Any, data: bytes) -> str:
    """A writer that stored its blob and not yet its record."""
    sha, reused = versions.put_blob(store, data)
    assert not reused
    return sha


@pytest.mark.parametrize("skew", [ELEVEN_MINUTES, -ELEVEN_MINUTES])
def test_two_gc_pods_with_skewed_clocks_never_take_a_blob_in_flight(
    shared: Any, skew: dt.timedelta
) -> None:
    a_clock, b_clock = Ticks(T0), Ticks(T0 + skew)
    writer = pod(shared, Ticks(T0), "writer", inline_limit=0)  # versions in blobs
    writer.pipe_file("memory/a.md", memory("a", "v0"))
    sha = _in_flight(shared, memory("a", "v1"))
    gc_a, gc_b = History(pod(shared, a_clock, "gc a")), History(pod(shared, b_clock, "gc b"))
    for _ in range(3):  # each pod sees it unreferenced, again and again, on its own clock
        assert gc_a.gc(pod="a").blobs_deleted == 0
        assert gc_b.gc(pod="b").blobs_deleted == 0
    assert shared.exists(blob_key(sha))
    writer.pipe_file("memory/a.md", memory("a", "v1"))  # its record lands: referenced
    assert contents(writer, "memory/a.md")[-1] == memory("a", "v1")
    # an abandoned blob goes once one pod's own clock has passed the grace since it saw it
    orphan = _in_flight(shared, memory("a", "never recorded"))
    assert gc_a.gc(pod="a").blobs_pending == 1
    b_clock.now += GC_GRACE
    assert gc_b.gc(pod="b").blobs_deleted == 0  # b's first sighting: b waits on its own clock
    a_clock.now += GC_GRACE
    assert gc_a.gc(pod="a").blobs_deleted == 1
    assert not shared.exists(blob_key(orphan))
    assert [k.rpartition("/")[2] for k in shared.ls(BLOBS_DIR)] == sorted(
        {versions.content_sha256(memory("a", f"v{i}")) for i in range(2)}
    )


def test_a_gc_list_from_another_pod_that_moves_on_meanwhile_is_merged(monkeypatch) -> None:
    store = InMemoryFileStore()
    fs = pod(store, Ticks(), "w")
    fs.pipe_file("memory/a.md", memory("a", "v0"))
    mine, theirs = _in_flight(store, b"mine"), _in_flight(store, b"theirs")
    other = History(pod(store, Ticks(), "other"))
    h = History(fs)
    real_ls = store.ls
    raced: list[int] = []

    def ls(path: str = "") -> list[str]:
        out = real_ls(path)
        if path == BLOBS_DIR and not raced:
            raced.append(0)
            raced[0] = other.gc(pod="other").blobs_pending  # writes the list in between
        return out

    monkeypatch.setattr(store, "ls", ls)
    assert h.gc(pod="me").blobs_pending == 2
    monkeypatch.undo()
    import json

    listed = json.loads(store.read(versions.GC_PENDING))["pending"]
    assert raced == [2] and set(listed) == {mine, theirs}
    assert all(set(stamps) == {"me", "other"} for stamps in listed.values())


def test_a_list_in_the_old_shared_time_form_only_delays() -> None:
    store = InMemoryFileStore()
    clock = Ticks()
    fs = pod(store, clock, "w")
    fs.pipe_file("memory/a.md", memory("a", "v0"))
    sha = _in_flight(store, b"orphan")
    store.write(
        versions.GC_PENDING, b'{"pending": {"%s": "2000-01-01T00:00:00+00:00"}}' % sha.encode()
    )
    h = History(fs)
    assert h.gc(pod="p").blobs_deleted == 0  # a time no pod of this gc stamped: restamped
    clock.now += GC_GRACE
    assert h.gc(pod="p").blobs_deleted == 1
    store.write(versions.GC_PENDING, b"not json")
    assert h.gc(pod="p").blobs_pending == 0  # unreadable: as if empty


# -- gc beside a writer ----------------------------------------------------------------------------


def test_gc_never_records_the_change_a_writer_is_making(shared: Any, monkeypatch) -> None:
    # gc lists a file's records; the writer stores its record and then its file; gc then
    # finds content in no record it listed. It reads the file before the records, so what it
    # read is recorded (a writer stores its record first) and it records nothing.
    fs = pod(shared, Ticks(), "writer")
    fs.pipe_file("memory/a.md", memory("a", "v0"))
    h = History(pod(shared, Ticks(T0 + HOUR), "gc"))
    real_ls = shared.ls
    writes: list[int] = []

    def ls(path: str = "") -> list[str]:
        out = real_ls(path)
        if path == versions.records_dir("memory/a.md") and len(writes) < 3:
            writes.append(1)
            fs.pipe_file("memory/a.md", memory("a", f"v{len(writes)}"))
        return out

    monkeypatch.setattr(shared, "ls", ls)
    for _ in range(3):
        assert h.gc().baselines_recorded == 0
    monkeypatch.undo()
    ops = [v.record.operation for v in History(fs).log("memory/a.md").versions]
    assert len(writes) == 3 and "unrecorded" not in ops


def _edits(root: str, edits: int) -> None:
    fs = MemFS(LocalFileStore(root), clock=lambda: TODAY, actor="writer")
    for i in range(edits):
        fs.pipe_file("memory/a.md", memory("a", f"edit {i}"))


@pytest.mark.parametrize(
    "retention", [Retention(), versions.DEFAULT_RETENTION], ids=["all", "default"]
)
def test_gc_in_another_process_beside_a_writer_records_nothing_bogus(
    tmp_path: Path, retention: Retention
) -> None:
    """gc beside a writer records no bogus baseline and, with a retention that prunes (the
    writer's clock standing still, so record names do not order the versions), never prunes
    the version that is the file's content."""
    root = str(tmp_path / "ws")
    fs = MemFS(LocalFileStore(root), clock=lambda: TODAY)
    fs.pipe_file("memory/a.md", memory("a", "start"))
    edits = 60
    writer = multiprocessing.get_context("fork").Process(target=_edits, args=(root, edits))
    writer.start()
    h, runs = History(fs), 0
    # gc as often as it can until the writer is done (its edits counted by its exit)
    while writer.is_alive() or runs == 0:
        assert h.gc(retention=retention).baselines_recorded == 0
        runs += 1
    writer.join(timeout=60)
    assert writer.exitcode == 0 and runs > 0
    h.gc(retention=retention)
    records = [VersionRecord.from_bytes(fs.store.read(k)) for k in record_keys(fs.store)]
    assert [r.operation for r in records].count("unrecorded") == 0
    live = content_sha256(fs.store.read("memory/a.md"))
    assert any(r.sha256 == live for r in records)
    assert len(records) == (edits + 1 if retention.keep is None else retention.keep)
