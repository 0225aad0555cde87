"""``memfs mcp WORKSPACE [--read-only] [--http]``: serve an item workspace over MCP."""

from __future__ import annotations

import argparse
import sys

import anyio
from memfs.errors import message
from memfs.filesystem import MemFS
from memfs.workspace import add_workspace_argument, open_workspace

from memfs_mcp.server import build_server

DEFAULT_PORT = 8766
HTTP_HOST = "127.0.0.1"


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "mcp",
        help="serve an item workspace over MCP (file tools, MEMORY.md, the memory prompt)",
        description=(
            "Serve one item workspace to an MCP client: the file tools, MEMORY.md and each "
            "memory file as resources, and the memory prompt. stdio by default."
        ),
    )
    add_workspace_argument(p, creates=True)
    p.add_argument(
        "--read-only",
        action="store_true",
        help="mount the workspace read-only: reads work, every write is refused (EROFS)",
    )
    p.add_argument(
        "--http",
        action="store_true",
        help=f"serve streamable HTTP on {HTTP_HOST} instead of stdio",
    )
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help="HTTP port (with --http)")
    p.set_defaults(func=run)


async def _serve_stdio(fs: MemFS) -> None:
    from mcp.server.stdio import stdio_server

    server = build_server(fs)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def _serve_http(fs: MemFS, port: int) -> None:
    import uvicorn

    app = build_server(fs).streamable_http_app(host=HTTP_HOST)
    print(f"memfs mcp: serving {fs!r} on http://{HTTP_HOST}:{port}/mcp", file=sys.stderr)
    uvicorn.run(app, host=HTTP_HOST, port=port, log_level="warning")


def run(args: argparse.Namespace) -> int:
    try:
        fs, found = open_workspace(
            args.workspace,
            read_only=args.read_only,
            create=args.create,
            offer_create=True,
            layout=args.layout,
        )
        print(f"memfs mcp: {args.workspace} — {found.describe()}", file=sys.stderr)
    except (OSError, ValueError) as e:
        print(f"memfs mcp: {message(e)}", file=sys.stderr)
        return 2
    if args.http:
        _serve_http(fs, args.port)
    else:
        anyio.run(_serve_stdio, fs)
    return 0
