"""Optimistic concurrency: conditional writes on every backend, bounded retry, no lost update.

The figure: 8 processes (multiprocessing spawn) x 100 edits, each appending a distinct line to
one memory file through the ``edit_file`` tool and to ``MEMORY.md`` through
:meth:`memfs.MemFS.update` -> every one of the 800 lines present exactly once in
each file. The same with threads on every backend.
"""

from __future__ import annotations

import errno
import functools
import multiprocessing
import os
import pickle
import shutil
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from memfs import InMemoryFileStore, LocalFileStore, MemFS
from memfs.conflicts import content_sha256
from memfs.errors import (
    PathConflictError,
    PreconditionFailedError,
    UpdateConflictError,
    WriteConflictError,
)
from memfs.filesystem import DEFAULT_ATTEMPTS
from memfs.stores import (
    TEMP_PREFIX,
    ConditionalFileStore,
    FileStore,
    FsspecFileStore,
    supports_preconditions,
    with_preconditions,
)
from memfs.stores.host import lock_path_for
from memfs.tools import FileToolExecutor

from tests.conftest import BACKENDS, TODAY, make_store

MEMORY = "memory/shared-log.md"
END = "<!-- end of log -->"
SEED_MEMORY = (
    "---\nname: shared-log\ndescription: lines appended by concurrent turns\n"
    f"metadata:\n  type: project\n  recorded: {TODAY.isoformat()}\n---\n{END}\n"
)
SEED_INDEX = "# Memory index\n- [Shared log](memory/shared-log.md) — lines from concurrent turns\n"


def _sha(data: bytes | str) -> str:
    return content_sha256(data.encode() if isinstance(data, str) else data)


# -- the precondition on each backend -------------------------------------------------------------


@pytest.fixture
def conditional(store: FileStore) -> ConditionalFileStore:
    """Each backend as MemFS writes to it: with conditional writes, native or added."""
    return with_preconditions(store)


def test_every_builtin_store_declares_conditional_writes_or_gets_them(store: FileStore) -> None:
    # Local disk and memory decide natively; a generic fsspec filesystem has no precondition
    # and gets the process-locked adapter, once, from with_preconditions (as MemFS does).
    assert supports_preconditions(store) is not isinstance(store, FsspecFileStore)
    wrapped = with_preconditions(store)
    assert supports_preconditions(wrapped) and isinstance(wrapped, FileStore)
    assert with_preconditions(wrapped) is wrapped  # wrapped once, never twice


def test_matching_hash_writes(conditional: ConditionalFileStore) -> None:
    store = conditional
    store.write("memory/a.md", b"one")
    store.write("memory/a.md", b"two", expected_sha256=_sha("one"))
    assert store.read("memory/a.md") == b"two"


def test_stale_hash_is_refused_naming_both_hashes(conditional: ConditionalFileStore) -> None:
    store = conditional
    store.write("memory/a.md", b"one")
    store.write("memory/a.md", b"two")  # another turn wrote in between
    with pytest.raises(PreconditionFailedError) as info:
        store.write("memory/a.md", b"three", expected_sha256=_sha("one"))
    err = info.value
    assert isinstance(err, FileExistsError) and err.errno == errno.EEXIST
    assert (err.expected_sha256, err.actual_sha256) == (_sha("one"), _sha("two"))
    message = str(err)
    assert _sha("one") in message and _sha("two") in message and "'memory/a.md'" in message
    assert "Read the file again" in message
    assert store.read("memory/a.md") == b"two"


def test_writing_the_bytes_already_stored_succeeds_whatever_the_hash(
    conditional: ConditionalFileStore,
) -> None:
    store = conditional
    store.write("memory/a.md", b"same")
    store.write("memory/a.md", b"same", expected_sha256=_sha("something older"))
    assert store.read("memory/a.md") == b"same"


def test_expected_hash_of_a_missing_file_is_a_conflict(conditional: ConditionalFileStore) -> None:
    store = conditional
    with pytest.raises(PreconditionFailedError, match="does not exist any more") as info:
        store.write("memory/gone.md", b"x", expected_sha256=_sha("old"))
    assert info.value.actual_sha256 is None
    assert not store.exists("memory/gone.md")


def test_create_on_a_taken_path_is_a_conflict_even_with_the_same_bytes(
    conditional: ConditionalFileStore,
) -> None:
    store = conditional
    store.write("memory/a.md", b"taken")
    for data in (b"other", b"taken"):
        with pytest.raises(PathConflictError) as info:
            store.write("memory/a.md", data, create=True)
        assert info.value.actual_sha256 == _sha("taken")
        assert "already exists" in str(info.value)
    store.write("memory/b.md", b"new", create=True)
    assert store.read("memory/b.md") == b"new"


def test_a_malformed_hash_is_a_value_error(conditional: ConditionalFileStore) -> None:
    store = conditional
    store.write("a.txt", b"x")
    for bad in ("abc", "z" * 64, _sha("x") + "0"):
        with pytest.raises(ValueError, match="64-digit hex sha256"):
            store.write("a.txt", b"y", expected_sha256=bad)
    store.write("a.txt", b"y", expected_sha256=_sha("x").upper())  # hex case does not matter
    assert store.read("a.txt") == b"y"


def test_conflict_errors_survive_pickling() -> None:
    for err in (
        PreconditionFailedError("memory/a.md", _sha("a"), _sha("b")),
        PathConflictError("memory/a.md", None, _sha("b")),
        UpdateConflictError("memory/a.md", _sha("a"), None, attempts=3),
    ):
        back = pickle.loads(pickle.dumps(err))
        assert type(back) is type(err) and str(back) == str(err)
        assert (back.path, back.expected_sha256, back.actual_sha256) == (
            err.path,
            err.expected_sha256,
            err.actual_sha256,
        )


# -- through MemFS ---------------------------------------------------------------------------------


def test_memfs_pipe_file_carries_the_precondition(memfs: MemFS) -> None:
    memfs.pipe_file("MEMORY.md", b"- [A](memory/a.md) - a\n")
    raw = memfs.raw.cat_file("MEMORY.md")
    memfs.pipe_file("MEMORY.md", raw + b"- [B](memory/b.md) - b\n", expected_sha256=_sha(raw))
    with pytest.raises(PreconditionFailedError):
        memfs.pipe_file("MEMORY.md", raw + b"- [C](memory/c.md) - c\n", expected_sha256=_sha(raw))
    with pytest.raises(PathConflictError):
        memfs.pipe_file("MEMORY.md", b"x", mode="create")
    assert memfs.cat_file("MEMORY.md").count(b"\n") == 2


def test_memfs_compares_against_the_stamped_bytes(memfs: MemFS) -> None:
    # The write stamps metadata.recorded; the hash the next writer names is of what was stored.
    memfs.pipe_file("memory/a.md", b"---\nname: a\n---\nbody\n")
    stored = memfs.raw.cat_file("memory/a.md")
    assert b"recorded: 2026-12-01" in stored
    memfs.pipe_file("memory/a.md", stored + b"more\n", expected_sha256=_sha(stored))
    assert memfs.raw.cat_file("memory/a.md").endswith(b"body\nmore\n")


def test_open_xb_refuses_a_file_created_while_it_was_open(memfs: MemFS) -> None:
    f = memfs.open("memory/new.md", "xb")
    f.write(b"mine")
    memfs.pipe_file("memory/new.md", b"theirs")
    with pytest.raises(PathConflictError):
        f.close()
    assert memfs.raw.cat_file("memory/new.md") == b"theirs"


def test_read_only_mount_refuses_a_conditional_write(memfs: MemFS) -> None:
    memfs.pipe_file("MEMORY.md", b"x")
    with pytest.raises(PermissionError) as info:
        memfs.read_only().pipe_file("MEMORY.md", b"y", expected_sha256=_sha("x"))
    assert info.value.errno == errno.EROFS


def test_update_on_a_read_only_mount_is_refused(memfs: MemFS) -> None:
    memfs.pipe_file("MEMORY.md", b"# index\n")
    with pytest.raises(PermissionError) as info:
        memfs.read_only().update("MEMORY.md", lambda b: (b or b"") + b"- x\n")
    assert info.value.errno == errno.EROFS
    assert memfs.cat_file("MEMORY.md") == b"# index\n"


def test_a_failed_local_write_keeps_the_old_bytes_and_no_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = LocalFileStore(tmp_path / "ws")
    store.write("memory/a.md", b"old")

    def full_disk(fd: int, data: object) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", full_disk)
    with pytest.raises(OSError, match="No space left"):
        store.write("memory/a.md", b"new", expected_sha256=_sha("old"))
    monkeypatch.undo()
    assert store.read("memory/a.md") == b"old"
    assert os.listdir(tmp_path / "ws" / "memory") == ["a.md"]


class PlatformStore:
    """A store with only the platform's ``write(path, data)``: MemFS falls back to its lock."""

    def __init__(self) -> None:
        self.inner = InMemoryFileStore()

    def write(self, path: str, data: bytes) -> None:
        self.inner.write(path, data)

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)


def test_store_without_preconditions_gets_the_same_semantics_in_process() -> None:
    store = PlatformStore()
    assert not supports_preconditions(store)
    fs = MemFS(store, clock=lambda: TODAY)  # type: ignore[arg-type]
    fs.pipe_file("MEMORY.md", b"one")
    fs.pipe_file("MEMORY.md", b"two", expected_sha256=_sha("one"))
    with pytest.raises(PreconditionFailedError):
        fs.pipe_file("MEMORY.md", b"three", expected_sha256=_sha("one"))
    with pytest.raises(PathConflictError):
        fs.pipe_file("MEMORY.md", b"four", mode="create")
    fs.pipe_file("MEMORY.md", b"two", expected_sha256=_sha("one"))  # already stored: fine
    _hammer_with_threads(fs, threads=4, edits=25)


# -- bounded retry -------------------------------------------------------------------------------


class RacingStore(InMemoryFileStore):
    """Another turn writes ``target`` right after each of the next reads returned (stale) bytes."""

    def __init__(self, target: str, intrusions: int) -> None:
        super().__init__()
        self.target, self.intrusions, self.reads = target, intrusions, 0

    def read(self, path: str) -> bytes:
        data = super().read(path)
        if path == self.target and self.intrusions > 0:
            self.intrusions -= 1
            self.reads += 1
            super().write(path, data + f"- intruder {self.reads}\n".encode())
        return data


def test_update_retries_on_the_new_content_then_succeeds() -> None:
    store = RacingStore("MEMORY.md", intrusions=2)
    store.write("MEMORY.md", b"# index\n")
    delays: list[float] = []
    stored = MemFS(store, clock=lambda: TODAY).update(
        "MEMORY.md", lambda b: (b or b"") + b"- mine\n", sleep=delays.append
    )
    assert store.reads == 2  # two rounds lost to the intruder, the third wrote
    assert stored == store.read("MEMORY.md")
    assert store.read("MEMORY.md") == b"# index\n- intruder 1\n- intruder 2\n- mine\n"
    assert len(delays) == 2 and all(0 <= d <= 0.1 for d in delays)


def test_update_gives_up_after_the_bound_and_writes_nothing() -> None:
    store = RacingStore("MEMORY.md", intrusions=100)
    store.write("MEMORY.md", b"# index\n")
    with pytest.raises(UpdateConflictError) as info:
        MemFS(store, clock=lambda: TODAY).update(
            "MEMORY.md", lambda b: (b or b"") + b"- mine\n", attempts=5, sleep=lambda _s: None
        )
    assert info.value.attempts == 5 and "gave up after 5 attempts" in str(info.value)
    assert isinstance(info.value, WriteConflictError)
    store.intrusions = 0
    stored = store.read("MEMORY.md")
    assert b"- mine" not in stored and stored.count(b"- intruder") == 5


def test_update_creates_a_missing_file_with_create_semantics() -> None:
    fs = MemFS(InMemoryFileStore(), clock=lambda: TODAY)
    seen: list[bytes | None] = []

    def change(b: bytes | None) -> bytes:
        seen.append(b)
        return (b or b"# index\n") + b"- a\n"

    assert fs.update("MEMORY.md", change) == b"# index\n- a\n"
    assert seen == [None] and fs.cat_file("MEMORY.md") == b"# index\n- a\n"


def test_edit_file_reapplies_on_top_of_a_concurrent_edit() -> None:
    store = RacingStore(MEMORY, intrusions=1)
    fs = MemFS(store, clock=lambda: TODAY)
    fs.pipe_file(MEMORY, SEED_MEMORY.encode())
    out = FileToolExecutor(fs).execute(
        "edit_file", {"path": MEMORY, "old_string": END, "new_string": f"- mine\n{END}"}
    )
    assert out.startswith(f"Edited {MEMORY}"), out
    text = fs.raw.cat_file(MEMORY).decode()
    assert "- intruder 1\n" in text and f"- mine\n{END}" in text  # neither edit lost


def test_edit_file_returns_a_tool_error_when_the_race_is_lost_every_time() -> None:
    store = RacingStore(MEMORY, intrusions=10 * DEFAULT_ATTEMPTS)
    fs = MemFS(store, clock=lambda: TODAY)
    fs.pipe_file(MEMORY, SEED_MEMORY.encode())
    out = FileToolExecutor(fs).execute(
        "edit_file", {"path": MEMORY, "old_string": END, "new_string": f"- mine\n{END}"}
    )
    assert out.startswith("Error:") and f"gave up after {DEFAULT_ATTEMPTS} attempts" in out
    assert "Read the file again and retry" in out
    assert "- mine" not in fs.raw.cat_file(MEMORY).decode()


def test_edit_file_reports_old_string_gone_after_a_concurrent_edit() -> None:
    class Replacer(InMemoryFileStore):
        armed = True

        def read(self, path: str) -> bytes:
            data = super().read(path)
            if path == MEMORY and self.armed:
                self.armed = False
                super().write(path, data.replace(b"cats", b"dogs"))
            return data

    fs = MemFS(Replacer(), clock=lambda: TODAY)
    fs.pipe_file(MEMORY, SEED_MEMORY.replace(END, f"likes cats\n{END}").encode())
    out = FileToolExecutor(fs).execute(
        "edit_file", {"path": MEMORY, "old_string": "likes cats", "new_string": "likes birds"}
    )
    assert out.startswith("Error:") and "old_string was not found" in out
    assert "likes dogs" in fs.raw.cat_file(MEMORY).decode()


# -- many writers ---------------------------------------------------------------------------------


def _append(line: bytes, current: bytes | None) -> bytes:
    return (current or b"") + line


def _append_edits(fs: MemFS, worker: int, edits: int) -> dict[str, int]:
    """One turn's worth of edits: ``edits`` lines via edit_file and via ``MemFS.update``."""
    tools = FileToolExecutor(fs)
    stats = {"reissued": 0, "attempts": 0, "max_attempts": 0}
    for i in range(edits):
        line = f"- worker {worker} edit {i}"
        while True:  # what an agent does with the tool's "gave up" error: issue the call again
            out = tools.execute(
                "edit_file", {"path": MEMORY, "old_string": END, "new_string": f"{line}\n{END}"}
            )
            if out.startswith("Edited"):
                break
            assert "gave up after" in out, out
            stats["reissued"] += 1
        appended = f"{line}\n".encode()
        while True:
            backoffs: list[float] = []

            def sleep(seconds: float, backoffs: list[float] = backoffs) -> None:
                backoffs.append(seconds)
                time.sleep(seconds)

            try:
                fs.update("MEMORY.md", functools.partial(_append, appended), sleep=sleep)
            except UpdateConflictError:
                stats["reissued"] += 1
                continue
            attempts = len(backoffs) + 1  # one back-off before each retried round
            stats["attempts"] += attempts
            stats["max_attempts"] = max(stats["max_attempts"], attempts)
            break
    return stats


def _mount(store: FileStore) -> MemFS:
    # The credential guard's scan grows with the file and is not what these runs measure.
    return MemFS(store, clock=lambda: TODAY, credential_guard=False)


def _seed(fs: MemFS) -> None:
    fs.pipe_file(MEMORY, SEED_MEMORY.encode())
    fs.pipe_file("MEMORY.md", SEED_INDEX.encode())


def _check_all_lines(fs: MemFS, workers: int, edits: int) -> None:
    expected = {f"- worker {w} edit {i}" for w in range(workers) for i in range(edits)}
    memory = fs.raw.cat_file(MEMORY).decode()
    index = fs.raw.cat_file("MEMORY.md").decode()
    for text, head in ((memory, SEED_MEMORY.replace(f"{END}\n", "")), (index, SEED_INDEX)):
        assert text.startswith(head)
        lines = [ln for ln in text[len(head) :].splitlines() if ln.startswith("- worker ")]
        assert len(lines) == len(set(lines)), "an edit was applied twice"
        assert set(lines) == expected, f"lost: {sorted(expected - set(lines))[:5]}"
    assert memory.endswith(f"{END}\n")
    for w in range(workers):  # each writer's own lines stay in its order
        mine = [ln for ln in index.splitlines() if ln.startswith(f"- worker {w} ")]
        assert mine == [f"- worker {w} edit {i}" for i in range(edits)]


def _hammer_with_threads(fs: MemFS, *, threads: int, edits: int) -> list[dict[str, int]]:
    _seed(fs)
    results: list[dict[str, int]] = []
    errors: list[BaseException] = []
    start = threading.Barrier(threads)

    def run(worker: int) -> None:
        try:
            start.wait()
            results.append(_append_edits(fs, worker, edits))
        except BaseException as e:  # surfaced below
            errors.append(e)

    pool = [threading.Thread(target=run, args=(w,)) for w in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    assert not errors, errors[0]
    _check_all_lines(fs, threads, edits)
    return results


@pytest.mark.parametrize("kind", BACKENDS)
def test_threads_lose_no_update(kind: str, tmp_path: Path) -> None:
    fs = _mount(make_store(kind, tmp_path))
    results = _hammer_with_threads(fs, threads=8, edits=25)
    print(f"\n[threads {kind}] 8x25 edits, 0 lost, reissued {sum(r['reissued'] for r in results)}")


def _process_worker(
    root: str, kind: str, worker: int, edits: int, start: object, out: object
) -> None:
    store: FileStore = (
        LocalFileStore(root) if kind == "local" else FsspecFileStore(f"file://{root}")
    )
    fs = _mount(store)
    start.wait()  # type: ignore[attr-defined]
    try:
        out.put((worker, _append_edits(fs, worker, edits), None))  # type: ignore[attr-defined]
    except BaseException as e:
        out.put((worker, None, repr(e)))  # type: ignore[attr-defined]


@pytest.fixture
def shared_dir(tmp_path: Path) -> Iterator[Path]:
    """A directory on tmpfs when there is one: same locks and renames, no fsync wait."""
    base = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
    path = Path(tempfile.mkdtemp(prefix="memfs-conc-", dir=base or tmp_path))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _hammer_with_processes(root: Path, kind: str, workers: int, edits: int) -> None:
    store: FileStore = (
        LocalFileStore(root) if kind == "local" else FsspecFileStore(f"file://{root}")
    )
    fs = _mount(store)
    _seed(fs)
    ctx = multiprocessing.get_context("spawn")
    start, out = ctx.Barrier(workers), ctx.Queue()
    procs = [
        ctx.Process(target=_process_worker, args=(str(root), kind, w, edits, start, out))
        for w in range(workers)
    ]
    for p in procs:
        p.start()
    results = [out.get(timeout=240) for _ in procs]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    failures = [r[2] for r in results if r[2] is not None]
    assert not failures, failures
    pids = {r[0] for r in results}
    assert pids == set(range(workers))
    _check_all_lines(fs, workers, edits)
    stats = [r[1] for r in results]
    leftovers = [
        n for d in (root, root / "memory") for n in os.listdir(d) if n.startswith(TEMP_PREFIX)
    ]
    assert leftovers == []  # every lock file removed again, no temp file left behind
    assert not any(TEMP_PREFIX in p for p in fs.find(""))
    print(
        f"\n[processes {kind}] {workers}x{edits} edits to {MEMORY} (edit_file) and MEMORY.md "
        f"(MemFS.update): {workers * edits} lines each, 0 lost, 0 duplicated; "
        f"MEMORY.md rounds mean {sum(s['attempts'] for s in stats) / (workers * edits):.2f} "
        f"max {max(s['max_attempts'] for s in stats)}; "
        f"calls reissued after the retry bound: {sum(s['reissued'] for s in stats)}"
    )


@pytest.mark.parametrize("kind", ["local", "fsspec-file"])
def test_eight_processes_times_a_hundred_edits_lose_nothing(kind: str, shared_dir: Path) -> None:
    _hammer_with_processes(shared_dir, kind, workers=8, edits=100 if kind == "local" else 25)


@pytest.mark.slow
def test_eight_processes_on_a_real_disk_lose_nothing(tmp_path: Path) -> None:
    """The same on the test's disk directory, fsync and all."""
    _hammer_with_processes(tmp_path / "ws", "local", workers=8, edits=100)


def test_local_store_and_fsspec_store_on_one_directory_share_the_lock(tmp_path: Path) -> None:
    local = MemFS(LocalFileStore(tmp_path / "ws"), clock=lambda: TODAY)
    viafs = MemFS(FsspecFileStore(f"file://{tmp_path / 'ws'}"), clock=lambda: TODAY)
    local.pipe_file("MEMORY.md", b"one\n")
    viafs.pipe_file("MEMORY.md", b"one\ntwo\n", expected_sha256=_sha("one\n"))
    with pytest.raises(PreconditionFailedError):
        local.pipe_file("MEMORY.md", b"one\nthree\n", expected_sha256=_sha("one\n"))
    assert lock_path_for(str(tmp_path / "ws" / "MEMORY.md")).endswith(".lock")
    assert not os.path.exists(lock_path_for(str(tmp_path / "ws" / "MEMORY.md")))


# -- every backend agrees with a model of the precondition -----------------------------------------

_CONTENTS = st.sampled_from([b"", b"a", b"b", b"a\n", b"\xff\xfe"])
_OPS = st.lists(
    st.tuples(
        st.sampled_from(["plain", "fresh", "stale", "create"]),
        st.sampled_from(["memory/a.md", "memory/b.md", "MEMORY.md"]),
        _CONTENTS,
    ),
    max_size=12,
)


@pytest.mark.parametrize("kind", BACKENDS)
@settings(max_examples=40, deadline=None)
@given(ops=_OPS)
def test_backends_agree_with_a_model_of_the_precondition(
    kind: str, ops: list[tuple[str, str, bytes]], tmp_path_factory: pytest.TempPathFactory
) -> None:
    store: Any = with_preconditions(make_store(kind, tmp_path_factory.mktemp(kind)))
    model: dict[str, bytes] = {}
    for op, path, data in ops:
        current = model.get(path)
        if op == "plain":
            store.write(path, data)
            model[path] = data
            continue
        kwargs: dict[str, Any] = {"create": True} if op == "create" else {}
        if op == "fresh":
            kwargs["expected_sha256"] = _sha(current if current is not None else b"none")
        if op == "stale":
            kwargs["expected_sha256"] = _sha(b"never stored " + data)
        refused = (
            (op == "create" and current is not None)
            or (op == "fresh" and current is None)
            or (op == "stale" and current != data)
        )
        if refused:
            with pytest.raises(WriteConflictError):
                store.write(path, data, **kwargs)
        else:
            store.write(path, data, **kwargs)
            model[path] = data
        assert {p: store.read(p) for p in model} == model
