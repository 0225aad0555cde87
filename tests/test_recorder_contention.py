"""The recorder (memfs.recorder) when another writer keeps changing a file, when the content to
keep unrecorded is no longer there, and the bounds on what it remembers."""

from __future__ import annotations

import datetime as dt
import itertools
from typing import Any

import pytest
from memfs import InMemoryFileStore, MemFS, recorder
from memfs.conflicts import content_sha256
from memfs.errors import PreconditionFailedError, UpdateConflictError
from memfs.recorder import WRITE_ATTEMPTS, Recorder
from memfs.versions import HistoryOptions, Retention, VersionRecord, record_keys

from tests.conftest import TODAY

T0 = dt.datetime(2026, 12, 1, 9, 0, tzinfo=dt.UTC)


def memory(name: str, body: str) -> bytes:
    head = f"---\nname: {name}\nmetadata:\n  type: user\n  recorded: {TODAY}\n---\n"
    return f"{head}{body}\n".encode()


def options(**changes: Any) -> HistoryOptions:
    ticks = (T0 + dt.timedelta(seconds=n) for n in itertools.count(1))
    return HistoryOptions(now=lambda: next(ticks), **changes)


class Contended(InMemoryFileStore):
    """Another writer changes ``path`` just before each conditional write or delete of it."""

    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path
        self.theirs = 0

    def _interfere(self, path: str, conditions: dict[str, Any]) -> None:
        if path == self.path and (conditions.get("expected_sha256") or conditions.get("create")):
            self.theirs += 1
            super().write(path, memory("a", f"Theirs {self.theirs}."))

    def write(self, path: str, data: bytes, **conditions: Any) -> None:
        self._interfere(path, conditions)
        super().write(path, data, **conditions)

    def delete(self, path: str, *, expected_sha256: str | None = None) -> None:
        self._interfere(path, {"expected_sha256": expected_sha256})
        super().delete(path, expected_sha256=expected_sha256)


def test_a_write_beaten_by_another_writer_every_round_gives_up_after_the_attempts() -> None:
    store = Contended("memory/a.md")
    InMemoryFileStore.write(store, "memory/a.md", memory("a", "Before."))
    fs = MemFS(store, clock=lambda: TODAY, history=options())
    with pytest.raises(UpdateConflictError) as caught:
        fs.pipe_file("memory/a.md", memory("a", "Mine."))
    assert caught.value.attempts == WRITE_ATTEMPTS
    assert store.theirs == WRITE_ATTEMPTS
    assert store.read("memory/a.md") == memory("a", f"Theirs {WRITE_ATTEMPTS}.")


def test_a_delete_beaten_by_another_writer_every_round_gives_up_after_the_attempts() -> None:
    store = Contended("memory/a.md")
    InMemoryFileStore.write(store, "memory/a.md", memory("a", "Before."))
    fs = MemFS(store, clock=lambda: TODAY, history=options())
    with pytest.raises(PreconditionFailedError):
        fs.rm_file("memory/a.md")
    assert store.theirs == WRITE_ATTEMPTS
    assert store.read("memory/a.md") == memory("a", f"Theirs {WRITE_ATTEMPTS}.")


def _unrecorded(store: InMemoryFileStore) -> list[VersionRecord]:
    return [VersionRecord.from_bytes(store.read(k)) for k in record_keys(store, "memory/a.md")]


def test_content_to_keep_is_recorded_only_while_the_file_still_holds_it() -> None:
    store = InMemoryFileStore()
    rec = Recorder(store, options(), "tester")
    old, new = memory("a", "Old."), memory("a", "New.")
    rec.keep_unrecorded("memory/a.md", content_sha256(old))  # no file: nothing to keep
    store.write("memory/a.md", new)
    rec.keep_unrecorded("memory/a.md", content_sha256(old))  # the file moved on
    rec.keep_unrecorded("memory/a.md", content_sha256(old), data=new)  # data not the one named
    assert _unrecorded(store) == []
    rec.keep_unrecorded("memory/a.md", content_sha256(new), data=old)  # read instead of data
    (kept,) = _unrecorded(store)
    assert (kept.operation, kept.sha256) == ("unrecorded", content_sha256(new))


def test_what_the_recorder_remembers_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(recorder, "KNOWN_PATHS", 2)
    fs = MemFS(InMemoryFileStore(), clock=lambda: TODAY, history=options())
    for name in ("a", "b", "c", "d", "e"):
        fs.pipe_file(f"memory/{name}.md", memory(name, "One."))
        assert len(fs.recorder.held) <= 2 and len(fs.recorder.counted) <= 2
    for name in ("a", "b", "c", "d", "e"):  # forgotten paths are looked up again
        fs.pipe_file(f"memory/{name}.md", memory(name, "Two."))
    for name in ("a", "b", "c", "d", "e"):
        kinds = [
            VersionRecord.from_bytes(fs.store.read(k)).operation
            for k in record_keys(fs.store, f"memory/{name}.md")
        ]
        assert kinds == ["created", "modified"]


@pytest.mark.parametrize(
    "history",
    [options(retention=Retention()), options(retention=Retention(keep=1), prune_on_write=False)],
)
def test_no_record_is_pruned_on_write_when_retention_keeps_all_or_waits_for_gc(
    history: HistoryOptions,
) -> None:
    fs = MemFS(InMemoryFileStore(), clock=lambda: TODAY, history=history)
    for n in range(5):
        fs.pipe_file("memory/a.md", memory("a", f"Version {n}."))
    assert len(record_keys(fs.store, "memory/a.md")) == 5
