"""memfs_mcp: an MCP server over one item workspace (``memfs mcp WORKSPACE``).

Install with the ``mcp`` extra. ``build_server(fs)`` returns the SDK's low-level ``Server``;
pass ``fs.read_only()`` to serve a workspace that refuses writes.

The names below load :mod:`memfs_mcp.server` (and the MCP SDK) on first use, so the ``memfs
mcp`` command can parse its arguments, and say which extra is missing, without the SDK.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memfs_mcp.server import INDEX_URI, PROMPT_NAME, build_server, tool_annotations

__all__ = ["INDEX_URI", "PROMPT_NAME", "build_server", "tool_annotations"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from memfs_mcp import server

        return getattr(server, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
