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
    return 0
