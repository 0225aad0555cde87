"""``memfs demo``: a workspace on the local store, shown end to end in one screen."""

from __future__ import annotations

import argparse
import datetime as dt
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
    p = sub.add_parser("demo", help="create a demo workspace and show the memory rules at work")
    p.add_argument("directory", nargs="?", help="workspace directory (default: a new temp dir)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    console = Console()
    root = args.directory or tempfile.mkdtemp(prefix="memfs-demo-")
    fs = MemFS(LocalFileStore(root))
    old = (fs.today() - dt.timedelta(days=64)).isoformat()
    for path, text in MEMORIES.items():
        fs.pipe_file(path, text.format(old=old).encode())
    fs.pipe_file(INDEX_FILE, INDEX.encode())
    console.print(f"[bold]Workspace:[/bold] {root}  (local store, atomic writes)")
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
    return 0


def show_context_injection(console: Console, fs: MemFS) -> None:
    """The block a chat turn injects for a real-sized store and an empty one; a workflow turn."""
    # Imported here so the rest of the demo does not depend on the context modules.
    from memfs.entrypoints import mount_for
    from memfs.generator import generate_workspace
    from memfs.manifest import AgentManifest
    from memfs.stores import InMemoryFileStore
    from memfs.tokens import estimate_tokens, with_margin
    from memfs.turns import build_chat_turn, build_workflow_turn

    manifest = AgentManifest()  # memory on by default; MEMORY.md joins context_files
    ask = "Which source should I use for yield?"

    big = MemFS(InMemoryFileStore(), clock=fs.clock)
    generated = generate_workspace(big)
    block = build_chat_turn(history=[], user_message=ask, manifest=manifest, fs=big).context_block
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
    turn = build_chat_turn(history=[], user_message=ask, manifest=manifest, fs=empty)
    console.print(
        f"  empty workspace → block {turn.context_block!r}, "
        f"~{estimate_tokens(turn.context_block)} tokens; the user message goes out as typed: "
        f"{turn.messages[-1]['content']!r}"
    )

    flow = build_workflow_turn(
        history=[], user_message="Summarise this week's yield.", manifest=manifest, fs=fs
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
