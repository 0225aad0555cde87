"""Crash safety: a writer killed with SIGKILL at random moments never leaves a torn file.

A forked child writes memory files (through MemFS, 200 B to 128 KB each) and appends to
``MEMORY.md`` with the conditional-write loop, forever, reporting each completed write through a
pipe; the parent kills it once it has seen a random 0-8 completed writes, after a random pause of
up to one write's duration as the last writer showed it (so the kill lands anywhere inside the
next write), 200 times on
``LocalFileStore`` and 100 on ``FsspecFileStore`` over ``file://``. What each writer got done is
counted, not timed, so a loaded machine runs the same test, only slower.
After every kill each file must be one complete version (its own digest matches) no older than
the last one seen, every ``MEMORY.md`` line whole, and no temp or lock file visible in any
listing. Afterwards the locks a killed child held must not block anyone, and one more write
round leaves nothing behind on disk.
"""

from __future__ import annotations

import functools
import hashlib
import os
import random
import re
import signal
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from memfs import LocalFileStore, MemFS
from memfs.stores import TEMP_PREFIX, FileStore, FsspecFileStore
from memfs.tools import FileToolExecutor

from tests.conftest import TODAY
from tests.killed_writer import kill_after_steps

KILLS = 200
NAMES = ("user-role", "project-deadline", "feedback-style", "reference-runbook")
SIZES = (200, 8_000, 128_000)
INDEX_LINE = re.compile(r"^- \[run (\d+)\]\(memory/user-role\.md\) — version (\d+)$")


def _mount(kind: str, root: Path) -> MemFS:
    store: FileStore = (
        LocalFileStore(root) if kind == "local" else FsspecFileStore(f"file://{root}")
    )
    # The credential guard's scan of 128 KB bodies is not what this measures.
    return MemFS(store, clock=lambda: TODAY, credential_guard=False)


def _version(name: str, version: int, size: int) -> bytes:
    head = (
        f"---\nname: {name}\ndescription: crash-test memory\nmetadata:\n  type: project\n"
        f"  recorded: {TODAY}\n---\nversion {version}\n"  # the date the write gets
    )
    line = f"{name} {version} lorem ipsum dolor sit amet\n"
    text = head + line * max(1, size // len(line))
    return f"{text}digest {hashlib.sha256(text.encode()).hexdigest()}\n".encode()


def _check_version(data: bytes, name: str) -> int:
    """The version a stored file holds; fails the test if the file is torn."""
    text = data.decode()
    body, sep, digest = text.rstrip("\n").rpartition("\ndigest ")
    assert sep, f"{name}: no digest line, file torn ({len(data)} bytes)"
    assert hashlib.sha256((body + "\n").encode()).hexdigest() == digest, f"{name}: torn"
    m = re.search(r"^version (\d+)$", body, re.M)
    assert m, f"{name}: no version line"
    return int(m.group(1))


def _append(line: bytes, current: bytes | None) -> bytes:
    return (current or b"") + line


def _writer(fs: MemFS, run: int, seed: int, step_done: Callable[[], None]) -> None:
    rng = random.Random(seed)
    version = run * 1_000_000
    start = rng.randrange(len(NAMES))  # so a short-lived writer still reaches every file
    order = NAMES[start:] + NAMES[:start]
    while True:
        for name in order:
            version += 1
            fs.pipe_file(f"memory/{name}.md", _version(name, version, rng.choice(SIZES)))
            step_done()
            line = f"- [run {run}](memory/user-role.md) — version {version}\n".encode()
            fs.update("MEMORY.md", functools.partial(_append, line))
            step_done()


def _on_disk_leftovers(root: Path) -> set[tuple[str, int, int]]:
    out = set()
    for d in (root, root / "memory"):
        if d.is_dir():
            for entry in os.scandir(d):
                if entry.name.startswith(TEMP_PREFIX):
                    st = entry.stat()
                    out.add((entry.path, st.st_ino, st.st_mtime_ns))
    return out


def _visible_names(fs: MemFS) -> list[str]:
    listing = FileToolExecutor(fs).execute("list_files", {"path": "", "recursive": True})
    return [
        *fs.find(""),
        *fs.ls("", detail=False),
        *fs.ls("memory", detail=False),
        *fs.store.ls(""),
        *fs.store.listdir("memory"),
        *listing.splitlines(),
    ]


@pytest.mark.parametrize(("kind", "kills"), [("local", KILLS), ("fsspec-file", KILLS // 2)])
def test_sigkilled_writer_never_leaves_a_torn_file(kind: str, kills: int, tmp_path: Path) -> None:
    root = tmp_path / "ws"
    fs = _mount(kind, root)
    for name in NAMES:
        fs.pipe_file(f"memory/{name}.md", _version(name, 0, 200))
    fs.pipe_file("MEMORY.md", b"")
    rng = random.Random(20261201)
    seen = {name: 0 for name in NAMES}
    index_lines = 0
    mid_write = 0
    leftovers_seen: set[tuple[str, int, int]] = set()
    writes = appends = 0
    step_s = 0.002  # a write's duration, until the writers have shown how long one takes here
    started = time.perf_counter()
    for run in range(1, kills + 1):
        work = functools.partial(_writer, fs, run, rng.randrange(2**32))
        pause = rng.uniform(0, step_s)
        kill = kill_after_steps(work, rng.randrange(2 * len(NAMES) + 1), pause_s=pause)
        step_s = kill.step_s or step_s
        status = kill.status
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, (
            f"the writer stopped on its own (status {status}) instead of being killed"
        )
        writes += kill.completed
        appends += kill.completed // 2  # the steps alternate: a file write, then an append
        for name in NAMES:
            version = _check_version(fs.raw.cat_file(f"memory/{name}.md"), name)
            assert version >= seen[name], f"{name} went back from {seen[name]} to {version}"
            seen[name] = version
        index = fs.raw.cat_file("MEMORY.md").decode()
        assert index == "" or index.endswith("\n"), "MEMORY.md ends in a torn line"
        lines = index.splitlines()
        assert all(INDEX_LINE.match(ln) for ln in lines), "a MEMORY.md line is torn"
        assert len(lines) >= index_lines
        index_lines = len(lines)
        assert not [n for n in _visible_names(fs) if TEMP_PREFIX in n]
        now = _on_disk_leftovers(root)
        if now - leftovers_seen:
            mid_write += 1  # the kill landed between opening a temp/lock file and removing it
        leftovers_seen |= now
    elapsed = time.perf_counter() - started
    on_disk = len(_on_disk_leftovers(root))
    assert on_disk <= 2 * (len(NAMES) + 1), "temp files accumulate instead of being reused"

    # The locks a killed writer held are gone with it: every path still takes writes, and one
    # more round of writes reuses and removes whatever the kills left on disk.
    for name in NAMES:
        fs.pipe_file(f"memory/{name}.md", _version(name, 10**9, 200))
        fs.update(f"memory/{name}.md", lambda b: b or b"")  # a no-change CAS round
    last = "- [run 0](memory/user-role.md) — version 0\n".encode()
    fs.update("MEMORY.md", lambda b: (b or b"") + last)
    assert _on_disk_leftovers(root) == set()
    assert sum(v > 0 for v in seen.values()) == len(NAMES), "the writer never got to write"
    assert index_lines >= appends, "an append the writer reported done is missing from MEMORY.md"
    print(
        f"\n[crash {kind}] {kills} SIGKILLs in {elapsed:.1f}s after {writes} completed writes: "
        "0 torn files, 0 versions gone "
        f"back; {mid_write} kills landed mid-write (a temp or lock file was left); "
        f"{on_disk} temp/lock files on disk at the end (at most 2 per file), 0 in listings; "
        f"{index_lines} MEMORY.md lines appended by killed writers, all whole"
    )


@pytest.mark.parametrize("kind", ["local", "fsspec-file"])
def test_a_directory_empty_but_for_crash_leftovers_can_be_removed(
    kind: str, tmp_path: Path
) -> None:
    root = tmp_path / "ws"
    fs = _mount(kind, root)
    fs.pipe_file("memory/a.md", b"x")
    fs.pipe_file("memory/b.md", b"y")
    for name in (f"{TEMP_PREFIX}0123abcd", f"{TEMP_PREFIX}0123abcd.lock"):
        (root / "memory" / name).write_bytes(b"left by a killed writer")
    fs.rm_file("memory/a.md")
    with pytest.raises(OSError, match="not empty"):
        fs.rmdir("memory")  # b.md is still there
    fs.rm_file("memory/b.md")
    assert fs.ls("memory", detail=False) == []
    fs.rmdir("memory")
    assert not (root / "memory").exists()


def test_the_next_write_removes_what_a_killed_writer_left_for_that_file_only(
    tmp_path: Path,
) -> None:
    """A killed writer leaves its lock file and a temp file with a random name; the next write of
    the same file finds the lock file, so it removes that file's temp files, and no other's."""
    from memfs.stores.host import lock_name, temp_name

    root = tmp_path / "ws"
    fs = _mount("local", root)
    fs.pipe_file("memory/a.md", b"a\n")
    fs.pipe_file("memory/b.md", b"b\n")
    mem = root / "memory"
    left = {lock_name("a.md"), temp_name("a.md"), temp_name("a.md"), temp_name("b.md")}
    for name in left:
        (mem / name).write_bytes(b"left by a killed writer")
    assert len({n for n in left if n != lock_name("a.md")}) == 3  # never the same name twice
    fs.pipe_file("memory/a.md", b"a2\n")
    remaining = {n for n in os.listdir(mem) if n.startswith(TEMP_PREFIX)}
    assert remaining == {n for n in left if n.startswith(temp_name("b.md")[:-16])}
    assert fs.raw.cat_file("memory/a.md") == b"a2\n"
    assert fs.find("") == ["memory/a.md", "memory/b.md"]
