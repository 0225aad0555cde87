"""Each MCP handler called as a function, with a :class:`ServerState` and no server running."""

from __future__ import annotations

import errno
from types import SimpleNamespace
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")

import mcp_types as types
from mcp.shared.exceptions import MCPError
from memfs import INDEX_FILE, FsspecFileStore, InMemoryFileStore, MemFS, memory_prompt

from memfs_mcp import server
from memfs_mcp.server import ServerState
from tests.conftest import TODAY

ROLE = (
    "---\nname: user-role\ndescription: The user is a process engineer\nmetadata:\n"
    "  type: user\n  recorded: 2020-01-01\n---\nThe user is a process engineer.\n"
)


def ctx(name: str | None = None, version: str | None = None) -> Any:
    """A request context as far as the handlers read it: the client's initialize parameters."""
    info = None if name is None else SimpleNamespace(name=name, version=version)
    params = SimpleNamespace(client_info=info)
    return SimpleNamespace(session=SimpleNamespace(client_params=params))


def run(handler: Any, state: ServerState, params: Any, context: Any = None) -> Any:
    async def go() -> Any:
        return await handler(state, context or ctx(), params)

    return anyio.run(go)


def call(state: ServerState, name: str, context: Any = None, **arguments: Any) -> Any:
    params = types.CallToolRequestParams(name=name, arguments=arguments)
    return run(server.call_tool, state, params, context)


def text(result: types.CallToolResult) -> str:
    (block,) = result.content
    assert isinstance(block, types.TextContent)
    return block.text


@pytest.fixture
def fs() -> MemFS:
    return MemFS(InMemoryFileStore(), clock=lambda: TODAY)


@pytest.fixture
def state(fs: MemFS) -> ServerState:
    fs.migrating().pipe_file("memory/user-role.md", ROLE.encode())  # an old memory, kept old
    return ServerState.of(fs)


def test_state_of_names_the_mcp_actor_and_serves_every_tool(state: ServerState) -> None:
    assert state.fs.actor == server.MCP_ACTOR
    assert state.served == (*state.file_tools, server.SEARCH_TOOL)
    assert state.executors == {server.MCP_ACTOR: state.executor}
    assert state.target is None  # an in-memory store has no URL to name
    assert server.instructions(state).startswith("File tools over one item workspace (read-write)")


def test_a_remote_store_is_named_by_its_url() -> None:
    import fsspec

    memory = fsspec.filesystem("memory", skip_instance_cache=True)
    state = ServerState.of(MemFS(FsspecFileStore(memory, root="/items/42")))
    assert state.target == "memory:///items/42"


def test_list_tools_lists_the_served_tools_with_annotations(state: ServerState) -> None:
    listed = run(server.list_tools, state, None)
    assert [t.name for t in listed.tools] == list(state.served)
    by_name = {t.name: t for t in listed.tools}
    assert by_name["read_file"].annotations == server.tool_annotations("read_file")
    read_only = ServerState.of(state.fs.read_only())
    assert [t.name for t in run(server.list_tools, read_only, None).tools] == list(read_only.served)
    assert "write_file" not in read_only.served


def test_call_tool_runs_the_executor_and_marks_errors(state: ServerState) -> None:
    read = call(state, "read_file", path="memory/user-role.md")
    assert not read.is_error and text(read).endswith(ROLE)
    missing = call(state, "read_file", path="memory/none.md")
    assert missing.is_error and text(missing).startswith("Error: No such file: 'memory/none.md'.")
    with pytest.raises(MCPError, match="Unknown tool 'save_skill'"):
        call(state, "save_skill")
    with pytest.raises(MCPError, match="serves the workspace read-only"):
        call(ServerState.of(state.fs.read_only()), "write_file", path="x.md", content="x")


def test_call_tool_search_runs_the_memory_search(state: ServerState) -> None:
    found = call(state, "search_memory", pattern="process engineer")
    assert not found.is_error
    assert "memory/user-role.md:" in text(found)
    bad = server.run_search(state.fs, {"pattern": 3})
    assert bad.is_error and text(bad).startswith("Error: invalid arguments for search_memory:")


def test_executor_for_keeps_one_executor_per_client_name(state: ServerState) -> None:
    first = state.executor_for(ctx("claude-code", "2.1"))
    assert first is state.executor_for(ctx("claude-code", "2.1"))
    assert first.fs.actor == "mcp client claude-code 2.1"
    assert state.executor_for(ctx()) is state.executor  # no client info: the server's own
    named = ServerState.of(MemFS(InMemoryFileStore()).acting_as("app"))
    assert named.executor_for(ctx("claude-code")) is named.executor


def test_a_write_through_call_tool_names_the_client(state: ServerState) -> None:
    wrote = call(state, "write_file", ctx("inspector", "1"), path="notes.md", content="n\n")
    assert not wrote.is_error, text(wrote)
    assert state.executor_for(ctx("inspector", "1")).fs.actor == "mcp client inspector 1"


def test_memory_files_reads_titles_and_descriptions(state: ServerState) -> None:
    state.fs.pipe_file("memory/plain.md", b"no frontmatter\n")
    assert server.memory_files(state) == [
        ("memory/plain.md", None, None),
        ("memory/user-role.md", "user-role", "The user is a process engineer"),
    ]


def test_list_resources_has_the_index_first(state: ServerState) -> None:
    listed = run(server.list_resources, state, None)
    assert [str(r.uri) for r in listed.resources] == [
        server.INDEX_URI,
        "memfs:///memory/user-role.md",
    ]


def test_list_resource_templates_names_the_memory_directory(state: ServerState) -> None:
    (template,) = run(server.list_resource_templates, state, None).resource_templates
    assert template.uri_template == "memfs:///memory/{name}"


def test_read_memory_resource_reads_through_memfs(state: ServerState) -> None:
    assert server.read_memory_resource(state, server.INDEX_URI) == ""  # not written yet
    stale = server.read_memory_resource(state, "memfs:///memory/user-role.md")
    assert stale.startswith("<system-reminder>") and stale.endswith(ROLE)
    with pytest.raises(MCPError, match="No memory file"):
        server.read_memory_resource(state, "memfs:///memory/none.md")
    with pytest.raises(MCPError, match="not a memory resource"):
        server.read_memory_resource(state, "memfs:///notes.txt")
    with pytest.raises(MCPError, match="resources start"):
        server.read_memory_resource(state, "file:///etc/passwd")


def test_read_resource_wraps_the_text(state: ServerState) -> None:
    state.fs.pipe_file(INDEX_FILE, b"- [role](memory/user-role.md)\n")
    params = types.ReadResourceRequestParams(uri=server.INDEX_URI)
    (contents,) = run(server.read_resource, state, params).contents
    assert contents.text == "- [role](memory/user-role.md)\n"


class _Failing(InMemoryFileStore):
    def read(self, path: str) -> bytes:
        raise OSError(errno.EIO, "backend down")


def test_backend_error_is_one_protocol_error_line() -> None:
    state = ServerState.of(MemFS(_Failing()))
    error = server.backend_error(state, "Reading x", OSError(errno.EIO, "down\nfor now"))
    assert str(error) == "Reading x failed: down for now"
    params = types.ReadResourceRequestParams(uri=server.INDEX_URI)
    with pytest.raises(MCPError) as e:
        run(server.read_resource, state, params)
    assert str(e.value) == f"Reading {server.INDEX_URI} failed: backend down"


def test_prompts_are_the_memory_prompt(state: ServerState) -> None:
    (prompt,) = run(server.list_prompts, state, None).prompts
    assert prompt.name == server.PROMPT_NAME
    got = run(server.get_prompt, state, types.GetPromptRequestParams(name="memory"))
    (message,) = got.messages
    assert message.content.text == memory_prompt(state.manifest, layout=state.fs.layout)
    with pytest.raises(MCPError, match="Unknown prompt"):
        run(server.get_prompt, state, types.GetPromptRequestParams(name="other"))


def test_http_security_lets_only_the_server_s_own_address_through() -> None:
    settings = server.http_security(8766)
    assert settings.enable_dns_rebinding_protection
    assert settings.allowed_hosts == ["127.0.0.1:8766", "localhost:8766", "[::1]:8766"]
    assert settings.allowed_origins == [
        "http://127.0.0.1:8766",
        "http://localhost:8766",
        "http://[::1]:8766",
    ]
