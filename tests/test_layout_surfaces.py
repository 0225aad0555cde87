"""Every surface follows the workspace's layout: the platform's and Claude Code's."""

from __future__ import annotations

import anyio
import pytest
from mcp.client import Client
from memfs import CredentialRefusedError, InMemoryFileStore, Layout, MemFS
from memfs.manifest import AgentManifest
from memfs.turns import build_chat_turn

from memfs_anthropic import MemFSMemoryTool
from memfs_mcp import build_server
from tests.conftest import TODAY

OLD = (
    "---\nname: role\ndescription: who\nmetadata:\n  type: user\n  recorded: 2026-01-01\n---\nX.\n"
)
LAYOUTS = {
    "platform": Layout.platform(),
    "claude-code flat": Layout.claude_code(),
    "claude-code nested": Layout.claude_code(".claude/memory"),
}


@pytest.fixture(params=list(LAYOUTS))
def fs(request: pytest.FixtureRequest) -> MemFS:
    layout = LAYOUTS[request.param]
    fs = MemFS(InMemoryFileStore(), clock=lambda: TODAY, layout=layout)
    fs.migrating().pipe_file(layout.memory_path("role"), OLD.encode())  # an old memory
    link = layout.link_for(layout.memory_path("role"))
    fs.pipe_file(layout.index_path, f"- [Role]({link}) — who the user is\n".encode())
    return fs


def test_the_index_is_injected_and_never_a_memory(fs: MemFS) -> None:
    layout = fs.layout
    assert not fs.is_memory_file(layout.index_path)
    assert fs.is_memory_file(layout.memory_path("role"))
    block = build_chat_turn(transcript=[], user_message="hi", manifest=AgentManifest(), fs=fs)
    assert f'path="{layout.index_path}"' in block.context_block
    assert fs.cat_file(layout.index_path).startswith(b"- [Role]")  # no reminder on the index
    assert fs.cat_file(layout.memory_path("role")).startswith(b"<system-reminder>")


def test_the_guard_covers_the_layouts_memory_and_index(fs: MemFS) -> None:
    secret = "password: Hunter2!x9"
    for path in (fs.layout.memory_path("new"), fs.layout.index_path):
        with pytest.raises(CredentialRefusedError):
            fs.pipe_file(path, f"---\nname: new\n---\n{secret}\n".encode())


def test_the_anthropic_tool_maps_memories_onto_the_layout(fs: MemFS) -> None:
    tool = MemFSMemoryTool(fs)
    view = str(tool.call({"command": "view", "path": "/memories/role.md"}))
    assert "This memory is" in view
    index = str(tool.call({"command": "view", "path": "/memories/MEMORY.md"}))
    assert "[Role]" in index and "This memory is" not in index
    listing = str(tool.call({"command": "view", "path": "/memories"}))
    assert listing.count("/memories/MEMORY.md") == 1 and "/memories/role.md" in listing


def test_the_mcp_server_serves_the_layouts_index_and_memories(fs: MemFS) -> None:
    layout = fs.layout

    async def go() -> None:
        async with Client(build_server(fs), raise_exceptions=True) as client:
            uris = [str(r.uri) for r in (await client.list_resources()).resources]
            assert uris == [
                f"memfs:///{layout.index_path}",
                f"memfs:///{layout.memory_path('role')}",
            ]
            index = await client.read_resource(f"memfs:///{layout.index_path}")
            assert "[Role]" in index.contents[0].text  # type: ignore[union-attr]

    anyio.run(go)


def test_the_write_receipt_and_index_nudge_follow_the_layout(fs: MemFS) -> None:
    from memfs.tools import FileToolExecutor

    layout = fs.layout
    ex = FileToolExecutor(fs, index_nudge=True)
    new = layout.memory_path("new-fact")
    body = "---\nname: new-fact\ndescription: d\nmetadata:\n  type: project\n---\nY.\n"
    out = ex.execute("write_file", {"path": new, "content": body})
    assert out.startswith(f"Created {new}"), out
    assert f"({layout.link_for(new)})" in out and layout.index_path in out  # the line to add
    role = layout.memory_path("role")
    ex.execute("read_file", {"path": role})
    out = ex.execute("edit_file", {"path": role, "old_string": "X.", "new_string": "Z."})
    assert out.startswith(f"Edited {role}") and "No line of" not in out  # already indexed
