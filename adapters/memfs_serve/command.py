"""``memfs serve WORKSPACE [--read-only] [--port N]``: the memory browser on 127.0.0.1.

Starlette, uvicorn and Jinja2 (the ``serve`` extra) are imported when the command runs, not when
it is registered: without them ``memfs serve DIR`` still parses and says which extra to install.
"""

from __future__ import annotations

import argparse
import sys

from memfs.cli import listening_socket, tcp_port
from memfs.cli_workspace import add_workspace_argument, open_workspace
from memfs.extras import require

DEFAULT_PORT = 8767
HOST = "127.0.0.1"


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "serve",
        help="a web page on 127.0.0.1 to read, edit, diff, restore and redact memory",
        description=(
            "Serve a local web page over one item workspace: every memory with its age, the "
            "index line by line, each file as the agent reads it, edits through the same rules "
            "as the agent (credential guard, date stamp, conditional write), each file's "
            "history with diff, restore and redact, and search. Only 127.0.0.1 can reach it. "
            "Needs the 'serve' extra."
        ),
    )
    add_workspace_argument(p)
    p.add_argument(
        "--read-only",
        action="store_true",
        help="show memory only: no change controls, and every change request is refused",
    )
    p.add_argument("--port", type=tcp_port, default=DEFAULT_PORT, help="port (1-65535)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    for module in ("starlette", "uvicorn", "jinja2"):
        require("serve", module)
    fs, found = open_workspace(args.workspace, read_only=args.read_only, layout=args.layout)
    sock = listening_socket(HOST, args.port, holder="another `memfs serve`")
    import uvicorn

    from memfs_serve.app import build_app

    app = build_app(fs, read_only=args.read_only, host=HOST, port=args.port)
    mode = "read-only" if args.read_only else "read and write"
    print(
        f"memfs serve: {args.workspace} ({found.describe()}, {mode}) on http://{HOST}:{args.port}/",
        file=sys.stderr,
    )
    uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])
    return 0
