"""``memfs cat WORKSPACE PATH [--raw] [--binary]``: a file as the agent reads it, or its bytes.

It reads the way a read-only :class:`~memfs.filesystem.MemFS` does (:mod:`memfs.views` is the
rule both follow) without building one: a local workspace is read without importing fsspec.
"""

from __future__ import annotations

import argparse
import errno
import sys

from memfs.cli_workspace import add_workspace_argument, layout_notice, open_store_in_layout
from memfs.views import agent_view, read_stored, utc_today, workspace_path


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "cat",
        help="print a workspace file as the agent reads it (staleness reminder included)",
        description=(
            "Print PATH from WORKSPACE through a read-only MemFS: memory files come with the "
            "staleness reminder the agent would see; --raw prints the stored bytes. A file "
            "that is not UTF-8 text is refused (exit 2) unless --binary is given."
        ),
    )
    add_workspace_argument(p)
    p.add_argument("path", help="workspace path, e.g. memory/user-role.md or MEMORY.md")
    p.add_argument("--raw", action="store_true", help="exact stored bytes, no decoration")
    p.add_argument(
        "--binary",
        action="store_true",
        help="write a file that is not text as it is (e.g. `memfs cat WS f.png --binary > f.png`)",
    )
    p.set_defaults(func=run)


def is_binary(data: bytes) -> bool:
    """Not text a terminal can show: a NUL byte, or not UTF-8."""
    if b"\0" in data:
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def run(args: argparse.Namespace) -> int:
    store, found = open_store_in_layout(args.workspace, layout=args.layout)
    rel = workspace_path(args.path)
    try:
        data, version = read_stored(store, rel)
    except IsADirectoryError:
        raise IsADirectoryError(
            errno.EISDIR,
            f"{args.path!r} is a directory in the workspace {args.workspace}; name a file "
            "inside it.",
        ) from None
    except FileNotFoundError:
        raise FileNotFoundError(
            errno.ENOENT,
            f"No file {args.path!r} in the workspace {args.workspace}. Give a path relative to "
            "the workspace root, such as MEMORY.md or memory/user-role.md.",
        ) from None
    if not args.raw:
        data = agent_view(found.layout, rel, data, utc_today(), version)
    if not args.binary and is_binary(data):
        raise ValueError(
            f"{args.path!r} is a binary file ({len(data):,} bytes), not text; nothing was "
            "printed. Pass --binary to write its bytes anyway, redirected to a file."
        )
    if notice := layout_notice("memfs cat", found):
        print(notice, file=sys.stderr)
    out = sys.stdout.buffer if hasattr(sys.stdout, "buffer") else None
    if out is not None:
        view = memoryview(data)
        while view:  # a reader that goes away mid-write can leave a short write, not an error
            view = view[out.write(view) :]
        out.flush()
    else:  # a captured text stream (tests, notebooks)
        sys.stdout.write(data.decode("utf-8", errors="replace"))
    return 0
