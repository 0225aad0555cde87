"""``memfs demo``: a workspace on the local store, shown end to end in one screen."""

from __future__ import annotations

import argparse
import datetime as dt
import errno
import os
import shutil
import tempfile

from rich.console import Console
from rich.panel import Panel
from rich.text import Text

from memfs import INDEX_FILE, LocalFileStore, MemFS

MEMORIES = {
    "memory/user-role.md": """---
name: user-role
description: The user is a process engineer; no need to explain Cpk/Ppk
metadata:
  type: user
  recorded: {old}
---
The user is a process engineer. Do not explain Cpk, Ppk or other SPC terms.
""",
    "memory/yield-source.md": """---
name: yield-source
description: Authoritative yield data for line 3 of plant A is the MES daily_yield table
metadata:
  type: project
---
Yield for plant A line 3 comes from the MES `daily_yield` table, not the QA weekly report.
**Why:** the weekly report rounds to one decimal, which distorts SPC.
**How to apply:** query daily_yield for any yield figure; link [[user-role]].
""",
}
INDEX = """- [User is a process engineer](memory/user-role.md) — skip SPC basics
- [Yield source = MES daily_yield](memory/yield-source.md) — not the QA weekly report
"""


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "demo",
        help="create a demo workspace and show the memory rules at work",
        description=(
            "Write a two-memory demo workspace and show a decorated read, the raw bytes, the "
            "stamped date, a read-only mount refusing a write and the injected block. Without "
            "DIR it runs in a temporary directory, removed at the end unless --keep."
        ),
    )
    p.add_argument(
        "directory",
        nargs="?",
        help="workspace directory: new or empty (default: a temporary directory)",
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="write into DIR even if it is not empty (overwrites MEMORY.md and the demo files)",
    )
    p.add_argument(
        "--keep",
        action="store_true",
        help="keep the temporary directory and print its path (without DIR)",
    )
    p.set_defaults(func=run)


def _check_target(directory: str, force: bool) -> None:
    """DIR must be new or empty, unless ``force``: the demo writes MEMORY.md and memory files."""
    if "://" in directory:
        raise ValueError(
            f"{directory!r} is a URL; the demo writes a local directory. Give a directory path "
            "(or none, for a temporary one); `memfs stats` and the other commands take URLs."
        )
    if os.path.exists(directory) and not os.path.isdir(directory):
        raise NotADirectoryError(
            errno.ENOTDIR, f"{directory!r} is a file, not a directory; give a new directory."
        )
    if not force and os.path.isdir(directory) and os.listdir(directory):
        raise FileExistsError(
            errno.ENOTEMPTY,
            f"{directory!r} is not empty, and the demo would overwrite its MEMORY.md and "
            "memory files. Give a new or empty directory, leave DIR out to use a temporary "
            "one, or pass --force to write into it anyway.",
        )


def run(args: argparse.Namespace) -> int:
    if args.directory is None:
        root = tempfile.mkdtemp(prefix="memfs-demo-")
        try:
            show(root, "a temporary directory, " + ("kept" if args.keep else "removed at the end"))
        finally:
            if not args.keep:
                shutil.rmtree(root, ignore_errors=True)
        if args.keep:
            print(f"demo workspace kept at {root}")
        return 0
    if args.keep:
        raise ValueError("--keep is for the temporary directory; a DIR you give is always kept.")
    _check_target(args.directory, args.force)
    os.makedirs(args.directory, exist_ok=True)
    show(args.directory, "local store, atomic writes")
    return 0


def show(root: str, where: str) -> None:
    """Write the demo workspace into ``root`` and show each rule at work."""
    console = Console()
    fs = MemFS(LocalFileStore(root))
    old = (fs.today() - dt.timedelta(days=64)).isoformat()
    for path, text in MEMORIES.items():
        # A memory that says when it was recorded is seeded as a store that kept it since then
        # (a migration keeps its date); one that does not is written today and dated so.
        writer = fs.migrating() if "{old}" in text else fs
        writer.pipe_file(path, text.format(old=old).encode())
    fs.pipe_file(INDEX_FILE, INDEX.encode())
    console.print(f"[bold]Workspace:[/bold] {root}  ({where})")
    console.print(f"Files: {fs.find('')}")

    console.print(
        Panel(
            Text(fs.cat_file("memory/user-role.md").decode()),
            title="decorated read: memory/user-role.md (64 days old)",
        )
    )
    console.print(
        Panel(Text(fs.raw.cat_file("memory/user-role.md").decode()), title="raw bytes: fs.raw")
    )
    console.print(
        Panel(
            Text(fs.raw.cat_file("memory/yield-source.md").decode()),
            title="written without metadata.recorded: the filesystem stamped today's date",
        )
    )
    workflow = fs.read_only()
    try:
        workflow.pipe_file("memory/new.md", b"---\nname: new\n---\nx\n")
    except PermissionError as e:
        console.print(
            Panel(
                Text(str(e)), title="read-only mount (workflow turn) refuses a write", style="red"
            )
        )
    show_context_injection(console, fs)


def show_context_injection(console: Console, fs: MemFS) -> None:
    """The block a chat turn injects for a real-sized store and an empty one; a workflow turn."""
    # Imported here so the rest of the demo does not depend on the context modules.
    from memfs.generator import generate_workspace
    from memfs.manifest import AgentManifest
    from memfs.memory_access import mount_for
    from memfs.stores import InMemoryFileStore
    from memfs.tokens import estimate_tokens, with_margin
    from memfs.turns import build_chat_turn, build_workflow_turn

    manifest = AgentManifest()  # memory on by default; MEMORY.md joins context_files
    ask = "Which source should I use for yield?"

    big = MemFS(InMemoryFileStore(), clock=fs.clock)
    generated = generate_workspace(big)
    block = build_chat_turn(
        transcript=[], user_message=ask, manifest=manifest, fs=big
    ).context_block
    lines = block.rstrip("\n").splitlines()
    shown = "\n".join([*lines[:6], f"… {len(lines) - 8} more lines …", *lines[-2:]])
    tokens = estimate_tokens(block)
    console.print(Panel(Text(shown), title="chat turn, generated store: the block (excerpt)"))
    console.print(
        f"  {generated.n_files} memories, {generated.index_lines}-line MEMORY.md → "
        f"{len(block):,} characters, ~{tokens:,} tokens ({with_margin(tokens):,} with margin), "
        "prefixed to the newest user message and never persisted"
    )
    empty = MemFS(InMemoryFileStore(), clock=fs.clock)
    turn = build_chat_turn(transcript=[], user_message=ask, manifest=manifest, fs=empty)
    console.print(
        f"  empty workspace → block {turn.context_block!r}, "
        f"~{estimate_tokens(turn.context_block)} tokens; the user message goes out as typed: "
        f"{turn.messages[-1]['content']!r}"
    )

    flow = build_workflow_turn(
        transcript=[], user_message="Summarise this week's yield.", manifest=manifest, fs=fs
    )
    console.print(
        Panel(Text(flow.messages[-1]["content"]), title="workflow turn: MEMORY.md is injected")
    )
    tools = mount_for("workflow_turn", fs)
    assert tools is not None
    try:
        tools.pipe_file(INDEX_FILE, b"- [Overwritten](memory/x.md)\n")
    except PermissionError as e:
        console.print(
            Panel(Text(str(e)), title="workflow turn's file tools: a write is refused", style="red")
        )
