"""memfs_mcp: an MCP server over one item workspace (``memfs mcp WORKSPACE``).

Install with the ``mcp`` extra. ``build_server(fs)`` returns the SDK's low-level ``Server``;
pass ``fs.read_only()`` to serve a workspace that refuses writes.
"""

from memfs_mcp.server import INDEX_URI, PROMPT_NAME, build_server, tool_annotations

__all__ = ["INDEX_URI", "PROMPT_NAME", "build_server", "tool_annotations"]
