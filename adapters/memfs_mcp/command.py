"""``memfs mcp WORKSPACE [--read-only] [--http]``: serve an item workspace over MCP.

The MCP SDK (the ``mcp`` extra) is imported when the command runs, not when it is registered:
without it, ``memfs mcp DIR`` still parses and says which extra to install.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from memfs.cli import listening_socket, tcp_port
from memfs.cli_workspace import add_workspace_argument, layout_notice, open_workspace
from memfs.extras import require, require_installed

if TYPE_CHECKING:
    from memfs import MemFS

DEFAULT_PORT = 8766
HTTP_HOST = "127.0.0.1"


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "mcp",
        help="serve an item workspace over MCP (file tools, MEMORY.md, the memory prompt)",
        description=(
            "Serve one item workspace to an MCP client: the file tools, MEMORY.md and each "
            "memory file as resources, and the memory prompt. stdio by default. Needs the "
            "'mcp' extra."
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
    p.add_argument(
        "--port",
        type=tcp_port,
        default=None,
        help=f"HTTP port (with --http; 1-65535, default {DEFAULT_PORT})",
    )
    p.set_defaults(func=run)


async def _serve_stdio(fs: MemFS) -> None:
    from mcp.server.stdio import stdio_server

    from memfs_mcp.server import build_server

    server = build_server(fs)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def _serve_http(fs: MemFS, port: int) -> None:
    import uvicorn

    from memfs_mcp.server import build_server, http_security

    sock = listening_socket(HTTP_HOST, port, holder="another `memfs mcp --http`")
    app = build_server(fs).streamable_http_app(
        host=HTTP_HOST, transport_security=http_security(port)
    )
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    print(f"memfs mcp: serving {fs!r} on http://{HTTP_HOST}:{port}/mcp", file=sys.stderr)
    server.run(sockets=[sock])


def run(args: argparse.Namespace) -> int:
    # Bad usage and a missing workspace are refused before the MCP SDK is imported (seconds on a
    # busy machine); whether the SDK is installed is checked first, without importing it.
    if args.port is not None and not args.http:
        raise ValueError(
            f"--port {args.port} is the HTTP port, and without --http the server speaks stdio; "
            "add --http to serve HTTP on that port, or drop --port."
        )
    require_installed("mcp", "mcp", *(("uvicorn",) if args.http else ()))
    fs, found = open_workspace(
        args.workspace,
        read_only=args.read_only,
        create=args.create,
        offer_create=True,
        layout=args.layout,
    )
    require("mcp", "memfs_mcp.server")
    notice = layout_notice("memfs mcp", found)  # said only for a layout other than the platform's
    if notice:
        print(notice, file=sys.stderr)
    if args.http:
        _serve_http(fs, args.port or DEFAULT_PORT)
    else:
        anyio: Any = require("mcp", "anyio")
        anyio.run(_serve_stdio, fs)
    return 0
