"""What the version history weighs on disk, what a `memfs log` costs on S3, and what a change
costs with history against the same change without it, and against git.

    python -m benchmarks.bench_history_store  # writes results/history-store-<date>.json

Rows (each figure a ratio against a baseline measured in the same run):

* H1 — 1,000 edits of a 2 KB memory with the default history options, on local disk: the
  history's allocated bytes (``st_blocks * 512`` of every file and directory under
  ``.memfs/history``) against the memory's size; also after ``memfs gc`` (two runs, the grace
  period between them), which is what removes the blobs retention left unreferenced.
* H2 — 2,000 writes alternating between two 51-byte memories, the same measure.
* H3 — ``History.log`` of one file with 400 versions on the moto S3 server, stored as a writer
  leaves them (packed past ``pack_after`` loose records), against the same versions stored
  loose, one object each (as before packs), interleaved; with the requests of each log.
  ``--only H3`` runs this row alone.
* H4 — S3 requests of a change with history against the same change without, counted at the
  moto server: the first change of a file this process never saw, and a later one.
* H5 — fsyncs per edit of a memory on local disk, and the edit's time, with history against
  without: as memfs writes a change now (the record holds the content; the record and the
  file in one grouped store call, their fsyncs overlapped), and as it wrote it before (a
  blob, a record and the file, three durable writes one after another).
* (a write with history against the same write without, on local disk and in memory, is rows
  14–16 of :mod:`benchmarks.bench_history`; not measured twice here.)
* H6 — a change committed to a git repository (write, ``git add``, ``git commit``) against the
  same change written with history by memfs, local disk.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from memfs import InMemoryFileStore, LocalFileStore, MemFS
from memfs.history import History
from memfs.stores import host
from memfs.versions import (
    GC_GRACE,
    HISTORY_DIR,
    PACK_AFTER,
    RECORDS_DIR,
    HistoryOptions,
    Retention,
    list_records,
    record_keys,
)

from benchmarks.harness import Row, compare
from benchmarks.workspaces import bench_clock

RESULTS = Path(__file__).resolve().parent / "results"
SIZE_TARGET = 250.0
LOG_TARGET_S = 2.0
REQUESTS_TARGET = 2
REL = "memory/notes.md"


class _Clock:
    """An injected history clock that moves one second per reading (gc's grace is waited out
    by moving it, not by sleeping)."""

    def __init__(self) -> None:
        self.now = dt.datetime(2026, 12, 1, tzinfo=dt.UTC)

    def __call__(self) -> dt.datetime:
        self.now += dt.timedelta(seconds=1)
        return self.now


def _memory(body: str, size: int) -> bytes:
    head = "---\nname: notes\nmetadata:\n  type: project\n---\n"
    line = "A line of notes the agent keeps about the project, long enough to be real.\n"
    text = head + body + "\n"
    while len(text) < size:
        text += line
    return text[:size].encode()


def allocated(root: str) -> tuple[int, int, int]:
    """(allocated bytes, logical bytes, objects) of every file and directory under ``root``."""
    alloc = logical = count = 0
    for dirpath, dirnames, filenames in os.walk(root):
        for name in [*dirnames, *filenames]:
            st = os.lstat(os.path.join(dirpath, name))
            alloc += st.st_blocks * 512
            logical += st.st_size
            count += 1
    return alloc, logical, count


def _size_after(write: Callable[[MemFS, int], None], n: int, size: int) -> dict[str, Any]:
    tmp = tempfile.mkdtemp(prefix="memfs-bench-size-")
    try:
        clock = _Clock()
        fs = MemFS(LocalFileStore(tmp), clock=bench_clock, history=HistoryOptions(now=clock))
        for i in range(n):
            write(fs, i)
        hist = os.path.join(tmp, HISTORY_DIR)
        alloc, logical, objects = allocated(hist)
        h = History(fs)
        h.gc()
        clock.now += GC_GRACE * 2
        h.gc()
        gc_alloc, gc_logical, gc_objects = allocated(hist)
        return {
            "writes": n,
            "memory_bytes": size,
            "allocated": alloc,
            "logical": logical,
            "objects": objects,
            "ratio": alloc / size,
            "versions_kept": len(record_keys(fs.store, REL)),
            "after_gc": {"allocated": gc_alloc, "logical": gc_logical, "objects": gc_objects},
            "ratio_after_gc": gc_alloc / size,
        }
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def size_rows(edits: int = 1000, alternating: int = 2000) -> list[Row]:
    size = 2048
    one = _size_after(lambda fs, i: fs.pipe_file(REL, _memory(f"edit {i}", size)), edits, size)
    pair = (b"---\nname: notes\n---\nThe build is green: state A...\n", b"")
    pair = (pair[0], pair[0].replace(b"A.", b"B."))
    two = _size_after(lambda fs, i: fs.pipe_file(REL, pair[i % 2]), alternating, 51)
    rows = []
    for row_id, what, f in (
        ("H1", f"{edits:,} edits of a 2 KB memory, default history, local disk", one),
        ("H2", f"{alternating:,} alternating writes of a 51-byte memory, default history", two),
    ):
        rows.append(
            Row(
                id=row_id,
                what=what,
                baseline="the memory's own size",
                target=f"history allocated ≤ {SIZE_TARGET:g}× the memory",
                measured=(
                    f"{f['allocated'] / 1e6:.2f} MB allocated, {f['ratio']:.0f}× "
                    f"({f['objects']} objects, {f['versions_kept']} versions kept); after gc "
                    f"{f['after_gc']['allocated'] / 1e6:.2f} MB, {f['ratio_after_gc']:.0f}×"
                ),
                met=f["ratio"] <= SIZE_TARGET,
                figures=f,
            )
        )
    return rows


# -- S3 ----------------------------------------------------------------------------------------


def _s3() -> tuple[Any, Callable[[str], MemFS], Callable[[], None]]:
    """The moto server of the test suite (it counts requests) and a mount of a fresh prefix."""
    import uuid

    from tests.test_s3 import mount, start_server

    server = start_server()

    def fresh(prefix: str = "") -> MemFS:
        return mount(server.endpoint, prefix or f"items/{uuid.uuid4().hex[:12]}")

    return server, fresh, server.stop


def _copied(fresh: Callable[[str], MemFS], n: int, pack_after: int) -> MemFS:
    """``n`` versions of one file written to an in-memory store and copied to a fresh S3
    prefix as they are stored (the same keys and bytes a writer leaves: loose records, and
    the pack a writer past ``pack_after`` loose records wrote), so setting up 400 versions
    costs no 1,600 conditional PUTs."""
    import uuid

    local = MemFS(
        InMemoryFileStore(),
        clock=bench_clock,
        history=HistoryOptions(retention=Retention(), now=_Clock(), pack_after=pack_after),
    )
    for i in range(n):
        local.pipe_file(REL, _memory(f"edit {i}", 2048))
    fs = fresh(f"items/{uuid.uuid4().hex[:12]}")
    for key in [*local.store.ls(RECORDS_DIR), REL]:
        fs.store.write(key, local.store.read(key))
    return fs


def _packing_change(server: Any, fresh: Callable[[str], MemFS]) -> dict[str, int]:
    """The requests of the change that packs a file's records on S3 (the one past
    ``pack_after`` loose records, keeping every version), counted at the server."""
    fs = fresh("")
    fs = MemFS(fs.store, clock=bench_clock, history=HistoryOptions(retention=Retention()))
    for i in range(PACK_AFTER):
        fs.pipe_file(REL, _memory(f"edit {i}", 2048))
    before = server.requests.copy()
    fs.pipe_file(REL, _memory("the change that packs", 2048))
    sent = dict(server.requests - before)
    assert list_records(fs.store, REL).loose == [], "the change did not pack"
    return sent


def log_row(server: Any, fresh: Callable[[str], MemFS], n: int = 400, rounds: int = 5) -> Row:
    """The log of ``n`` versions as a writer leaves them now (packed past ``pack_after``
    loose records) against the same versions all loose (``pack_after=0``, as memfs stored
    them before packs), in the same run, interleaved; and the requests of each log."""
    sides = {"packed": _copied(fresh, n, PACK_AFTER), "loose": _copied(fresh, n, 0)}
    listed = {name: list_records(fs.store, REL) for name, fs in sides.items()}
    times: dict[str, list[float]] = {name: [] for name in sides}
    requests: dict[str, dict[str, int]] = {}
    for _ in range(rounds):
        for name, fs in sides.items():
            h = History(fs)
            before = server.requests.copy()
            start = time.perf_counter()
            log = h.log(REL)
            times[name].append(time.perf_counter() - start)
            requests[name] = dict(server.requests - before)
            assert len(log.versions) == n and not log.damaged, name
    best = {name: min(t) for name, t in times.items()}
    count = {name: sum(r.values()) for name, r in requests.items()}
    packing = _packing_change(server, fresh)
    return Row(
        id="H3",
        what=f"`memfs log` of {n} versions on the moto S3 server",
        baseline=f"the same {n} versions stored loose, one record per object (as before packs)",
        target=f"≤ {LOG_TARGET_S:g} s",
        measured=f"{best['packed']:.2f} s (best of {rounds}; median "
        f"{statistics.median(times['packed']):.2f} s), {count['packed']} requests "
        f"({len(listed['packed'].loose)} loose records + {len(listed['packed'].packs)} pack) "
        f"vs loose {best['loose']:.2f} s (median {statistics.median(times['loose']):.2f} s), "
        f"{count['loose']} requests: {best['loose'] / best['packed']:.1f}× faster; the change "
        f"that packs sends {sum(packing.values())} requests, once every {PACK_AFTER + 1} changes",
        met=best["packed"] <= LOG_TARGET_S,
        figures={
            "log_s": times,
            "requests": requests,
            "objects": {
                name: {"loose": len(v.loose), "packs": len(v.packs)} for name, v in listed.items()
            },
            "versions": n,
            "pack_after": PACK_AFTER,
            "packing_change_requests": packing,
        },
    )


def requests_row(server: Any, fresh: Callable[[str], MemFS]) -> Row:
    import uuid

    def requests_of(history: bool) -> tuple[dict[str, int], dict[str, int]]:
        prefix = f"items/{uuid.uuid4().hex[:12]}"
        fresh(prefix).pipe_file(REL, _memory("v0", 2048))  # another process wrote it
        fs = fresh(prefix)
        if not history:
            fs = MemFS(fs.store, clock=bench_clock, history=False)
        counted = []
        for i in (1, 2):
            before = server.requests.copy()
            fs.pipe_file(REL, _memory(f"v{i}", 2048))
            counted.append(dict(server.requests - before))
        return counted[0], counted[1]

    on_first, on_later = requests_of(True)
    off_first, off_later = requests_of(False)
    extra_first = sum(on_first.values()) - sum(off_first.values())
    extra_later = sum(on_later.values()) - sum(off_later.values())
    return Row(
        id="H4",
        what="S3 requests of a change with history (moto server, counted at the server)",
        baseline="the same change with history=False",
        target=f"≤ {REQUESTS_TARGET} extra requests per change",
        measured=f"first change of a file +{extra_first} ({on_first} vs {off_first}); "
        f"later changes +{extra_later} ({on_later} vs {off_later})",
        met=max(extra_first, extra_later) <= REQUESTS_TARGET,
        figures={
            "first": {"on": on_first, "off": off_first, "extra": extra_first},
            "later": {"on": on_later, "off": off_later, "extra": extra_later},
        },
    )


# -- write cost --------------------------------------------------------------------------------


class _Writes:
    """Writes a memory never stored before on every call (its blob is new, as in an edit)."""

    def __init__(self, fs: MemFS) -> None:
        self.fs, self.n = fs, 0
        fs.pipe_file(REL, _memory("v0", 2048))

    def __call__(self) -> object:
        self.n += 1
        return self.fs.pipe_file(REL, _memory(f"v{self.n}", 2048))


class _Sequential(LocalFileStore):
    """A local disk without grouped writes: each durable write on its own, as before."""

    grouped_writes = False


class _CountingOs:
    """``os`` for :mod:`memfs.stores.host`, counting its fsyncs."""

    def __init__(self) -> None:
        self.fsyncs = 0

    def fsync(self, fd: int) -> None:
        self.fsyncs += 1
        os.fsync(fd)

    def __getattr__(self, name: str) -> Any:
        return getattr(os, name)


def fsync_row(repeats: int = 21) -> Row:
    tmp = tempfile.mkdtemp(prefix="memfs-bench-fsync-")
    try:
        sides = {
            "off": MemFS(LocalFileStore(f"{tmp}/off"), clock=bench_clock, history=False),
            "now": MemFS(LocalFileStore(f"{tmp}/now"), clock=bench_clock),
            "before": MemFS(
                _Sequential(f"{tmp}/before"),
                clock=bench_clock,
                history=HistoryOptions(inline_limit=0),
            ),
        }
        writes = {name: _Writes(fs) for name, fs in sides.items()}
        fsyncs: dict[str, float] = {}
        counting = _CountingOs()
        real_os, host.os = host.os, counting  # type: ignore[assignment]
        try:
            for name, write in writes.items():
                counting.fsyncs = 0
                for _ in range(10):
                    write()
                fsyncs[name] = counting.fsyncs / 10
        finally:
            host.os = real_os
        now = compare(
            writes["off"],
            writes["now"],
            baseline_label="history off",
            candidate_label="history on",
            repeats=repeats,
            number=2,
        )
        before = compare(
            writes["off"],
            writes["before"],
            baseline_label="history off",
            candidate_label="history on, blob + record + file",
            repeats=repeats,
            number=2,
        )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return Row(
        id="H5",
        what="fsyncs and time of a memory edit (`pipe_file`, 2 KB) with history, local disk",
        baseline="the same edit with history=False",
        target="time ≤ 2×, power-loss safe (record durable before the file)",
        measured=f"fsyncs per edit {fsyncs['now']:g} (record + file, grouped) vs "
        f"{fsyncs['off']:g} without; time {now.ratio_paired:.2f}×; as before (blob, record, "
        f"file one after another) {fsyncs['before']:g} fsyncs, {before.ratio_paired:.2f}×",
        met=now.ratio_paired <= 2.0,
        figures={
            "fsyncs_per_edit": fsyncs,
            "now": now.summary(),
            "before": before.summary(),
            "repeats": repeats,
        },
    )


def git_row(edits: int = 25) -> Row | None:
    git = shutil.which("git")
    if git is None:  # the row needs the git CLI
        return None
    tmp = tempfile.mkdtemp(prefix="memfs-bench-git-")
    try:
        repo = os.path.join(tmp, "repo")
        os.makedirs(os.path.join(repo, "memory"))
        env = {
            **os.environ,
            "GIT_AUTHOR_NAME": "bench",
            "GIT_AUTHOR_EMAIL": "bench@example.invalid",
            "GIT_COMMITTER_NAME": "bench",
            "GIT_COMMITTER_EMAIL": "bench@example.invalid",
            "GIT_CONFIG_NOSYSTEM": "1",
            "HOME": tmp,
        }
        subprocess.run([git, "init", "-q", repo], check=True, env=env)

        def commit(i: int) -> None:
            with open(os.path.join(repo, REL), "wb") as f:
                f.write(_memory(f"v{i}", 2048))
            subprocess.run([git, "-C", repo, "add", REL], check=True, env=env)
            subprocess.run([git, "-C", repo, "commit", "-q", "-m", f"v{i}"], check=True, env=env)

        memfs = _Writes(MemFS(LocalFileStore(os.path.join(tmp, "ws")), clock=bench_clock))
        git_s, memfs_s = [], []
        for i in range(edits):
            start = time.perf_counter()
            commit(i)
            git_s.append(time.perf_counter() - start)
            start = time.perf_counter()
            memfs()
            memfs_s.append(time.perf_counter() - start)
        ratio = statistics.median(git_s) / statistics.median(memfs_s)
        repo_alloc = allocated(os.path.join(repo, ".git"))[0]
        return Row(
            id="H6",
            what="a change committed to git (`git add && git commit`) vs memfs with history",
            baseline="the same change written by memfs with history, local disk",
            target="reported (git-backed memory is what Letta ships)",
            measured=f"git {statistics.median(git_s) * 1e3:.1f} ms vs memfs "
            f"{statistics.median(memfs_s) * 1e3:.2f} ms per change (medians of {edits}): "
            f"git {ratio:.0f}× slower; git does not fsync by default, memfs does",
            figures={
                "git_s": git_s,
                "memfs_s": memfs_s,
                "ratio": ratio,
                "git_dir_allocated": repo_alloc,
            },
        )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(RESULTS), help="directory for the results file")
    ap.add_argument("--repeats", type=int, default=21)
    ap.add_argument("--no-s3", action="store_true", help="skip the rows that need moto")
    ap.add_argument(
        "--only",
        choices=["H3"],
        help="run only this row (results go to history-store-<date>-<row>.json)",
    )
    args = ap.parse_args(argv)
    start = time.perf_counter()
    rows: list[Row] = []
    if args.only is None:
        rows += size_rows()
        rows.append(fsync_row())
    if not args.no_s3:
        server, fresh, stop = _s3()
        try:
            rows.append(log_row(server, fresh))
            if args.only is None:
                rows.append(requests_row(server, fresh))
        finally:
            stop()
    row = git_row() if args.only is None else None
    if row is not None:
        rows.append(row)
    command = "python -m benchmarks.bench_history_store" + (
        f" --only {args.only}" if args.only else ""
    )
    report = {
        "date": dt.date.today().isoformat(),
        "command": command,
        "load": os.getloadavg(),
        "elapsed_s": round(time.perf_counter() - start, 1),
        "cpus": os.cpu_count(),
        "rows": [r.model_dump() for r in rows],
    }
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"history-store-{report['date']}{'-' + args.only if args.only else ''}.json"
    path.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    for r in rows:
        flag = "" if r.met is None else (" (met)" if r.met else " (MISSED)")
        print(f"{r.id}: {r.what}: {r.measured}{flag}")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
