"""``memfs mcp`` over stdio, in-process: the command's stdio server is given in-memory streams
in place of the process's stdin and stdout, and a real MCP client session talks to it."""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import mcp.server.stdio
import pytest
from mcp import ClientSession
from mcp.shared.memory import create_client_server_memory_streams

from memfs_mcp import command


def _args(workspace: Path) -> argparse.Namespace:
    return argparse.Namespace(
        workspace=str(workspace),
        read_only=False,
        create=False,
        layout="auto",
        http=False,
        port=None,
    )


def test_stdio_server_answers_a_client_and_says_the_detected_layout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # a Claude Code store as it is: memory files at the root, no memory/ folder
    (tmp_path / "a.md").write_text("---\nname: a\n---\nThe deploy runs on Fridays.\n")
    (tmp_path / "MEMORY.md").write_text("- [A](a.md) — a\n")
    seen: dict[str, Any] = {}

    @contextlib.asynccontextmanager
    async def memory_stdio() -> AsyncIterator[tuple[Any, Any]]:
        async with (
            create_client_server_memory_streams() as (client_streams, server_streams),
            anyio.create_task_group() as tg,
        ):

            async def client() -> None:
                async with ClientSession(*client_streams) as session:
                    await session.initialize()
                    tools = await session.list_tools()
                    seen["tools"] = sorted(t.name for t in tools.tools)
                    got = await session.call_tool("read_file", {"path": "a.md"})
                    seen["read"] = "".join(getattr(c, "text", "") for c in got.content)
                tg.cancel_scope.cancel()  # the client is done: end the server's run

            tg.start_soon(client)
            yield server_streams

    monkeypatch.setattr(mcp.server.stdio, "stdio_server", memory_stdio)
    assert command.run(_args(tmp_path)) == 0
    assert "read_file" in seen["tools"] and "write_file" in seen["tools"]
    assert "The deploy runs on Fridays." in seen["read"]
    assert capsys.readouterr().err.splitlines() == [
        "memfs mcp: claude-code layout: index MEMORY.md, memory files in the workspace root "
        "(MEMORY.md beside 1 markdown file at the root and no memory/ folder)"
    ]
