"""``memfs cat WORKSPACE PATH [--raw]``: a file as the agent reads it, or its exact bytes."""

from __future__ import annotations

import argparse
import sys

from memfs.errors import message
from memfs.workspace import add_workspace_argument, open_workspace


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "cat",
        help="print a workspace file as the agent reads it (staleness reminder included)",
        description=(
            "Print PATH from WORKSPACE through a read-only MemFS: memory files come with the "
            "staleness reminder the agent would see; --raw prints the stored bytes."
        ),
    )
    add_workspace_argument(p)
    p.add_argument("path", help="workspace path, e.g. memory/user-role.md or MEMORY.md")
    p.add_argument("--raw", action="store_true", help="exact stored bytes, no decoration")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        fs, found = open_workspace(args.workspace, read_only=True, layout=args.layout)
        data = (fs.raw if args.raw else fs).cat_file(args.path)
    except (OSError, ValueError) as e:
        print(f"memfs cat: {message(e)}", file=sys.stderr)
        return 1
    print(f"layout: {found.describe()}", file=sys.stderr)
    out = sys.stdout.buffer if hasattr(sys.stdout, "buffer") else None
    if out is not None:
        out.write(data)
        out.flush()
    else:  # a captured text stream (tests, notebooks)
        sys.stdout.write(data.decode("utf-8", errors="replace"))
    return 0
