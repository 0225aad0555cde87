"""``memfs import SRC WORKSPACE`` and ``memfs export WORKSPACE DST``: move memory between layouts.

Import turns a Claude Code memory directory (``~/.claude/projects/<p>/memory/`` or a
repository's ``.claude/memory/``) into an item workspace: every file of its memory area goes
under ``memory/``, its ``MEMORY.md`` goes to the workspace root, and the index's markdown link
targets are rewritten to the platform's form (``x.md`` → ``memory/x.md``). Export does the
reverse into a directory that becomes a Claude Code memory directory. Nothing else in any file
changes but a date in the future (below), so an import followed by an export gives back the same
bytes.

The link rewrite is one reversible rule: a relative link target that stays inside the memory
directory gets the memory directory's prefix (as the index sees it) put in or taken out after
any leading ``./``. Targets it does not cover — a link out of the memory directory
(``../../CLAUDE.md``), an external link, a platform link to a workspace file outside
``memory/`` — are kept as written and listed. Bare names (``x.md``, ```x.md```) and
``[[wikilinks]]`` name a memory by name and mean the same in both layouts: they are not
touched.

Both read through the source's raw view (exact bytes, never the reminder-decorated one) and
refuse to overwrite: a destination file that exists stops the whole transfer before anything
is written, and each write is a create-only write. A transfer is a migration: it writes through
the destination's :meth:`~memfs.filesystem.MemFS.migrating` view, so every memory keeps the date
its store gave it (an ordinary write would date each file today) and only a date after today
becomes today — a memory dated 2999 would otherwise never go stale. Every other rule of the write
path applies as it is: a file the credential guard refuses is left out whole and named with
its line and kind; every clean file is still carried, the command exits 1, and an index line
that links to a refused file is kept and reported as broken.
"""

from __future__ import annotations

import argparse
import errno
import os
import posixpath
import re
import sys
from typing import Literal
from urllib.parse import unquote

from pydantic import BaseModel, Field, PrivateAttr

from memfs.cli_workspace import add_layout_argument, open_store
from memfs.filesystem import MemFS
from memfs.index import MARKDOWN_LINK, parse_index, resolve_link
from memfs.layout import (
    INDEX_NAME,
    PLATFORM,
    Detection,
    Layout,
    detect_layout,
    resolve_layout,
)
from memfs.paths import join
from memfs.stores import InMemoryFileStore

Direction = Literal["import", "export"]

_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
_LEAD = re.compile(r"(?:\./)*")


class LinkChange(BaseModel):
    """One index link target, rewritten or kept as written."""

    line: int
    old: str
    new: str | None = None
    """The rewritten target; None when it was kept as written."""
    why: str = ""


class FileCopy(BaseModel):
    src: str
    dst: str
    bytes: int
    rewritten: int = 0
    """Index links rewritten (the index only)."""


class TransferPlan(BaseModel):
    """What an import or an export will do (or did)."""

    direction: Direction
    source_layout: str
    destination_layout: str
    copies: list[FileCopy] = Field(default_factory=list)
    links: list[LinkChange] = Field(default_factory=list)
    left_out: list[str] = Field(default_factory=list)
    """Source files outside the memory area: not carried."""
    conflicts: list[str] = Field(default_factory=list)
    """Destination paths that already exist (or that two files would share)."""
    refused: list[str] = Field(default_factory=list)
    """Files the destination refuses (a credential: with its line and kind), with why; each
    is left out and every other file is still carried."""
    broken_links: list[LinkChange] = Field(default_factory=list)
    """Index lines that link to a refused file: kept as written, broken until it is carried."""

    _payload: dict[str, bytes] = PrivateAttr(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.conflicts and not self.refused

    @property
    def refused_paths(self) -> list[str]:
        """The source paths of :attr:`refused`, in its order."""
        return [r.split(": ", 1)[0] for r in self.refused]

    @property
    def writable(self) -> bool:
        """Whether the clean files can be written: no conflict (refused files are left out)."""
        return not self.conflicts

    @property
    def total_bytes(self) -> int:
        return sum(c.bytes for c in self.copies)


def _prefix(layout: Layout) -> str:
    """How the index spells the memory directory at the start of a link (``memory/`` or "")."""
    if layout.memory_dir == layout.index_dir:
        return ""
    rel = layout.link_for(join(layout.memory_dir, "x"))
    return rel[:-1]


def _within(rest: str) -> bool:
    """Whether a link target (past the prefix) names something inside the memory directory."""
    if not rest or rest.startswith(("/", "#", "?")) or _SCHEME.match(rest):
        return False
    path = unquote(rest.split("#", 1)[0].split("?", 1)[0])
    norm = posixpath.normpath(path) if path else ""
    return bool(norm) and norm != "." and norm != ".." and not norm.startswith("../")


def rewrite_target(target: str, src: Layout, dst: Layout) -> tuple[str | None, str]:
    """``(new target, why)`` for an index link target moved from ``src``'s layout to ``dst``'s.

    The new target is None when the link is kept as written, and ``why`` says why ("" for an
    external link or an anchor, which need no word).
    """
    wrapped = target.startswith("<") and target.endswith(">")
    inner = target[1:-1] if wrapped else target
    if not inner.strip() or inner.startswith(("#", "//")) or _SCHEME.match(inner):
        return None, ""
    path = resolve_link(target, src.index_path)
    if path == src.index_path:
        return None, "the index itself"
    if path is None or path == ".." or path.startswith("../"):
        return None, "points outside the memory directory"
    lead = _LEAD.match(inner).group(0)  # type: ignore[union-attr]
    rest = inner[len(lead) :]
    src_prefix, dst_prefix = _prefix(src), _prefix(dst)
    if not rest.startswith(src_prefix):
        if "/" not in rest.split("#", 1)[0]:
            return None, (
                f"a plain file name, which names the memory {rest.split('#', 1)[0]} in both "
                f"layouts; an import writes it back as {src_prefix}{rest}"
            )
        return None, f"outside {src.memory_dir}/, which is not carried"
    rest = rest[len(src_prefix) :]
    if not _within(rest):
        return None, "leaves the memory directory"
    new = lead + dst_prefix + rest
    return (f"<{new}>" if wrapped else new), ""


def rewrite_index(text: str, src: Layout, dst: Layout) -> tuple[str, list[LinkChange]]:
    """The index text with its link targets moved from ``src``'s layout to ``dst``'s."""
    changes: list[LinkChange] = []
    out: list[str] = []
    pos = 0
    line_starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def line_of(offset: int) -> int:
        lo, hi = 0, len(line_starts)
        while lo < hi - 1:
            mid = (lo + hi) // 2
            lo, hi = (mid, hi) if line_starts[mid] <= offset else (lo, mid)
        return lo + 1

    for m in MARKDOWN_LINK.finditer(text):
        target = m.group(2)
        new, why = rewrite_target(target, src, dst)
        if new is None:
            if why:
                changes.append(LinkChange(line=line_of(m.start()), old=target, why=why))
            continue
        out.append(text[pos : m.start(2)])
        out.append(new)
        pos = m.end(2)
        changes.append(LinkChange(line=line_of(m.start()), old=target, new=new))
    out.append(text[pos:])
    return "".join(out), changes


def plan_transfer(src: MemFS, dst: MemFS, direction: Direction = "import") -> TransferPlan:
    """Plan moving the memory of ``src`` (in ``src.layout``) into ``dst`` (in ``dst.layout``).

    Reads ``src`` through its raw view; asks ``dst`` only whether paths exist.
    """
    s, d = src.layout, dst.layout
    plan = TransferPlan(
        direction=direction, source_layout=s.describe(), destination_layout=d.describe()
    )
    raw = src.raw
    targets: dict[str, str] = {}
    for path in sorted(raw.find("")):
        if s.is_index(path):
            dst_path = d.index_path
        elif s.in_memory_area(path):
            rel = path[len(s.memory_dir) + 1 :] if s.memory_dir else path
            dst_path = join(d.memory_dir, rel)
        else:
            plan.left_out.append(path)
            continue
        data = raw.cat_file(path)
        copy = FileCopy(src=path, dst=dst_path, bytes=len(data))
        if s.is_index(path):
            text = data.decode("utf-8", "surrogateescape")
            new_text, changes = rewrite_index(text, s, d)
            data = new_text.encode("utf-8", "surrogateescape")
            copy.bytes, copy.rewritten = len(data), sum(c.new is not None for c in changes)
            plan.links = changes
        if dst_path in targets:
            plan.conflicts.append(f"{dst_path} (from both {targets[dst_path]} and {path})")
        elif dst.raw.exists(dst_path):
            plan.conflicts.append(dst_path)
        targets[dst_path] = path
        plan.copies.append(copy)
        plan._payload[dst_path] = data
        try:
            # The destination's own rules refuse; a date after today is clamped.
            copy.bytes = len(dst.migrating().prepare_write(dst_path, data))
        except (PermissionError, ValueError) as e:
            plan.refused.append(f"{path}: {_why_refused(e)}")
            plan.copies.remove(copy)
            del plan._payload[dst_path]
    _mark_broken_links(plan, s)
    return plan


def _why_refused(e: Exception) -> str:
    """Each finding's line and kind for a credential refusal (never the secret); else the error."""
    findings = getattr(e, "findings", None)
    if not findings:
        return str(e)
    return "; ".join(
        f"{'file name' if f.line == 0 else f'line {f.line}'}: {f.kind} ({f.preview})"
        for f in findings
    )


def _mark_broken_links(plan: TransferPlan, src: Layout) -> None:
    """Index links whose target is a refused file: the line is kept, and reported broken."""
    refused = set(plan.refused_paths)
    for ch in plan.links:
        path = resolve_link(unquote(ch.old.split("#", 1)[0]), src.index_path)
        if path in refused:
            plan.broken_links.append(
                ch.model_copy(update={"why": f"links to {path}, which was refused"})
            )


def apply_transfer(plan: TransferPlan, dst: MemFS) -> None:
    """Write the clean files of ``plan`` into ``dst``; refuses a plan with conflicts.

    Refused files are not in ``plan.copies``: every other file is written whole, and nothing
    of a refused file is.
    """
    if not plan.writable:
        raise FileExistsError(
            errno.EEXIST,
            "The plan has conflicts; nothing was written.",
            ", ".join(plan.conflicts),
        )
    # A migration: the files keep their own dates (a future one becomes today), not today's;
    # create-only, so a file that appeared since the plan is never overwritten.
    into = dst.migrating()
    for copy in plan.copies:
        into.save(copy.dst, plan._payload[copy.dst], create=True)


# -- the commands --------------------------------------------------------------------------------


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    imp = sub.add_parser(
        "import",
        help="turn a Claude Code memory directory into an item workspace",
        description=(
            "Copy the memory of SRC (a Claude Code memory directory such as "
            "~/.claude/projects/<p>/memory, or a repository with .claude/memory/) into "
            "WORKSPACE in the platform layout: files under memory/, MEMORY.md at the root, "
            "index links rewritten to memory/x.md. Nothing else in any file changes. Refuses "
            "to overwrite existing files."
        ),
    )
    imp.add_argument("src", help="Claude Code memory directory, or a repository holding one")
    imp.add_argument("workspace", help="workspace directory (created if missing) or fsspec URL")
    imp.add_argument("--dry-run", action="store_true", help="print the plan; write nothing")
    imp.set_defaults(func=run_import)

    exp = sub.add_parser(
        "export",
        help="write a workspace's memory out as a Claude Code memory directory",
        description=(
            "Copy the memory of WORKSPACE into DST as a Claude Code memory directory: "
            "memory files and MEMORY.md side by side, index links relative to it (x.md). "
            "Raw bytes, never the reminder-decorated view; nothing else in any file changes. "
            "Refuses to overwrite existing files."
        ),
    )
    exp.add_argument("workspace", help="workspace directory or fsspec URL")
    exp.add_argument("dst", help="directory to become the memory directory (created if missing)")
    add_layout_argument(exp)
    exp.add_argument("--dry-run", action="store_true", help="print the plan; write nothing")
    exp.set_defaults(func=run_export)


def _source(target: str) -> tuple[MemFS, list[str]]:
    fs = MemFS(open_store(target), read_only=True)
    return fs, fs.raw.find("")


def _destination(target: str, layout: Layout, dry_run: bool) -> MemFS:
    """The destination workspace; a missing local directory is created (an empty stand-in on a
    dry run, so that nothing is created)."""
    if "://" not in target and not os.path.isdir(target):
        if os.path.exists(target):
            raise NotADirectoryError(errno.ENOTDIR, f"{target!r} is not a directory.", target)
        if dry_run:
            return MemFS(InMemoryFileStore(), layout=layout, history=False)
        os.makedirs(target)
    # No version history: a transfer only creates files (never an overwrite), so nothing it
    # does needs restoring, and the destination holds the memory files byte for byte, alone.
    return MemFS(open_store(target), layout=layout, history=False)


def _import_source(paths: list[str]) -> Detection:
    found = detect_layout(paths)
    if found.layout.kind == "platform" and any(PLATFORM.is_memory_file(p) for p in paths):
        raise ValueError(
            f"the source is already in the platform layout ({found.reason}); copy it as it is, "
            "or export it first"
        )
    if found.layout.kind == "claude-code":
        return found
    # Not told apart by detection: an index beside sub-folders only, or no index at all.
    notes = [p for p in paths if p.endswith(".md") and p != INDEX_NAME]
    inside = [p for p in notes if "/" in p]
    folders = sorted({p.split("/", 1)[0] + "/" for p in inside})
    what = _n(len(notes), "markdown file")
    if folders:
        where = "all" if len(inside) == len(notes) else str(len(inside))
        what += f", {where} in {', '.join(folders[:5])}{' …' if len(folders) > 5 else ''}"
    held = f"{INDEX_NAME} at the root and {what}" if INDEX_NAME in paths else f"no index, {what}"
    return Detection(
        Layout.claude_code(""), f"{held}; the directory is read as a Claude Code memory directory"
    )


def _n(count: int, what: str) -> str:
    return f"{count} {what}{'' if count == 1 else 's'}"


def found_in(src: MemFS, plan: TransferPlan) -> str:
    """One line for people: the index (what it links, by the index's link rule) and the memory
    files a transfer found in ``src``."""
    layout = src.layout
    refused = [p for p in plan.refused_paths if layout.is_memory_file(p)]
    memory = [c.src for c in plan.copies if layout.is_memory_file(c.src)] + refused
    area = f"{layout.memory_dir}/" if layout.memory_dir else ""
    nested = [p for p in memory if "/" in p[len(area) :]]
    files = _n(len(memory), "memory file") + (f" ({len(refused)} refused)" if refused else "")
    if nested:
        folders = sorted({p[len(area) :].split("/", 1)[0] + "/" for p in nested})
        where = "all" if len(nested) == len(memory) else str(len(nested))
        files += f" ({where} in sub-folders: {', '.join(folders[:5])}{' …' * (len(folders) > 5)})"
    others = sum(
        not layout.is_memory_file(c.src) and not layout.is_index(c.src) for c in plan.copies
    )
    if others:
        files += f", {_n(others, 'other file')} in the memory area"
    if not any(layout.is_index(c.src) for c in plan.copies):
        return f"no index; {files}"
    text = src.raw.cat_file(layout.index_path).decode("utf-8", "replace")
    index = parse_index(text, layout=layout, memory_files=set(memory))
    linked = index.linked_paths()
    broken = len(linked - set(memory))
    links = f"{len(linked) - broken} memory files linked"
    if broken:
        links += f", {_n(broken, 'broken link')}"
    return (
        f"index {layout.index_path} ({_n(len(index.entries), 'entry line')}, "
        f"{_n(len(index.packed), 'packed line')}; {links}); {files}"
    )


def run_import(args: argparse.Namespace) -> int:
    return _run(args, "import")


def run_export(args: argparse.Namespace) -> int:
    return _run(args, "export")


def _run(args: argparse.Namespace, direction: Direction) -> int:
    name = f"memfs {direction}"
    if direction == "import":
        src_arg, dst_arg = args.src, args.workspace
        src, paths = _source(src_arg)
        found = _import_source(paths)
        dst_layout = PLATFORM
    else:
        src_arg, dst_arg = args.workspace, args.dst
        src, paths = _source(src_arg)
        found = resolve_layout(args.layout, paths)
        if found.layout.kind != "platform":
            raise ValueError(
                f"{src_arg} is in Claude Code's layout already ({found.reason}); export "
                "reads a platform workspace"
            )
        dst_layout = Layout.claude_code("")
    src = MemFS(src.store, layout=found.layout, read_only=True)
    dst = _destination(dst_arg, dst_layout, args.dry_run)
    plan = plan_transfer(src, dst, direction)
    print(f"{name}: from {src_arg} — {found.describe()}")
    print(f"{' ' * len(name)}  found {found_in(src, plan)}")
    print(f"{' ' * len(name)}  into {dst_arg} — {dst_layout.describe()}")
    for c in plan.copies:
        extra = f"; {c.rewritten} index links rewritten" if c.src == found.layout.index_path else ""
        print(f"  {c.src} -> {c.dst}  ({c.bytes:,} bytes{extra})")
    for ch in plan.links:
        if ch.new is None:
            print(f"  kept as written: line {ch.line}: {ch.old} ({ch.why})")
    if plan.left_out:
        shown = ", ".join(plan.left_out[:5]) + (" …" if len(plan.left_out) > 5 else "")
        print(f"  left out: {len(plan.left_out)} files outside the memory area ({shown})")
    if plan.conflicts:
        print(
            f"{name}: refusing to overwrite {len(plan.conflicts)} existing file(s) in {dst_arg}: "
            f"{', '.join(plan.conflicts)}. Nothing was written; move them away or choose an "
            "empty destination.",
            file=sys.stderr,
        )
    for ch in plan.broken_links:
        print(f"  broken link kept: line {ch.line}: {ch.old} ({ch.why})")
    if not plan.writable:
        return 1
    not_written = "would not be written" if args.dry_run else "not written"
    for r in plan.refused:
        print(f"{name}: refused ({not_written}): {r}", file=sys.stderr)
    if plan.refused:
        print(
            f"{name}: {len(plan.refused)} file(s) refused; remove the secret (store where it "
            "lives instead) and import them again.",
            file=sys.stderr,
        )
    verb = "imported" if direction == "import" else "exported"
    if args.dry_run:
        print(
            f"dry run: would have {verb} {len(plan.copies)} files "
            f"({plan.total_bytes:,} bytes); nothing was written"
        )
        return 1 if plan.refused else 0
    apply_transfer(plan, dst)
    print(f"{verb.capitalize()} {len(plan.copies)} files ({plan.total_bytes:,} bytes).")
    return 1 if plan.refused else 0
