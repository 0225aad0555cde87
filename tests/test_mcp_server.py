"""The MCP server, driven by the MCP SDK's own client: in-process and over stdio (`memfs mcp`)."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")

import mcp_types as types
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from memfs import INDEX_FILE, InMemoryFileStore, LocalFileStore, MemFS
from memfs.manifest import AgentManifest
from memfs.prompt import memory_prompt
from memfs.staleness import reminder_text
from memfs.tools import FILE_TOOL_NAMES, file_tool_schemas

from memfs_mcp import INDEX_URI, build_server
from tests.conftest import TODAY

ROLE = (
    "---\nname: user-role\ndescription: The user is a process engineer\nmetadata:\n"
    "  type: user\n  recorded: 2026-09-28\n---\nThe user is a process engineer.\n"
)
INDEX = "- [User is a process engineer](memory/user-role.md) — skip SPC basics\n"
REMINDER = re.compile(
    r"\A<system-reminder>This memory is (\d+) days old\. Memories are point-in-time "
    r"observations, not live state"
)


def text_of(result: types.CallToolResult) -> str:
    assert len(result.content) == 1
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


def resource_text(result: types.ReadResourceResult) -> str:
    (contents,) = result.contents
    assert isinstance(contents, types.TextResourceContents)
    return contents.text


def connect(fs: MemFS, body: Callable[[Client], Awaitable[None]], mode: str = "auto") -> None:
    async def go() -> None:
        async with Client(build_server(fs), mode=mode, raise_exceptions=True) as client:
            await body(client)

    anyio.run(go)


@pytest.fixture
def fs() -> MemFS:
    return MemFS(InMemoryFileStore(), clock=lambda: TODAY)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_tools_are_the_file_tools_with_honest_annotations(fs: MemFS, mode: str) -> None:
    async def body(client: Client) -> None:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert list(tools) == list(FILE_TOOL_NAMES)
        for schema in file_tool_schemas():
            fn = schema["function"]
            assert tools[fn["name"]].input_schema == fn["parameters"]
            assert tools[fn["name"]].description == fn["description"]
        for name in ("read_file", "list_files", "exists"):
            ann = tools[name].annotations
            assert ann is not None and ann.read_only_hint is True
        for name in ("write_file", "edit_file", "delete_file"):
            ann = tools[name].annotations
            assert ann is not None
            assert ann.read_only_hint is False and ann.destructive_hint is True
        assert all(t.annotations and t.annotations.open_world_hint is False for t in tools.values())
        write, edit = tools["write_file"].annotations, tools["edit_file"].annotations
        assert write and write.idempotent_hint is True
        assert edit and edit.idempotent_hint is False

    connect(fs, body, mode)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_write_a_memory_and_read_it_back_with_the_reminder(fs: MemFS, mode: str) -> None:
    async def body(client: Client) -> None:
        wrote = await client.call_tool(
            "write_file", {"path": "memory/user-role.md", "content": ROLE}
        )
        assert not wrote.is_error, text_of(wrote)
        indexed = await client.call_tool("write_file", {"path": INDEX_FILE, "content": INDEX})
        assert not indexed.is_error

        read = await client.call_tool("read_file", {"path": "memory/user-role.md"})
        assert not read.is_error
        assert text_of(read) == f"{reminder_text(64)}\n{ROLE}"

        via_resource = await client.read_resource("memfs:///memory/user-role.md")
        assert resource_text(via_resource) == f"{reminder_text(64)}\n{ROLE}"
        assert resource_text(await client.read_resource(INDEX_URI)) == INDEX

        uris = [r.uri for r in (await client.list_resources()).resources]
        assert uris == [INDEX_URI, "memfs:///memory/user-role.md"]
        (template,) = (await client.list_resource_templates()).resource_templates
        assert template.uri_template == "memfs:///memory/{name}"

        edited = await client.call_tool(
            "edit_file",
            {"path": "memory/user-role.md", "old_string": "engineer.", "new_string": "lead."},
        )
        assert not edited.is_error, text_of(edited)

    connect(fs, body, mode)
    assert fs.raw.cat_file("memory/user-role.md").decode() == ROLE.replace("engineer.\n", "lead.\n")
    assert fs.raw.cat_file(INDEX_FILE).decode() == INDEX


def test_read_only_server_refuses_every_write_through_the_mount(fs: MemFS) -> None:
    fs.pipe_file("memory/user-role.md", ROLE.encode())
    fs.pipe_file(INDEX_FILE, INDEX.encode())
    before = {p: fs.raw.cat_file(p) for p in fs.raw.find("")}
    read_write_annotations: dict[str, Any] = {}

    async def annotations(client: Client) -> None:
        for t in (await client.list_tools()).tools:
            read_write_annotations[t.name] = t.annotations

    connect(fs, annotations)

    async def body(client: Client) -> None:
        tools = (await client.list_tools()).tools
        # The same honest hints: the refusal below is the mount's, not the client's choice.
        assert {t.name: t.annotations for t in tools} == read_write_annotations
        for name, args in [
            ("write_file", {"path": "memory/new.md", "content": "x"}),
            ("write_file", {"path": INDEX_FILE, "content": "wiped"}),
            ("edit_file", {"path": INDEX_FILE, "old_string": "skip", "new_string": "teach"}),
            ("delete_file", {"path": "memory/user-role.md"}),
        ]:
            result = await client.call_tool(name, args)
            assert result.is_error, name
            assert "mounted read-only" in text_of(result), name
        read = await client.call_tool("read_file", {"path": "memory/user-role.md"})
        assert not read.is_error and REMINDER.match(text_of(read))
        prompt = await client.get_prompt("memory")
        block = prompt.messages[0].content
        assert isinstance(block, types.TextContent)
        assert block.text == memory_prompt(AgentManifest(), read_only=True)

    connect(fs.read_only(), body)
    assert {p: fs.raw.cat_file(p) for p in fs.raw.find("")} == before


def test_memory_prompt_is_served(fs: MemFS) -> None:
    async def body(client: Client) -> None:
        (prompt,) = (await client.list_prompts()).prompts
        assert prompt.name == "memory"
        got = await client.get_prompt("memory")
        assert len(got.messages) == 1 and got.messages[0].role == "user"
        block = got.messages[0].content
        assert isinstance(block, types.TextContent)
        assert block.text == memory_prompt(AgentManifest())
        assert "MEMORY.md" in block.text
        with pytest.raises(MCPError, match="Unknown prompt"):
            await client.get_prompt("other")

    connect(fs, body)


def test_errors_come_back_as_results_or_protocol_errors(fs: MemFS) -> None:
    async def body(client: Client) -> None:
        escaped = await client.call_tool("read_file", {"path": "../etc/passwd"})
        assert escaped.is_error and "Refused path" in text_of(escaped)
        missing = await client.call_tool("read_file", {"path": "memory/none.md"})
        assert missing.is_error and "No such file" in text_of(missing)
        bad_args = await client.call_tool("write_file", {"path": "memory/x.md"})
        assert bad_args.is_error and "content" in text_of(bad_args)
        secret = "sk-ant-api03-" + "A1b2C3d4E5f6G7h8" * 6 + "-AAAAAAAA"
        leaked = await client.call_tool(
            "write_file", {"path": "memory/keys.md", "content": f"api key: {secret}\n"}
        )
        assert leaked.is_error and secret not in text_of(leaked)
        with pytest.raises(MCPError, match="Unknown tool"):
            await client.call_tool("save_skill", {})
        # An empty workspace still has an (empty) index resource, like the context builder.
        assert resource_text(await client.read_resource(INDEX_URI)) == ""
        with pytest.raises(MCPError, match="No memory file"):
            await client.read_resource("memfs:///memory/none.md")
        with pytest.raises(MCPError, match="not a memory resource"):
            await client.read_resource("memfs:///notes.txt")
        with pytest.raises(MCPError, match="Refused path"):
            await client.read_resource("memfs:///memory/../../x.md")
        with pytest.raises(MCPError, match="resources start"):
            await client.read_resource("file:///etc/passwd")

    connect(fs, body)


def _stdio(workspace: Path, *flags: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "memfs.cli", "mcp", str(workspace), *flags],
    )


def test_memfs_mcp_over_stdio(tmp_path: Path) -> None:
    """The real command: list tools, write a memory, read it back with the reminder."""
    ws = tmp_path / "ws"

    async def go() -> None:
        async with Client(_stdio(ws, "--create"), read_timeout_seconds=60) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            assert names == list(FILE_TOOL_NAMES)
            old = ROLE.replace("2026-09-28", "2020-01-01")
            wrote = await client.call_tool(
                "write_file", {"path": "memory/user-role.md", "content": old}
            )
            assert not wrote.is_error, text_of(wrote)
            read = await client.call_tool("read_file", {"path": "memory/user-role.md"})
            match = REMINDER.match(text_of(read))
            assert match and int(match.group(1)) > 365
            assert text_of(read).endswith(old)

    anyio.run(go)
    assert (ws / "memory" / "user-role.md").read_text() == ROLE.replace("2026-09-28", "2020-01-01")


def test_memfs_mcp_read_only_over_stdio(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    # seeded without version history, so the tree below is exactly what the server could touch
    seed = MemFS(LocalFileStore(ws), clock=lambda: TODAY, history=False)
    seed.pipe_file(INDEX_FILE, INDEX.encode())

    async def go() -> None:
        async with Client(_stdio(ws, "--read-only"), read_timeout_seconds=60) as client:
            refused = await client.call_tool("write_file", {"path": "memory/x.md", "content": "x"})
            assert refused.is_error and "mounted read-only" in text_of(refused)
            assert resource_text(await client.read_resource(INDEX_URI)) == INDEX

    anyio.run(go)
    assert sorted(p.name for p in ws.rglob("*") if p.is_file()) == ["MEMORY.md"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_memfs_mcp_over_streamable_http(tmp_path: Path) -> None:
    """``--http`` serves streamable HTTP on 127.0.0.1; the SDK client talks to it by URL."""
    port = _free_port()
    command = [sys.executable, "-m", "memfs.cli", "mcp", str(tmp_path / "ws"), "--create"]
    proc = subprocess.Popen(
        [*command, "--http", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )

    async def go() -> None:
        url = f"http://127.0.0.1:{port}/mcp"
        with anyio.fail_after(60):
            while True:  # wait for uvicorn to listen
                try:
                    stream = await anyio.connect_tcp("127.0.0.1", port)
                    await stream.aclose()
                    break
                except OSError:
                    assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
                    await anyio.sleep(0.2)
        async with Client(url, read_timeout_seconds=60) as client:
            assert [t.name for t in (await client.list_tools()).tools] == list(FILE_TOOL_NAMES)
            wrote = await client.call_tool("write_file", {"path": INDEX_FILE, "content": INDEX})
            assert not wrote.is_error
            assert resource_text(await client.read_resource(INDEX_URI)) == INDEX

    try:
        anyio.run(go)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert (tmp_path / "ws" / INDEX_FILE).read_text() == INDEX


def test_memory_file_names_outside_ascii_are_percent_encoded_uris(fs: MemFS) -> None:
    fs.pipe_file("memory/使用者 角色.md", ROLE.encode())

    async def body(client: Client) -> None:
        uris = [r.uri for r in (await client.list_resources()).resources]
        assert uris == [
            INDEX_URI,
            "memfs:///memory/%E4%BD%BF%E7%94%A8%E8%80%85%20%E8%A7%92%E8%89%B2.md",
        ]
        text = resource_text(await client.read_resource(uris[1]))
        assert text == f"{reminder_text(64)}\n{ROLE}"

    connect(fs, body)
