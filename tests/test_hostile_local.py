"""Hostile local workspaces: what another process, or a planted file, can do to a local store.

Every test here runs on both local-disk stores (``LocalFileStore`` and ``FsspecFileStore`` over
``file://``, which is one) and plants what an attacker with write access to the workspace
directory would plant: symlinks swapped in and out while reads and writes run, links at the
names of temp and lock files, link loops, FIFOs, device nodes, sockets, hard links to outside
files. Whatever happens, nothing outside the root may be read, written or deleted; every
refusal is a clear error naming a workspace path, never a host path; and listings never block,
loop or fail.

The attack functions (``symlink_race``, ``planted_temp_link`` …) take a store and return what
they measured, so the same attacks can be run against another store implementation (the
figures in docs/security/index.md compare this store with the one before it).
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from memfs import FsspecFileStore, LocalFileStore, MemFS, UnsafePathError
from memfs.errors import UpdateConflictError
from memfs.paths import RESERVED_PREFIX, normalize
from memfs.stores import TEMP_PREFIX, FileStore, with_preconditions
from memfs.stores.host import lock_name
from memfs.tools import FileToolExecutor

from tests.conftest import BACKENDS, TODAY, make_store

KINDS = ["local", "fsspec-file"]
SECRET = b"SECRET outside the workspace\n"
INSIDE = b"inside the workspace\n"


def make_local(kind: str, root: Path, **options: Any) -> Any:
    if kind == "local":
        return LocalFileStore(root, **options)
    return FsspecFileStore(f"file://{root}")


def snapshot(top: Path) -> dict[str, tuple[str, bytes]]:
    """Every entry under ``top`` (not following links): kind and content or link target."""
    out: dict[str, tuple[str, bytes]] = {}
    for dirpath, dirnames, filenames in os.walk(top):
        for name in dirnames + filenames:
            p = Path(dirpath, name)
            rel = str(p.relative_to(top))
            st_ = p.lstat()
            if stat.S_ISLNK(st_.st_mode):
                out[rel] = ("link", os.readlink(p).encode())
            elif stat.S_ISREG(st_.st_mode):
                out[rel] = ("file", p.read_bytes())
            else:
                out[rel] = (stat.filemode(st_.st_mode)[0], b"")
    return out


@dataclass
class World:
    """A workspace root and an outside directory beside it, with secrets in it."""

    kind: str
    tmp: Path
    store: Any = None
    root: Path = field(init=False)
    outside: Path = field(init=False)

    def __post_init__(self) -> None:
        self.outside = self.tmp / "outside"
        (self.outside / "dir").mkdir(parents=True)
        (self.outside / "secret.md").write_bytes(SECRET)
        (self.outside / "dir" / "a.md").write_bytes(SECRET)
        (self.outside / "dir" / "only-outside.md").write_bytes(SECRET)
        if self.store is None:
            self.store = make_local(self.kind, self.tmp / "ws")
        self.root = Path(self.store.root)
        self.before = snapshot(self.outside)

    @property
    def fs(self) -> MemFS:
        return MemFS(self.store, clock=lambda: TODAY)

    def outside_changed(self) -> list[str]:
        now = snapshot(self.outside)
        return sorted(k for k in set(now) | set(self.before) if now.get(k) != self.before.get(k))


@pytest.fixture(params=KINDS)
def world(request: pytest.FixtureRequest, tmp_path: Path) -> World:
    return World(request.param, tmp_path)


def host_root_absent(err: BaseException, root: Path) -> bool:
    shown = [str(err), repr(err.args)]
    if isinstance(err, OSError):
        shown += [str(err.filename), str(err.filename2)]
    host = str(root)
    return not any(host in s or str(root.parent) in s for s in shown)


def _refused_as_link(err: BaseException) -> bool:
    return isinstance(err, UnsafePathError) and "symlink" in str(err)


# -- 1. symlinks swapped in while reads and writes run ------------------------------------------


@dataclass
class RaceFigures:
    reads: int = 0
    read_escapes: int = 0
    writes: int = 0
    write_escapes: int = 0
    lists: int = 0
    list_escapes: int = 0
    refused: int = 0
    outside_changes: list[str] = field(default_factory=list)

    @property
    def escapes(self) -> int:
        return self.read_escapes + self.write_escapes + self.list_escapes


ATTACKER = r"""
import ctypes, os, sys, time
mem, outside = sys.argv[1], sys.argv[2]
os.symlink(os.path.join(outside, "secret.md"), os.path.join(mem, "f.swap"))
os.symlink(os.path.join(outside, "dir"), os.path.join(mem, "d.swap"))
pairs = [(os.path.join(mem, a).encode(), os.path.join(mem, b).encode())
         for a, b in (("f.md", "f.swap"), ("d", "d.swap"))]
exchange = getattr(ctypes.CDLL(None, use_errno=True), "renameat2", None)
print("ready", flush=True)
while True:
    for a, b in pairs:
        if exchange is not None:  # renameat2(RENAME_EXCHANGE): one atomic swap of two names
            exchange(-100, a, -100, b, 2)
        else:  # pragma: no cover - an old libc: the same flip in two renames
            os.rename(a, a + b".x"); os.rename(b, a); os.rename(a + b".x", b)
"""


def symlink_race(
    store: Any, root: Path, outside: Path, *, rounds: int, cap_s: float = 120.0
) -> RaceFigures:
    """Reads, writes and listings while another process swaps links in and out of the path.

    Runs ``rounds`` rounds (two reads, a write, two listings each) and then on until at least one
    operation met a swapped-in link and was refused, so the race is known to have happened; a
    loaded machine takes longer, not fewer rounds. ``cap_s`` only bounds the wait for that.

    The attacker process swaps, as fast as it can and atomically (``renameat2`` with
    ``RENAME_EXCHANGE``), the regular file ``memory/f.md`` with a link to an outside file and
    the directory ``memory/d`` with a link to an outside directory. An escape is a read that
    returned outside bytes, a listing that named a file only the outside directory has, or a
    write that landed outside.
    """
    mem = root / "memory"
    (mem / "d").mkdir(parents=True, exist_ok=True)
    (mem / "d" / "a.md").write_bytes(INSIDE)
    (mem / "f.md").write_bytes(INSIDE)
    before = snapshot(outside)
    figures = RaceFigures()
    attacker = subprocess.Popen(
        [sys.executable, "-c", ATTACKER, str(mem), str(outside)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert attacker.stdout is not None and attacker.stdout.readline() == "ready\n"
        deadline = time.monotonic() + cap_s
        i = 0
        while (i < rounds or figures.refused == 0) and time.monotonic() < deadline:
            i += 1
            for path in ("memory/f.md", "memory/d/a.md"):
                figures.reads += 1
                try:
                    data = store.read(path)
                except OSError:
                    figures.refused += 1
                else:
                    figures.read_escapes += data == SECRET
            figures.writes += 1
            try:
                store.write(f"memory/d/new-{i}.md", b"written by memfs\n")
            except OSError:
                figures.refused += 1
            for listing in (store.ls, store.listdir):
                figures.lists += 1
                try:
                    names = listing("memory/d")
                except OSError:
                    figures.refused += 1
                else:
                    figures.list_escapes += any("only-outside" in n for n in names)
    finally:
        attacker.kill()
        attacker.wait(timeout=10)
        if attacker.stdout is not None:
            attacker.stdout.close()
    for name in ("f", "d"):  # put the regular file and the directory back where they were
        if (mem / name).is_symlink():
            os.rename(mem / name, mem / f"{name}.tmp")
            os.rename(mem / f"{name}.swap", mem / name)
            os.rename(mem / f"{name}.tmp", mem / f"{name}.swap")
    now = snapshot(outside)
    figures.outside_changes = sorted(
        k for k in set(now) | set(before) if now.get(k) != before.get(k)
    )
    figures.write_escapes = sum(1 for k in figures.outside_changes if "new-" in k)
    return figures


@pytest.mark.parametrize("kind", KINDS)
def test_symlinks_swapped_in_during_reads_and_writes_never_escape(
    kind: str, tmp_path: Path
) -> None:
    w = World(kind, tmp_path)
    figures = symlink_race(w.store, w.root, w.outside, rounds=150)
    print(f"\n[symlink race {kind}] {figures}")
    assert figures.reads >= 300 and figures.writes >= 150, figures  # the race really ran
    assert figures.escapes == 0, figures
    assert figures.outside_changes == [], figures.outside_changes
    assert figures.refused > 0  # the links were met, and refused


# -- 1. a symlink met anywhere is refused, whatever it points at -------------------------------

LINK_TARGETS: dict[str, Callable[[World, Path], str]] = {
    "outside file": lambda w, at: str(w.outside / "secret.md"),
    "outside dir": lambda w, at: str(w.outside / "dir"),
    "inside file": lambda w, at: str(w.root / "notes" / "n.md"),
    "inside dir": lambda w, at: str(w.root / "notes"),
    "dangling": lambda w, at: str(w.outside / "nothing-here"),
    "loop": lambda w, at: str(at),
    "parent": lambda w, at: "..",
    "relative inside": lambda w, at: os.path.relpath(w.root / "notes", at.parent),
}

PATH = ("memory", "sub", "x.md")

STORE_OPS: dict[str, Callable[[Any, str], Any]] = {
    "read": lambda s, p: s.read(p),
    "read_to_file": lambda s, p: s.read_to_file(p, os.devnull),
    "write": lambda s, p: s.write(p, b"new\n"),
    "write create": lambda s, p: s.write(p, b"new\n", create=True),
    "write_from_path": lambda s, p: s.write_from_path(p, os.devnull),
    "ls": lambda s, p: s.ls(p),
    "exists": lambda s, p: s.exists(p),
    "is_dir": lambda s, p: s.is_dir(p),
    "listdir": lambda s, p: s.listdir(p),
    "delete": lambda s, p: s.delete(p),
    "mkdir": lambda s, p: s.mkdir(p),
    "rmdir": lambda s, p: s.rmdir(p),
}

FS_OPS: dict[str, Callable[[MemFS, str], Any]] = {
    "cat_file": lambda fs, p: fs.cat_file(p),
    "read_only.cat_file": lambda fs, p: fs.read_only().cat_file(p),
    "info": lambda fs, p: fs.info(p),
    "pipe_file": lambda fs, p: fs.pipe_file(p, b"new\n"),
    "open-wb": lambda fs, p: fs.open(p, "wb").close(),
    "rm": lambda fs, p: fs.rm(p),
    "rm-recursive": lambda fs, p: fs.rm(p, recursive=True),
    "rm_file": lambda fs, p: fs.rm_file(p),
    "ls": lambda fs, p: fs.ls(p),
    "find": lambda fs, p: fs.find(p, withdirs=True),
    "touch": lambda fs, p: fs.touch(p),
}


@pytest.mark.parametrize("position", range(len(PATH)), ids=["memory", "memory/sub", "leaf"])
@pytest.mark.parametrize("target", sorted(LINK_TARGETS))
@pytest.mark.parametrize("kind", KINDS)
def test_a_link_anywhere_on_the_path_is_refused_by_every_operation(
    kind: str, target: str, position: int, tmp_path: Path
) -> None:
    w = World(kind, tmp_path)
    w.fs.pipe_file("notes/n.md", INSIDE)
    at = w.root.joinpath(*PATH[: position + 1])
    at.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(LINK_TARGETS[target](w, at), at)
    link = "/".join(PATH[: position + 1])
    inside = snapshot(w.root / "notes")
    ops: list[tuple[str, Callable[[], Any]]] = [
        *(
            (f"store.{n}", functools.partial(op, w.store, "/".join(PATH)))
            for n, op in STORE_OPS.items()
        ),
        *((f"fs.{n}", functools.partial(op, w.fs, "/".join(PATH))) for n, op in FS_OPS.items()),
    ]
    for name, call in ops:
        with pytest.raises(OSError) as info:
            call()
        err = info.value
        assert _refused_as_link(err), f"{name}: {type(err).__name__}: {err}"
        assert repr(link) in str(err), f"{name}: the message does not name {link!r}: {err}"
        assert host_root_absent(err, w.root), f"{name}: {err}"
    assert w.outside_changed() == []
    assert os.path.islink(at), "the link itself was removed or replaced"
    assert snapshot(w.root / "notes") == inside


def test_the_refusal_says_what_the_link_is_and_what_to_do(tmp_path: Path) -> None:
    w = World("local", tmp_path)
    (w.root / "memory").mkdir()
    os.symlink(w.outside / "secret.md", w.root / "memory" / "x.md")
    with pytest.raises(UnsafePathError) as info:
        w.store.read("memory/x.md")
    assert str(info.value) == (
        "[Errno 13] Refused path 'memory/x.md': it is a symlink; memfs never follows, overwrites "
        "or removes a link (one can lead outside the workspace). Use another path; whoever "
        "manages the workspace can replace it with a regular file or directory.: 'memory/x.md'"
    )
    out = FileToolExecutor(w.fs).execute("read_file", {"path": "memory/x.md"})
    assert out.startswith("Error:") and "is a symlink" in out and str(w.root) not in out


# -- 2. temp and lock files ----------------------------------------------------------------------


def planted_temp_link(store: Any, root: Path, outside: Path) -> list[str]:
    """Plant links at every name a write of ``memory/a.md`` could open for its temp or lock file
    (the predictable ones), write it, and return what changed outside."""
    from memfs.stores.host import _suffix

    mem = root / "memory"
    mem.mkdir(parents=True, exist_ok=True)
    (mem / "a.md").write_bytes(b"old\n")
    victim = outside / "victim.md"
    victim.write_bytes(SECRET)
    before = snapshot(outside)
    h = _suffix("a.md")
    for name in (f"{TEMP_PREFIX}{h}", f"{TEMP_PREFIX}{h}.lock", f"{TEMP_PREFIX}{h}-0"):
        os.symlink(victim, mem / name)
    with contextlib.suppress(OSError):
        store.write("memory/a.md", b"new content\n")
    now = snapshot(outside)
    return sorted(k for k in set(now) | set(before) if now.get(k) != before.get(k))


@pytest.mark.parametrize("kind", KINDS)
def test_a_link_planted_at_a_temp_or_lock_name_is_never_followed(kind: str, tmp_path: Path) -> None:
    w = World(kind, tmp_path)
    assert planted_temp_link(w.store, w.root, w.outside) == []
    assert w.store.read("memory/a.md") == b"new content\n"
    assert w.store.ls("") == ["memory/a.md"]


@pytest.mark.parametrize("planted", ["fifo", "socket", "directory"])
@pytest.mark.parametrize("kind", KINDS)
def test_a_fifo_socket_or_directory_at_the_lock_name_never_blocks_a_write(
    kind: str, planted: str, tmp_path: Path
) -> None:
    w = World(kind, tmp_path)
    w.store.write("memory/a.md", b"one\n")
    at = w.root / "memory" / lock_name("a.md")
    if planted == "fifo":
        os.mkfifo(at)
    elif planted == "socket":
        _plant("socket", at, w)
    else:
        at.mkdir()
    if planted == "directory":  # cannot be removed without touching what is in it: refused
        with pytest.raises(OSError) as info:
            _within(5, lambda: w.store.write("memory/a.md", b"two\n"))
        assert host_root_absent(info.value, w.root)
        assert w.store.read("memory/a.md") == b"one\n"
        return
    _within(5, lambda: w.store.write("memory/a.md", b"two\n"))
    assert w.store.read("memory/a.md") == b"two\n"
    assert not os.path.lexists(at)


def test_temp_names_are_unguessable_and_a_drawn_name_taken_is_never_opened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = World("local", tmp_path)
    used: list[str] = []
    real_replace = os.replace

    def spy(src: Any, dst: Any, **kw: Any) -> None:
        used.append(str(src))
        real_replace(src, dst, **kw)

    monkeypatch.setattr(os, "replace", spy)
    for _ in range(3):
        w.store.write("memory/a.md", b"x\n")
    monkeypatch.undo()
    assert len(set(used)) == 3 and all(u.startswith(RESERVED_PREFIX) for u in used)
    assert all(len(u.rsplit("-", 1)[1]) == 16 for u in used)  # 64 random bits each

    import memfs.stores.host as host

    monkeypatch.setattr(host.secrets, "token_hex", lambda n: "0" * (2 * n))
    taken = w.root / "memory" / host.temp_name("a.md")
    os.symlink(w.outside / "secret.md", taken)
    with pytest.raises(FileExistsError) as info:
        w.store.write("memory/a.md", b"y\n")
    assert host_root_absent(info.value, w.root)
    assert w.outside_changed() == [] and w.store.read("memory/a.md") == b"x\n"


RESERVED_NAMES = [
    f"{RESERVED_PREFIX}x",
    f"memory/{lock_name('a.md')}",
    f"memory/{RESERVED_PREFIX}0123456789abcdef0123-00ff00ff00ff00ff",
    f"{RESERVED_PREFIX.upper()}LOCK",
    f"memory/{RESERVED_PREFIX}dir/x.md",
]


@pytest.mark.parametrize("name", RESERVED_NAMES)
def test_reserved_names_are_refused_on_every_backend_and_surface(
    store: FileStore, name: str
) -> None:
    store = with_preconditions(store)
    fs = MemFS(store, clock=lambda: TODAY)
    fs.pipe_file("memory/a.md", b"a\n")
    calls: list[Callable[[], Any]] = [
        *(functools.partial(op, store, name) for op in STORE_OPS.values()),
        *(functools.partial(op, fs, name) for op in FS_OPS.values()),
        lambda: fs.exists(name),
        lambda: fs.isdir(name),
    ]
    for call in calls:
        with pytest.raises(UnsafePathError, match="reserved for memfs's own temporary and lock"):
            call()
    tools = FileToolExecutor(fs)
    for tool, args in [
        ("write_file", {"path": name, "content": "x"}),
        ("read_file", {"path": name}),
        ("delete_file", {"path": name}),
        ("list_files", {"path": name}),
        ("exists", {"path": name}),
    ]:
        out = tools.execute(tool, args)
        assert out.startswith("Error:") and "reserved" in out, (tool, out)
    assert fs.find("") == ["memory/a.md"]


def _append(line: bytes, current: bytes | None) -> bytes:
    return (current or b"") + line


def lock_name_attack(store: Any, *, writers: int = 4, edits: int = 25) -> tuple[int, int]:
    """Writers append lines to MEMORY.md with conditional writes while an agent writes and
    deletes the lock file's name through every surface. Returns (lines lost, agent calls
    accepted)."""
    fs = MemFS(store, clock=lambda: TODAY)
    fs.pipe_file("MEMORY.md", b"")
    lock = lock_name("MEMORY.md")
    stop = threading.Event()
    accepted = 0

    def agent() -> None:
        nonlocal accepted
        tools = FileToolExecutor(fs, read_before_write=False)
        while not stop.is_set():
            for call in (
                lambda: store.write(lock, b""),
                lambda: store.delete(lock),
                lambda: fs.pipe_file(lock, b""),
                lambda: fs.rm_file(lock),
            ):
                try:
                    call()
                    accepted += 1
                except OSError:
                    pass
            out = tools.execute("write_file", {"path": lock, "content": ""})
            accepted += not out.startswith("Error:")

    def writer(n: int) -> None:
        for i in range(edits):
            line = f"- writer {n} edit {i}\n".encode()
            while True:  # an edit that gave up under contention said so: it is retried
                try:
                    fs.update("MEMORY.md", functools.partial(_append, line))
                    break
                except UpdateConflictError:
                    continue

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(writers)]
    spy = threading.Thread(target=agent, daemon=True)
    spy.start()
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    stop.set()
    spy.join(timeout=10)
    lines = fs.raw.cat_file("MEMORY.md").decode().splitlines()
    return writers * edits - len(set(lines)), accepted


@pytest.mark.parametrize("kind", KINDS)
def test_an_agent_writing_the_lock_name_cannot_break_mutual_exclusion(
    kind: str, tmp_path: Path
) -> None:
    lost, accepted = lock_name_attack(make_local(kind, tmp_path / "ws"))
    assert (lost, accepted) == (0, 0)


# -- 3. deletes never go through links -----------------------------------------------------------


def rm_through_link(store: Any, root: Path) -> list[str]:
    """``rm -r`` of a link to a directory inside the workspace: which target files it deleted."""
    fs = MemFS(store, clock=lambda: TODAY)
    for name in ("a.md", "b.md"):
        fs.pipe_file(f"notes/{name}", INSIDE)
    os.symlink(root / "notes", root / "link")
    with contextlib.suppress(OSError):
        fs.rm("link", recursive=True)
    return sorted(n for n in ("a.md", "b.md") if not (root / "notes" / n).exists())


@pytest.mark.parametrize("kind", KINDS)
def test_removing_a_link_never_touches_its_target(kind: str, tmp_path: Path) -> None:
    w = World(kind, tmp_path)
    assert rm_through_link(w.store, w.root) == []
    fs = w.fs
    surfaces: list[Callable[[], Any]] = [
        lambda: fs.rm("link", recursive=True),
        lambda: fs.rm("link"),
        lambda: fs.rm_file("link"),
        lambda: fs.rmdir("link"),
        lambda: fs.delete("link", recursive=True),
        lambda: w.store.delete("link"),
        lambda: w.store.rmdir("link"),
    ]
    for call in surfaces:
        with pytest.raises(UnsafePathError, match="it is a symlink"):
            call()
    out = FileToolExecutor(fs).execute("delete_file", {"path": "link"})
    assert out.startswith("Error:") and "symlink" in out
    assert sorted(fs.find("notes")) == ["notes/a.md", "notes/b.md"]
    assert os.path.islink(w.root / "link")


@pytest.mark.parametrize("kind", KINDS)
def test_removing_a_tree_never_follows_a_link_inside_it(kind: str, tmp_path: Path) -> None:
    w = World(kind, tmp_path)
    fs = w.fs
    fs.pipe_file("notes/keep.md", INSIDE)
    fs.pipe_file("memory/sub/a.md", INSIDE)
    sub = w.root / "memory" / "sub"
    os.symlink(w.root / "notes", sub / "to-notes")
    os.symlink(w.root / "notes" / "keep.md", sub / "to-keep.md")
    os.symlink(w.outside / "dir", sub / "to-outside")
    with pytest.raises(OSError, match="not empty: it still holds 'memory/sub/to-") as info:
        fs.rm("memory", recursive=True)
    assert "(a symlink)" in str(info.value)
    assert fs.find("memory") == []  # the tree's own files are gone
    assert fs.find("notes") == ["notes/keep.md"]
    assert sorted(os.listdir(sub)) == ["to-keep.md", "to-notes", "to-outside"]
    assert w.outside_changed() == []


def _within(seconds: float, call: Callable[[], Any]) -> Any:
    """``call()``'s result, failing the test if it has not returned within ``seconds``."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = call()
        except BaseException as e:  # surfaced below
            box["error"] = e

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), f"did not return within {seconds}s (blocked or looping)"
    if "error" in box:
        raise box["error"]
    return box.get("value")


def _listings(fs: MemFS, path: str = "") -> dict[str, Any]:
    tools = FileToolExecutor(fs)
    return {
        "store.ls": fs.store.ls(path),
        "store.listdir": fs.store.listdir(path),
        "find": fs.find(path),
        "find-detail": sorted(fs.find(path, withdirs=True, detail=True)),
        "ls": fs.ls(path, detail=True),
        "walk": list(fs.walk(path)),
        "du": fs.du(path),
        "list_files": tools.execute("list_files", {"path": path, "recursive": True}),
        "list_files-flat": tools.execute("list_files", {"path": path}),
    }


HIDDEN_KINDS = ["loop", "self-loop", "dangling", "to-parent", "to-root", "to-outside", "to-file"]


def _plant(kind: str, at: Path, w: World) -> None:
    if kind == "loop":
        os.symlink(at.with_name(at.name + "-b"), at)
        os.symlink(at, at.with_name(at.name + "-b"))
    elif kind == "self-loop":
        os.symlink(at.name, at)
    elif kind == "dangling":
        os.symlink(w.outside / "nothing", at)
    elif kind == "to-parent":
        os.symlink("..", at)
    elif kind == "to-root":
        os.symlink(w.root, at)
    elif kind == "to-outside":
        os.symlink(w.outside, at)
    elif kind == "to-file":
        os.symlink(w.root / "memory" / "a.md", at)
    elif kind == "fifo":
        os.mkfifo(at)
    elif kind == "socket":  # bound at a short path (socket addresses are short), moved in
        short = Path(tempfile.mkdtemp(dir="/tmp")) / "s"
        s = socket.socket(socket.AF_UNIX)
        try:
            s.bind(str(short))
        finally:
            s.close()
        try:
            os.rename(short, at)
        except OSError:
            pytest.skip("cannot move a socket into the workspace")
        finally:
            with contextlib.suppress(OSError):
                os.unlink(short)
            os.rmdir(short.parent)
    elif kind == "hardlink":
        os.link(w.outside / "secret.md", at)
    elif kind == "reserved":
        at.with_name(f"{RESERVED_PREFIX}left").write_bytes(b"partial")
    elif kind == "bad-name":
        at.with_name("bad\nname.md").write_bytes(b"x")
    else:
        raise ValueError(kind)


@pytest.mark.parametrize("planted", [*HIDDEN_KINDS, "fifo", "socket", "hardlink", "bad-name"])
@pytest.mark.parametrize("kind", KINDS)
def test_listings_finish_and_show_only_regular_files(
    kind: str, planted: str, tmp_path: Path
) -> None:
    w = World(kind, tmp_path)
    fs = w.fs
    fs.pipe_file("memory/a.md", b"a\n")
    fs.pipe_file("memory/deep/b.md", b"b\n")
    for where in ("memory/x", "memory/deep/x", "x"):
        _plant(planted, w.root / where, w)
    got = _within(10, lambda: _listings(fs))
    assert got["store.ls"] == got["find"] == ["memory/a.md", "memory/deep/b.md"]
    assert got["store.listdir"] == ["memory"]
    assert got["list_files"].splitlines() == ["memory/a.md", "memory/deep/b.md"]
    memory = _within(10, lambda: _listings(fs, "memory"))
    assert memory["store.listdir"] == ["a.md", "deep"]
    assert [e["name"] for e in memory["ls"]] == ["memory/a.md", "memory/deep"]
    assert w.outside_changed() == []


# Random trees with links, FIFOs and hard links in random places: listings always finish and
# show exactly the regular, singly linked files, and removing the tree removes exactly those.
_SEGMENT = st.sampled_from(["a", "b", "memory", "n.md", "x.md"])
_TREE = st.lists(
    st.tuples(
        st.lists(_SEGMENT, min_size=1, max_size=3),
        st.sampled_from(["file", "file", "dir", *HIDDEN_KINDS, "fifo", "hardlink"]),
    ),
    max_size=12,
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(tree=_TREE)
def test_random_trees_of_links_and_special_files(
    tree: list[tuple[list[str], str]], tmp_path_factory: pytest.TempPathFactory
) -> None:
    w = World("local", tmp_path_factory.mktemp("tree"))
    (w.root / "memory").mkdir()
    (w.root / "memory" / "a.md").write_bytes(b"a\n")
    for segs, what in tree:
        at = w.root.joinpath(*segs)
        above = [w.root.joinpath(*segs[:i]) for i in range(1, len(segs))]
        if any(p.is_symlink() or (p.exists() and not p.is_dir()) for p in above):
            continue  # the generator asked to build through a link or a file
        try:
            at.parent.mkdir(parents=True, exist_ok=True)
            if os.path.lexists(at):
                continue
            if what == "file":
                at.write_bytes(b"f\n")
            elif what == "dir":
                at.mkdir()
            else:
                _plant(what, at, w)
        except OSError:
            continue  # the parent is a file or a link: the generator asked for the impossible
    expected = []
    for dirpath, _dirs, files in os.walk(w.root):
        for name in files:
            st_ = os.lstat(os.path.join(dirpath, name))
            if stat.S_ISREG(st_.st_mode) and st_.st_nlink == 1:
                expected.append(os.path.relpath(os.path.join(dirpath, name), w.root))
    fs = w.fs
    got = _within(10, lambda: _listings(fs))
    assert got["store.ls"] == sorted(expected)
    assert got["find"] == sorted(expected)
    for top in sorted(set(fs.store.listdir(""))):
        with contextlib.suppress(OSError):
            _within(10, functools.partial(fs.rm, top, recursive=True))
    assert fs.find("") == []
    assert w.outside_changed() == []


def _try(call: Callable[[], Any]) -> Any:
    with contextlib.suppress(OSError):
        return call()
    return None


# -- 4. special files ----------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_a_fifo_is_never_opened(kind: str, tmp_path: Path) -> None:
    w = World(kind, tmp_path)
    fs = w.fs
    fs.pipe_file("memory/a.md", b"a\n")
    os.mkfifo(w.root / "memory" / "pipe.md")
    try:
        assert _within(5, lambda: fs.find("")) == ["memory/a.md"]
        listing = _within(5, lambda: FileToolExecutor(fs).execute("list_files", {"path": "memory"}))
        assert listing.splitlines() == ["memory/a.md"]
        for call in (
            lambda: fs.cat_file("memory/pipe.md"),
            lambda: fs.read_only().cat_file("memory/pipe.md"),
            lambda: fs.pipe_file("memory/pipe.md", b"x"),
            lambda: fs.rm_file("memory/pipe.md"),
            lambda: w.store.read_to_file("memory/pipe.md", os.devnull),
        ):
            with pytest.raises(
                UnsafePathError, match=r"it is a FIFO \(named pipe\), not a regular"
            ):
                _within(5, call)
    finally:
        with contextlib.suppress(OSError):  # unblock a reader, if the code under test blocked
            os.close(os.open(w.root / "memory" / "pipe.md", os.O_WRONLY | os.O_NONBLOCK))
    assert stat.S_ISFIFO(os.lstat(w.root / "memory" / "pipe.md").st_mode)


@pytest.mark.parametrize("kind", KINDS)
def test_a_device_node_is_never_read(kind: str, tmp_path: Path) -> None:
    w = World(kind, tmp_path)
    (w.root / "memory").mkdir()
    try:
        os.mknod(w.root / "memory" / "zero.md", 0o600 | stat.S_IFCHR, os.makedev(1, 5))
    except PermissionError:
        pytest.skip("creating a device node needs CAP_MKNOD")
    fs = w.fs
    with pytest.raises(UnsafePathError, match="it is a character device"):
        _within(5, lambda: fs.read_only().cat_file("memory/zero.md"))
    with pytest.raises(UnsafePathError, match="it is a character device"):
        fs.pipe_file("memory/zero.md", b"x")
    assert _within(5, lambda: fs.find("")) == []


@pytest.mark.parametrize("kind", KINDS)
def test_a_hard_link_to_an_outside_file_is_refused(kind: str, tmp_path: Path) -> None:
    w = World(kind, tmp_path)
    (w.root / "memory").mkdir()
    os.link(w.outside / "secret.md", w.root / "memory" / "hl.md")
    fs = w.fs
    for call in (
        lambda: fs.read_only().cat_file("memory/hl.md"),
        lambda: fs.raw.cat_file("memory/hl.md"),
        lambda: fs.pipe_file("memory/hl.md", b"overwritten\n"),
        lambda: fs.rm_file("memory/hl.md"),
    ):
        with pytest.raises(UnsafePathError, match="has 2 hard links") as info:
            call()
        assert host_root_absent(info.value, w.root)
    out = FileToolExecutor(fs.read_only()).execute("read_file", {"path": "memory/hl.md"})
    assert out.startswith("Error:") and SECRET.decode() not in out
    assert fs.find("") == []
    assert w.outside_changed() == []


# -- 7. file modes -------------------------------------------------------------------------------


@contextlib.contextmanager
def umask(mask: int) -> Iterator[None]:
    old = os.umask(mask)
    try:
        yield
    finally:
        os.umask(old)


def _mode(p: Path) -> int:
    return stat.S_IMODE(os.lstat(p).st_mode)


@pytest.mark.parametrize("mask", [0o000, 0o022, 0o077], ids=["umask000", "umask022", "umask077"])
@pytest.mark.parametrize("kind", KINDS)
def test_owner_only_modes_whatever_the_umask(kind: str, mask: int, tmp_path: Path) -> None:
    with umask(mask):
        store = make_local(kind, tmp_path / "a" / "ws")
        fs = MemFS(store, clock=lambda: TODAY)
        fs.pipe_file("memory/deep/x.md", b"x\n")
        fs.pipe_file("memory/deep/x.md", b"again\n")
        fs.makedirs("notes/empty", exist_ok=True)
        store.write("MEMORY.md", b"i\n", create=True)
    root = tmp_path / "a" / "ws"
    for d in (
        tmp_path / "a",
        root,
        root / "memory",
        root / "memory" / "deep",
        root / "notes/empty",
    ):
        assert _mode(d) == 0o700, (d, oct(_mode(d)))
    for f in (root / "memory" / "deep" / "x.md", root / "MEMORY.md"):
        assert _mode(f) == 0o600, (f, oct(_mode(f)))


def test_modes_are_configurable(tmp_path: Path) -> None:
    with umask(0o077):
        store = LocalFileStore(tmp_path / "ws", file_mode=0o640, dir_mode=0o750)
        store.write("memory/x.md", b"x\n")
    assert _mode(tmp_path / "ws") == 0o750
    assert _mode(tmp_path / "ws" / "memory") == 0o750
    assert _mode(tmp_path / "ws" / "memory" / "x.md") == 0o640


def test_an_existing_directory_keeps_its_mode(tmp_path: Path) -> None:
    (tmp_path / "ws" / "memory").mkdir(parents=True)
    os.chmod(tmp_path / "ws" / "memory", 0o755)
    LocalFileStore(tmp_path / "ws").write("memory/x.md", b"x\n")
    assert _mode(tmp_path / "ws" / "memory") == 0o755  # only what memfs creates is owner-only


# -- 8. reading has no side effects ----------------------------------------------------------------


def test_a_read_only_mount_of_a_missing_directory_creates_nothing(tmp_path: Path) -> None:
    missing = tmp_path / "items" / "42"
    with pytest.raises(FileNotFoundError):
        MemFS(path=str(missing), read_only=True)
    with pytest.raises(FileNotFoundError):
        MemFS(path=str(missing), target_protocol="file", read_only=True)
    assert not (tmp_path / "items").exists()
    MemFS(path=str(missing), target_protocol="file")  # a writable mount makes it
    assert missing.is_dir()


@pytest.mark.parametrize(
    "argv",
    [["cat"], ["stats"], ["context"], ["mcp", "--read-only"]],
    ids=["cat", "stats", "context", "mcp-read-only"],
)
def test_read_commands_on_a_missing_directory_create_nothing(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from memfs.cli import main

    if argv[0] == "mcp":
        pytest.importorskip("mcp")
    missing = tmp_path / "items" / "42"
    args = [argv[0], str(missing), *(["MEMORY.md"] if argv[0] == "cat" else argv[1:])]
    code: object
    try:
        code = main(args)
    except SystemExit as e:
        code = e.code
    assert code != 0
    assert not (tmp_path / "items").exists()
    assert str(missing) in capsys.readouterr().err


@pytest.mark.parametrize("kind", KINDS)
def test_reads_of_missing_paths_create_nothing(kind: str, tmp_path: Path) -> None:
    store = make_local(kind, tmp_path / "ws")
    fs = MemFS(store, clock=lambda: TODAY).read_only()
    for call in (
        lambda: store.read("a/b/c.md"),
        lambda: store.read_to_file("a/b/c.md", os.devnull),
        lambda: store.ls("a/b"),
        lambda: store.exists("a/b/c.md"),
        lambda: store.is_dir("a/b"),
        lambda: store.listdir("a/b"),
        lambda: fs.cat_file("memory/x.md"),
        lambda: fs.info("memory/x.md"),
        lambda: fs.find("memory"),
    ):
        _try(call)
    assert os.listdir(tmp_path / "ws") == []


@pytest.mark.parametrize("kind", KINDS)
def test_a_root_removed_while_open_is_never_created_again(kind: str, tmp_path: Path) -> None:
    store = make_local(kind, tmp_path / "ws")
    store.write("memory/a.md", b"a\n")
    shutil.rmtree(tmp_path / "ws")
    for call in (lambda: store.read("memory/a.md"), lambda: store.write("memory/a.md", b"b")):
        with pytest.raises(FileNotFoundError, match="workspace directory no longer exists") as e:
            call()
        assert host_root_absent(e.value, tmp_path / "ws")
    with pytest.raises(FileNotFoundError, match="no longer exists"):
        store.ls("")
    assert not store.exists("")
    assert not (tmp_path / "ws").exists()


# -- 9. errors name workspace paths only -----------------------------------------------------------

FAILURES = ["missing", "missing-parent", "directory", "file-as-dir", "link", "link-parent",
            "fifo", "hardlink", "permission", "no-space", "root-gone"]  # fmt: skip


def _set_up_failure(w: World, failure: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """Arrange ``failure`` for the workspace path returned."""
    fs = w.fs
    fs.pipe_file("memory/a.md", b"a\n")
    mem = w.root / "memory"
    if failure == "missing":
        return "memory/none.md"
    if failure == "missing-parent":
        return "nowhere/deeper/none.md"
    if failure == "directory":
        fs.pipe_file("memory/dir/x.md", b"x\n")
        return "memory/dir"
    if failure == "file-as-dir":
        return "memory/a.md/x.md"
    if failure == "link":
        os.symlink(w.outside / "secret.md", mem / "l.md")
        return "memory/l.md"
    if failure == "link-parent":
        os.symlink(w.outside / "dir", mem / "ld")
        return "memory/ld/a.md"
    if failure == "fifo":
        os.mkfifo(mem / "p.md")
        return "memory/p.md"
    if failure == "hardlink":
        os.link(w.outside / "secret.md", mem / "h.md")
        return "memory/h.md"
    if failure in ("permission", "no-space"):
        code = errno.EACCES if failure == "permission" else errno.ENOSPC
        real_open = os.open
        host = str(w.root)

        def failing_open(path: Any, flags: int, *a: Any, **kw: Any) -> int:
            if failure == "permission" and os.fspath(path) != host:
                raise OSError(code, os.strerror(code), os.path.join(host, os.fspath(path)))
            return real_open(path, flags, *a, **kw)

        def failing_write(fd: int, data: Any) -> int:
            raise OSError(code, os.strerror(code), host)

        monkeypatch.setattr(os, "open", failing_open)
        if failure == "no-space":
            monkeypatch.setattr(os, "write", failing_write)
        return "memory/a.md"
    if failure == "root-gone":
        shutil.rmtree(w.root)
        return "memory/a.md"
    raise ValueError(failure)


@pytest.mark.parametrize("failure", FAILURES)
@pytest.mark.parametrize("kind", KINDS)
def test_no_error_names_a_host_path(
    kind: str, failure: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = World(kind, tmp_path)
    path = _set_up_failure(w, failure, monkeypatch)
    calls = [*(("store." + n, op, w.store) for n, op in STORE_OPS.items())]
    calls += [("fs." + n, op, w.fs) for n, op in FS_OPS.items()]
    raised = 0
    for name, op, target in calls:
        try:
            _within(5, functools.partial(op, target, path))
        except OSError as e:
            raised += 1
            assert host_root_absent(e, w.root), f"{name} on {failure}: {e!r}"
            assert isinstance(e, OSError)
    tools = FileToolExecutor(w.fs, read_before_write=False)
    for tool, args in [
        ("read_file", {"path": path}),
        ("write_file", {"path": path, "content": "x"}),
        ("delete_file", {"path": path}),
        ("list_files", {"path": path}),
        ("edit_file", {"path": path, "old_string": "a", "new_string": "b"}),
    ]:
        out = tools.execute(tool, args)
        assert str(w.root) not in out and str(tmp_path) not in out, (tool, out)
    assert raised >= len(calls) // 3, f"{failure}: only {raised} of {len(calls)} calls failed"


# -- 6 in part: names every backend stores under the same key ------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
def test_names_a_backend_would_reinterpret_are_refused_everywhere(
    backend: str, tmp_path: Path
) -> None:
    store = make_store(backend, tmp_path)
    fs = MemFS(store, clock=lambda: TODAY)
    fs.pipe_file("memory/a.md", b"a\n")
    for bad in ("memory/a.md?versionId=1", "memory/..?versionId=x", "memory/a#1.md",
                "memory/a\nb.md", "memory/a\rb.md", "memory/\x7f.md", "memory/\x85.md",
                "memory/\ud800.md"):  # fmt: skip
        for call in (
            lambda bad=bad: fs.pipe_file(bad, b"x"),
            lambda bad=bad: store.write(bad, b"x"),
            lambda bad=bad: fs.cat_file(bad),
            lambda bad=bad: fs.rm(bad),
        ):
            with pytest.raises(UnsafePathError) as info:
                call()
            assert "Name the file without it" in str(info.value)
    assert fs.raw.cat_file("memory/a.md") == b"a\n"
    assert fs.find("") == ["memory/a.md"]


def test_rm_takes_names_literally(store: FileStore) -> None:
    fs = MemFS(store, clock=lambda: TODAY)
    for name in ("memory/a.md", "memory/b.md", "memory/[ab].md", "memory/*.md"):
        fs.pipe_file(name, b"x\n")
    fs.rm("memory/[ab].md")
    fs.rm("memory/*.md", recursive=True)
    assert fs.find("memory") == ["memory/a.md", "memory/b.md"]
    fs.rm("memory/*")
    assert fs.find("memory") == ["memory/a.md", "memory/b.md"]  # no file is named '*'


def test_every_hostile_name_either_normalises_or_is_refused_clearly() -> None:
    """The reserved prefix and the refused characters, at every position of a name."""
    refused = [*map(chr, range(0x20)), "\x7f", *map(chr, range(0x80, 0xA0)), "\u2028", "\u2029"]
    for ch in [*refused, "?", "#", "\ud800", "\udfff"]:
        for name in (f"{ch}x.md", f"x{ch}.md", f"x.md{ch}", f"memory/{ch}/x.md"):
            with pytest.raises(UnsafePathError) as info:
                normalize(name)
            assert len(str(info.value)) > 40
    legal = ["memory/50%-off.md", "memory/a+b.md", "memory/C++ notes.md", "memory/a:b.md",
             "memory/[draft].md", "memory/.memfs-tmp.md", "memory/x.memfs-tmp-y.md"]  # fmt: skip
    for name in legal:
        assert normalize(name) == name
