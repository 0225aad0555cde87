"""Path confinement: hostile paths against every backend and every surface.

Every hostile path in :data:`HOSTILE` is tried on every backend through every surface that
takes a path: the MemFS methods (decorated, raw and read-only views), each FileStore method
directly, and the agent file tools. Whatever the outcome, nothing outside the workspace root
may be read or written and the workspace must stay intact. Paths that can only mean an escape
must be refused with a clear error (an OSError / ValueError whose message names the path);
paths that alias the root must never delete, move or overwrite it.

Outside the root there are sentinel files (on disk for the local backends, other keys of the
same filesystem for fsspec-memory), and the local backends get symlinks inside the root that
point outside it.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pytest
from memfs import FsspecFileStore, InMemoryFileStore, LocalFileStore, MemFS, UnsafePathError
from memfs.paths import normalize
from memfs.stores import FileStore
from memfs.tools import FileToolExecutor

from tests.conftest import BACKENDS, TODAY, make_store

SECRET = b"TOP-SECRET sentinel outside the workspace\n"

Category = Literal["escape", "root", "confined"]
"""``escape``: must be refused everywhere. ``root``: names the workspace root; reads may work,
nothing may delete, move or overwrite it. ``confined``: an odd but legal name inside the root."""


@dataclass(frozen=True)
class Hostile:
    path: str
    category: Category
    why: str
    store_category: Category | None = None
    """Category when handed straight to a FileStore (no fsspec root: '/x' is the host's root)."""
    local_category: Category | None = None
    """Category on the local-disk backends, where symlinks inside the root point outside."""

    def category_for(self, surface: str, backend: str) -> Category:
        if backend in LOCAL_DISK and self.local_category:
            return self.local_category
        if surface == "store" and self.store_category:
            return self.store_category
        return self.category


LOCAL_DISK = {"local", "fsspec-file"}

HOSTILE: list[Hostile] = [
    # '..' at each depth
    Hostile("..", "escape", "parent of the root"),
    Hostile("../secret.txt", "escape", "'..' at depth 0"),
    Hostile("memory/../../secret.txt", "escape", "'..' at depth 1"),
    Hostile("memory/sub/../../../secret.txt", "escape", "'..' at depth 2"),
    Hostile("a/b/c/../../../../secret.txt", "escape", "'..' at depth 3"),
    Hostile("memory/../../etc/passwd", "escape", "the classic"),
    Hostile("memory/a.md/../../../secret.txt", "escape", "'..' after a file name"),
    # absolute paths: the fsspec root '/' is the workspace root; a store has no such root
    Hostile("/etc/passwd", "confined", "absolute", store_category="escape"),
    Hostile("//etc//passwd", "confined", "doubled slashes", store_category="escape"),
    Hostile("/../secret.txt", "escape", "absolute then '..'"),
    Hostile("memfs://../secret.txt", "escape", "protocol then '..'", store_category="confined"),
    # URL-encoded traversal (a UI, a proxy or S3 tooling may decode it)
    Hostile("%2e%2e%2fsecret.txt", "escape", "percent-encoded '../'"),
    Hostile("%2E%2E/secret.txt", "escape", "percent-encoded '..' upper case"),
    Hostile("..%2fsecret.txt", "escape", "percent-encoded slash"),
    Hostile("memory/%2e%2e%5c%2e%2e%5csecret.txt", "escape", "percent-encoded backslashes"),
    Hostile("%252e%252e%252fsecret.txt", "escape", "double percent-encoding"),
    # backslashes and NUL bytes
    Hostile("..\\secret.txt", "escape", "Windows separator"),
    Hostile("memory\\..\\..\\secret.txt", "escape", "Windows traversal"),
    Hostile("memory/a.md\x00.txt", "escape", "NUL truncation"),
    Hostile("\x00", "escape", "a lone NUL"),
    # very long names
    Hostile("x" * 300, "escape", "segment over 255 bytes"),
    Hostile("memory/" + "é" * 200 + ".md", "escape", "segment over 255 UTF-8 bytes"),
    Hostile("/".join(["d" * 200] * 6) + "/x.md", "escape", "whole path over 1024 bytes"),
    # Unicode look-alikes of '.', '/' and '\'
    Hostile("\uff0e\uff0e/secret.txt", "escape", "fullwidth full stops"),
    Hostile("\u2025/secret.txt", "escape", "two-dot leader"),
    Hostile("..\uff0fsecret.txt", "escape", "fullwidth solidus"),
    Hostile("memory\u2215..\u2215..\u2215secret.txt", "escape", "division slash"),
    Hostile("..\u2044secret.txt", "escape", "fraction slash"),
    Hostile("..\uff3csecret.txt", "escape", "fullwidth reverse solidus"),
    Hostile("memory/\ufe52\ufe52/x.md", "escape", "small full stops"),
    Hostile("memory/ ../x.md", "escape", "'..' padded with a space"),
    Hostile("memory/.../x.md", "escape", "three dots (Windows folds to '..')"),
    # empty and '.' segments, and prefix tricks: legal names that stay inside
    Hostile("scratch//./x.txt", "confined", "empty and '.' segments"),
    Hostile("./scratch/./y.txt", "confined", "leading './'"),
    Hostile("memoryX/a.md", "confined", "prefix trick: memoryX/ is not memory/"),
    Hostile("memory.md", "confined", "prefix trick: a file named like the directory"),
    Hostile("~/secret.txt", "confined", "a '~' is a plain name here"),
    Hostile("mem\u043ery/a.md", "confined", "Cyrillic o in 'memory'"),
    # aliases of the workspace root
    Hostile("", "root", "empty path"),
    Hostile(".", "root", "dot"),
    Hostile("./", "root", "dot slash"),
    Hostile("/", "root", "fsspec root", store_category="escape"),
    Hostile("memory/..", "escape", "root through '..'"),
    Hostile("memory/./..", "escape", "root through './..'"),
    # symlinks inside the root that point outside it (local disk backends)
    Hostile("memory/link/secret.txt", "confined", "dir symlink", local_category="escape"),
    Hostile("memory/evil.md", "confined", "file symlink", local_category="escape"),
    Hostile("escape", "confined", "a symlink to the parent", local_category="escape"),
    Hostile("escape/ws/scratch/new.txt", "confined", "out through a symlink and back in"),
    Hostile("dangling.md", "confined", "dangling symlink outside", local_category="escape"),
    Hostile("memory/inside.md", "confined", "symlink to notes/n.txt", local_category="escape"),
    Hostile("loop.md", "confined", "a symlink to itself", local_category="escape"),
    # special files planted inside the root (local disk backends)
    Hostile("memory/pipe.md", "confined", "a FIFO", local_category="escape"),
    Hostile("memory/hard.md", "confined", "hard link to an outside file", local_category="escape"),
    # names reserved for temp and lock files, and names a backend would store as another key
    Hostile(".memfs-tmp-0123abcd", "escape", "the temp-file prefix"),
    Hostile("memory/.memfs-tmp-0123abcd.lock", "escape", "a lock file's name"),
    Hostile("memory/.MEMFS-TMP-x", "escape", "the temp-file prefix in capitals"),
    # refused wherever a name is taken; a surface that globs (cat) reads '?' as a wildcard
    Hostile("memory/a.md?versionId=1", "confined", "an S3 version id (s3fs cuts it off)"),
    Hostile("memory/..?versionId=1", "confined", "'..' behind a version id"),
    Hostile("memory/a.md#1", "escape", "a fragment"),
    Hostile("memory/a\nb.md", "escape", "a newline (splits a listing line)"),
]

SEEDED = {
    "memory/a.md": b"---\nname: a\nmetadata:\n  type: user\n  recorded: 2026-01-01\n---\nbody\n",
    "MEMORY.md": b"- [A](memory/a.md) \xe2\x80\x94 hook\n",
    "notes/n.txt": b"notes\n",
}


class World:
    """A seeded workspace on one backend, sentinels outside it, and the checks."""

    def __init__(self, backend: str, tmp_path: Path, store: FileStore | None = None) -> None:
        self.backend = backend
        self.tmp = tmp_path
        self.store: FileStore = store if store is not None else make_store(backend, tmp_path)
        self.check_each = backend != "s3"  # on S3 once per path: each check is ~10 requests
        self.fs = MemFS(self.store, clock=lambda: TODAY)
        for path, data in SEEDED.items():
            self.fs.migrating().pipe_file(path, data)  # a store with its own dates
        self.downloads = tmp_path / "downloads"
        self.downloads.mkdir()
        self.upload = tmp_path / "upload.txt"
        self.upload.write_bytes(b"uploaded\n")
        self.host_root: Path | None = None
        (tmp_path / "secret.txt").write_bytes(SECRET)
        (tmp_path / "outside").mkdir()
        (tmp_path / "outside" / "secret.txt").write_bytes(SECRET)
        (tmp_path / "etc").mkdir()
        (tmp_path / "etc" / "passwd").write_bytes(SECRET)
        if backend in LOCAL_DISK:
            assert isinstance(self.store, (LocalFileStore, FsspecFileStore))
            self.host_root = Path(self.store.root)
        elif isinstance(self.store, FsspecFileStore):
            root = self.store.root
            top = "/" if backend != "s3" else root.split("/")[0] + "/"
            # keys beside the root, including a sibling that shares its name as a prefix
            for key in (f"{top}secret.txt", f"{root}X/secret.txt", f"{root}-sibling/MEMORY.md"):
                self.store.fs.pipe_file(key, SECRET)
        if self.host_root is not None:
            os.symlink(tmp_path / "outside", self.host_root / "memory" / "link")
            os.symlink(tmp_path / "outside" / "secret.txt", self.host_root / "memory" / "evil.md")
            os.symlink(tmp_path, self.host_root / "escape")
            os.symlink(tmp_path / "outside" / "nothing-yet.md", self.host_root / "dangling.md")
            os.symlink(self.host_root / "notes" / "n.txt", self.host_root / "memory" / "inside.md")
            os.symlink("loop.md", self.host_root / "loop.md")
            os.mkfifo(self.host_root / "memory" / "pipe.md")
            os.link(tmp_path / "outside" / "secret.txt", self.host_root / "memory" / "hard.md")
        self.outside_before = self.outside_snapshot()

    def outside_snapshot(self) -> dict[str, bytes]:
        if self.backend in LOCAL_DISK:
            assert self.host_root is not None
            skip = {self.host_root, self.downloads}
            snap: dict[str, bytes] = {}
            for dirpath, dirnames, filenames in os.walk(self.tmp):
                dirnames[:] = [d for d in dirnames if Path(dirpath, d) not in skip]
                for name in filenames:
                    full = Path(dirpath, name)
                    snap[str(full.relative_to(self.tmp))] = full.read_bytes()
                for name in dirnames:
                    snap[str(Path(dirpath, name).relative_to(self.tmp)) + "/"] = b""
            return snap
        if isinstance(self.store, FsspecFileStore) and self.backend == "s3":
            root = self.store.root
            bucket = root.split("/")[0]
            keys = [k for k in self.store.fs.find(bucket) if not k.startswith(root + "/")]
            # other tests' objects share the bucket: contents of our sentinels, names of the rest
            ours = [k for k in keys if k.startswith(root) or k == f"{bucket}/secret.txt"]
            return {k: b"" for k in keys} | {k: bytes(self.store.fs.cat_file(k)) for k in ours}
        if isinstance(self.store, FsspecFileStore):
            root = self.store.root + "/"
            return {
                k: bytes(v.getvalue())
                for k, v in self.store.fs.store.items()
                if not k.startswith(root)
            }
        assert isinstance(self.store, InMemoryFileStore)
        return {}

    def check(self, label: str) -> None:
        """Nothing outside changed, the seeded workspace is intact, stored keys are canonical."""
        assert self.outside_snapshot() == self.outside_before, f"{label}: outside the root changed"
        assert self.store.is_dir(""), f"{label}: the workspace root is gone"
        for path, data in SEEDED.items():
            assert self.store.read(path) == data, f"{label}: {path} changed"
        for path in self.store.ls(""):
            assert normalize(path) == path and ".." not in path.split("/"), (label, path)
        if isinstance(self.store, InMemoryFileStore):
            # every key canonical; the version history's keys as the store writes them
            assert all(normalize(k, reserved=True) == k for k in self.store._files), label
        for leftover in self.downloads.iterdir():
            if leftover.is_file():
                assert SECRET not in leftover.read_bytes(), f"{label}: secret downloaded"


Op = Callable[[World, str], Any]


def _scratch(w: World) -> str:
    w.fs.raw.pipe_file("scratch/src.txt", b"scratch\n")
    return "scratch/src.txt"


def _dl(w: World) -> str:
    return str(w.downloads / f"dl-{len(list(w.downloads.iterdir()))}")


# (name, destroys: whether it could delete, move or overwrite what the path names, op)
FS_OPS: list[tuple[str, bool, Op]] = [
    ("cat_file", False, lambda w, p: w.fs.cat_file(p)),
    ("raw.cat_file", False, lambda w, p: w.fs.raw.cat_file(p)),
    ("read_only.cat_file", False, lambda w, p: w.fs.read_only().cat_file(p)),
    ("cat", False, lambda w, p: w.fs.cat(p)),
    ("open-rb", False, lambda w, p: w.fs.open(p, "rb").read()),
    ("info", False, lambda w, p: w.fs.info(p)),
    ("ls", False, lambda w, p: w.fs.ls(p, detail=True)),
    ("exists", False, lambda w, p: w.fs.exists(p)),
    ("isdir", False, lambda w, p: w.fs.isdir(p)),
    ("isfile", False, lambda w, p: w.fs.isfile(p)),
    ("find", False, lambda w, p: w.fs.find(p)),
    ("find-detail", False, lambda w, p: w.fs.find(p, withdirs=True, detail=True)),
    ("get_file", False, lambda w, p: w.fs.get_file(p, _dl(w))),
    ("cp_file-src", False, lambda w, p: w.fs.cp_file(p, "copied.txt")),
    ("pipe_file", True, lambda w, p: w.fs.pipe_file(p, b"overwrite\n")),
    ("open-wb", True, lambda w, p: _write_handle(w.fs, p)),
    ("touch", True, lambda w, p: w.fs.touch(p)),
    ("put_file", True, lambda w, p: w.fs.put_file(str(w.upload), p)),
    ("cp_file-dst", True, lambda w, p: w.fs.cp_file("notes/n.txt", p)),
    ("mv-dst", True, lambda w, p: w.fs.mv(_scratch(w), p)),
    ("mkdir", True, lambda w, p: w.fs.mkdir(p)),
    ("makedirs", True, lambda w, p: w.fs.makedirs(p, exist_ok=True)),
    ("read_only.pipe_file", True, lambda w, p: w.fs.read_only().pipe_file(p, b"x")),
    ("read_only.rm", True, lambda w, p: w.fs.read_only().rm(p, recursive=True)),
    ("mv-src", True, lambda w, p: w.fs.mv(p, "moved", recursive=True)),
    ("rm_file", True, lambda w, p: w.fs.rm_file(p)),
    ("rm", True, lambda w, p: w.fs.rm(p)),
    ("rm-recursive", True, lambda w, p: w.fs.rm(p, recursive=True)),
    ("rm-list", True, lambda w, p: w.fs.rm(["notes/missing.txt", p], recursive=True)),
    ("rmdir", True, lambda w, p: w.fs.rmdir(p)),
]

STORE_OPS: list[tuple[str, bool, Op]] = [
    ("store.read", False, lambda w, p: w.store.read(p)),
    ("store.read_to_file", False, lambda w, p: w.store.read_to_file(p, _dl(w))),
    ("store.ls", False, lambda w, p: w.store.ls(p)),
    ("store.exists", False, lambda w, p: w.store.exists(p)),
    ("store.is_dir", False, lambda w, p: w.store.is_dir(p)),
    ("store.listdir", False, lambda w, p: w.store.listdir(p)),
    ("store.write", True, lambda w, p: w.store.write(p, b"overwrite\n")),
    ("store.write_from_path", True, lambda w, p: w.store.write_from_path(p, str(w.upload))),
    ("store.mkdir", True, lambda w, p: w.store.mkdir(p)),
    ("store.delete", True, lambda w, p: w.store.delete(p)),
    ("store.rmdir", True, lambda w, p: w.store.rmdir(p)),
]

TOOL_CALLS: list[tuple[str, bool, Callable[[str], dict[str, Any]]]] = [
    ("read_file", False, lambda p: {"path": p}),
    ("list_files", False, lambda p: {"path": p}),
    ("list_files", False, lambda p: {"path": p, "recursive": True}),
    ("exists", False, lambda p: {"path": p}),
    ("write_file", True, lambda p: {"path": p, "content": "overwrite\n"}),
    ("edit_file", True, lambda p: {"path": p, "old_string": "body", "new_string": "BODY"}),
    ("delete_file", True, lambda p: {"path": p}),
]


ROOT_OK = {"makedirs", "store.mkdir", "mv-dst"}
"""Mutations that may name the root: make sure it exists, move a file into it."""


def _memories(path: str) -> str:
    """The Anthropic memory tool's name for a workspace path (its root is the memory dir)."""
    return "/memories/" + (path[len("memory/") :] if path.startswith("memory/") else path)


MEMORY_TOOL_CALLS: list[tuple[str, Callable[[str], dict[str, Any]]]] = [
    ("view", lambda p: {"command": "view", "path": p}),
    ("create", lambda p: {"command": "create", "path": p, "file_text": "x\n"}),
    (
        "str_replace",
        lambda p: {"command": "str_replace", "path": p, "old_str": "body", "new_str": "B"},
    ),
    ("insert", lambda p: {"command": "insert", "path": p, "insert_line": 0, "insert_text": "x\n"}),
    ("delete", lambda p: {"command": "delete", "path": p}),
    (
        "rename-from",
        lambda p: {"command": "rename", "old_path": p, "new_path": "/memories/moved.md"},
    ),
    (
        "rename-to",
        lambda p: {"command": "rename", "old_path": "/memories/scratch.md", "new_path": p},
    ),
]


def run_memory_tool(w: World, h: Hostile, tally: Tally) -> None:
    """The Anthropic memory tool (memory_20250818) over the same workspace, if installed."""
    anthropic_tools = pytest.importorskip("anthropic.tools")
    from memfs_anthropic import MemFSMemoryTool

    tool = MemFSMemoryTool(w.fs)
    path = _memories(h.path)
    leaves = not posixpath.normpath(path.replace("\x00", "")).startswith("/memories")
    for name, make in MEMORY_TOOL_CALLS:
        label = f"{w.backend} memory tool {name}({path!r}) [{h.why}]"
        tally.tried += 1
        w.fs.raw.pipe_file("memory/scratch.md", b"scratch body\n")
        try:
            out = tool.call(make(path))
        except anthropic_tools.ToolError as err:
            assert len(str(err)) > 20, label
            tally.refused += 1
        else:
            assert not _returned_secret(out), f"{label}: returned bytes from outside"
            if h.category_for("fs", w.backend) == "escape" and leaves:
                pytest.fail(f"{label}: accepted {out!r:.80}")
        if w.check_each:
            w.check(label)


def _write_handle(fs: MemFS, path: str) -> None:
    with fs.open(path, "wb") as f:
        f.write(b"overwrite\n")


def _returned_secret(value: Any) -> bool:
    if isinstance(value, bytes):
        return SECRET in value
    if isinstance(value, str):
        return SECRET.decode() in value
    if isinstance(value, dict):
        return any(_returned_secret(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_returned_secret(v) for v in value)
    return False


def _clear(err: BaseException, path: str) -> bool:
    """A clear error: the OSError / ValueError family with a message that says something."""
    return isinstance(err, (OSError, ValueError)) and len(str(err)) > 20


def _ids(h: Hostile) -> str:
    shown = h.path if len(h.path) < 40 else h.path[:20] + f"…({len(h.path)})"
    return ascii(shown)


@dataclass
class Tally:
    tried: int = 0
    refused: int = 0
    escaped: int = 0


def run_surface(
    w: World, h: Hostile, name: str, destroys: bool, op: Op, surface: str, tally: Tally
) -> None:
    category = h.category_for(surface, w.backend)
    label = f"{w.backend} {name}({h.path!r}) [{h.why}]"
    tally.tried += 1
    try:
        result = op(w, h.path)
    except Exception as err:
        assert _clear(err, h.path), f"{label}: unclear error {type(err).__name__}: {err}"
        if category == "escape":
            assert isinstance(err, (PermissionError, ValueError)) or "read-only" in str(err), (
                f"{label}: refused with {type(err).__name__} ({err}), not a confinement error"
            )
        tally.refused += 1
    else:
        if _returned_secret(result):
            tally.escaped += 1
            pytest.fail(f"{label}: returned bytes from outside the workspace")
        if category == "escape" and name not in {"exists", "store.exists"}:
            pytest.fail(f"{label}: accepted {result!r:.80} instead of refusing")
        if category == "escape":  # exists() may answer, but only 'no'
            assert result is False, label
        if category == "root" and destroys and name not in ROOT_OK:
            pytest.fail(f"{label}: an operation on the workspace root was accepted")
    if w.check_each:
        try:
            w.check(label)
        except AssertionError:
            tally.escaped += 1
            raise


def run_tool(w: World, h: Hostile, tool: str, destroys: bool, args: dict, tally: Tally) -> None:
    category = h.category_for("tool", w.backend)
    label = f"{w.backend} tool {tool}({args}) [{h.why}]"
    tally.tried += 1
    out = FileToolExecutor(w.fs).execute(tool, args)
    assert isinstance(out, str), label
    if SECRET.decode() in out:
        tally.escaped += 1
        pytest.fail(f"{label}: returned bytes from outside the workspace")
    if category == "escape" or (category == "root" and destroys):
        assert out.startswith("Error:"), f"{label}: accepted: {out:.120}"
        tally.refused += 1
    if w.check_each:
        w.check(label)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("hostile", HOSTILE, ids=_ids)
def test_hostile_path_on_every_surface(backend: str, hostile: Hostile, tmp_path: Path) -> None:
    run_every_surface(World(backend, tmp_path), hostile)


def run_every_surface(w: World, hostile: Hostile) -> None:
    backend = w.backend
    tally = Tally()
    for name, destroys, op in FS_OPS:
        run_surface(w, hostile, name, destroys, op, "fs", tally)
    for name, destroys, op in STORE_OPS:
        run_surface(w, hostile, name, destroys, op, "store", tally)
    for tool, destroys, make_args in TOOL_CALLS:
        run_tool(w, hostile, tool, destroys, make_args(hostile.path), tally)
    assert tally.tried == len(FS_OPS) + len(STORE_OPS) + len(TOOL_CALLS)
    if hostile.category_for("fs", backend) == "escape":
        assert tally.refused >= tally.tried - 2  # exists() may answer False instead
    # The memory tool names paths under /memories and resolves '..' itself, so the same text
    # can be a legal name there: it is held to "refuse when it leaves /memories, never escape".
    run_memory_tool(w, hostile, tally)
    w.check(f"{backend} after every surface [{hostile.why}]")
    assert tally.escaped == 0


def test_the_table_is_big_enough() -> None:
    assert len(HOSTILE) >= 30
    assert len({h.path for h in HOSTILE}) == len(HOSTILE)
    assert {"escape", "root", "confined"} == {h.category for h in HOSTILE}


# -- the workspace root cannot be deleted or renamed through any alias --------------------------

ROOT_ALIASES = ["", "/", ".", "./", "//", "memfs://", "memfs:///"]


@pytest.mark.parametrize("alias", ROOT_ALIASES)
def test_root_cannot_be_removed_or_moved(memfs: MemFS, alias: str) -> None:
    for path, data in SEEDED.items():
        memfs.raw.pipe_file(path, data)
    attempts: list[Callable[[], object]] = [
        lambda: memfs.rm(alias, recursive=True),
        lambda: memfs.rm_file(alias),
        lambda: memfs.rmdir(alias),
        lambda: memfs.mv(alias, "elsewhere", recursive=True),
        lambda: memfs.pipe_file(alias, b"x"),
        lambda: memfs.delete(alias, recursive=True),
    ]
    for attempt in attempts:
        with pytest.raises((PermissionError, IsADirectoryError)) as info:
            attempt()
        assert "root" in str(info.value) or "directory" in str(info.value)
    assert sorted(memfs.find("")) == sorted(SEEDED)


def test_store_refuses_root_aliases_directly(store: FileStore) -> None:
    for path, data in SEEDED.items():
        store.write(path, data)
    for alias in ["", ".", "./"]:
        with pytest.raises(UnsafePathError):
            store.rmdir(alias)
        with pytest.raises(IsADirectoryError):
            store.delete(alias)
        with pytest.raises(IsADirectoryError):
            store.write(alias, b"x")
    assert sorted(store.ls("")) == sorted(SEEDED)


def test_refusal_message_names_the_path_and_what_to_do() -> None:
    with pytest.raises(UnsafePathError) as info:
        normalize("memory/../../etc/passwd")
    msg = str(info.value)
    assert "'memory/../../etc/passwd'" in msg
    assert "'..' segments are not allowed" in msg
    assert "relative to the workspace root" in msg


# -- symlinks planted inside the root (local disk) ----------------------------------------------


@pytest.mark.parametrize("backend", sorted(LOCAL_DISK))
def test_listings_skip_symlinks_that_leave_the_root(backend: str, tmp_path: Path) -> None:
    """One planted symlink must not break listing the directory, nor show what is outside."""
    w = World(backend, tmp_path)
    assert sorted(w.fs.find("")) == sorted(SEEDED)
    assert w.store.ls("memory") == ["memory/a.md"]
    assert w.store.listdir("memory") == ["a.md"]
    assert [e["name"] for e in w.fs.ls("memory")] == ["memory/a.md"]
    assert sorted(w.fs.ls("", detail=False)) == ["MEMORY.md", "memory", "notes"]
    listing = FileToolExecutor(w.fs).execute("list_files", {"path": "", "recursive": True})
    assert listing.splitlines() == sorted(SEEDED)
    w.check("listing")


def test_legitimate_names_are_still_accepted() -> None:
    for path in [
        "memory/user-role.md",
        "memory/feedback_index_not_column.md",
        "memory/50%-off.md",
        "memory/v1．2.md",
        "memory/資料來源.md",
        "memory/.hidden.md",
        "memory/a..b.md",
        "notes/2026-12-01 meeting.txt",
        "/".join(["d" * 200] * 5),
    ]:
        assert normalize(path) == path


# -- S3 (moto's server on 127.0.0.1, as tests/test_s3.py runs it) -------------------------------


@pytest.fixture(scope="module")
def s3_endpoint() -> Iterator[str]:
    pytest.importorskip("s3fs")
    pytest.importorskip("moto")
    boto3 = pytest.importorskip("boto3")
    from tests.test_s3 import BUCKET, KEY, S3Server
    from tests.test_s3 import SECRET as S3_SECRET

    server = S3Server()
    boto3.client(
        "s3",
        endpoint_url=server.endpoint,
        aws_access_key_id=KEY,
        aws_secret_access_key=S3_SECRET,
        region_name="us-east-1",
    ).create_bucket(Bucket=BUCKET)
    yield server.endpoint
    server.stop()


def _s3_world(endpoint: str, tmp_path: Path) -> World:
    from tests.test_s3 import BUCKET, s3_filesystem

    store = FsspecFileStore(s3_filesystem(endpoint), root=f"{BUCKET}/items/{tmp_path.name}")
    return World("s3", tmp_path, store)


def test_escaping_paths_on_s3(s3_endpoint: str, tmp_path: Path) -> None:
    """Every path that can only mean an escape, every surface, one S3 workspace."""
    w = _s3_world(s3_endpoint, tmp_path)
    escaping = [h for h in HOSTILE if h.category_for("fs", "s3") == "escape"]
    assert len(escaping) >= 30
    for hostile in escaping:
        run_every_surface(w, hostile)


@pytest.mark.slow  # legal names and root aliases reach S3: each runs every surface against moto
@pytest.mark.parametrize("hostile", HOSTILE, ids=_ids)
def test_hostile_path_on_s3(hostile: Hostile, s3_endpoint: str, tmp_path: Path) -> None:
    run_every_surface(_s3_world(s3_endpoint, tmp_path), hostile)
