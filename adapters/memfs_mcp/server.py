"""An MCP server over one item workspace: the file tools, ``MEMORY.md`` and the memory prompt.

Built on the official ``mcp`` SDK's low-level :class:`~mcp.server.Server`, because the tools come
from :mod:`memfs.tools` as schemas, not as Python functions:

* **tools** — the agent's file tools (``read_file`` … ``delete_file``): schemas from
  :func:`memfs.tools.file_tool_schemas`, calls run by :class:`memfs.tools.FileToolExecutor`.
  Annotations say honestly what each tool does; they are hints for the client, not the guard:
  a read-only server is a ``fs.read_only()`` mount, and it is the mount that refuses.
* **resources** — ``memfs:///MEMORY.md`` (the index, injected into every turn by the platform)
  and each memory file as ``memfs:///memory/<name>.md``, read through MemFS so a stale memory
  carries its reminder.
* **prompts** — ``memory``: the memory section of the system prompt
  (:func:`memfs.prompt.memory_prompt`).

Nothing here re-implements a rule: staleness, confinement, the credential guard, concurrency and
the read-only refusal all happen inside MemFS.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, unquote

import mcp_types as types
from anyio.to_thread import run_sync
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from memfs.errors import UnsafePathError
from memfs.filesystem import MemFS
from memfs.layout import INDEX_FILE
from memfs.manifest import AgentManifest
from memfs.paths import join, normalize
from memfs.prompt import memory_prompt
from memfs.tags import escape_for_agent
from memfs.tools import FILE_TOOLS, FileToolExecutor, file_tool_schemas

SERVER_NAME = "memfs"
URI_PREFIX = "memfs:///"
INDEX_URI = URI_PREFIX + INDEX_FILE
"""The index's URI in the platform layout; :func:`build_server` serves the layout's own."""
PROMPT_NAME = "memory"
MARKDOWN = "text/markdown"
RESOURCE_NOT_FOUND = -32002
"""The MCP specification's error code for a resource that does not exist."""

# What each file tool does to the workspace, as MCP annotations describe it. write_file replaces
# a whole file and edit_file rewrites text (both destructive); writing the same content twice
# or deleting twice changes nothing more (idempotent); an edit re-applied can match again.
_HINTS: dict[str, dict[str, bool]] = {
    "read_file": {"read_only_hint": True},
    "list_files": {"read_only_hint": True},
    "exists": {"read_only_hint": True},
    "write_file": {"destructive_hint": True, "idempotent_hint": True},
    "edit_file": {"destructive_hint": True, "idempotent_hint": False},
    "delete_file": {"destructive_hint": True, "idempotent_hint": True},
}
_WRITES = {t.name: t.writes for t in FILE_TOOLS}


def tool_annotations(name: str) -> types.ToolAnnotations:
    """The honest annotations of one file tool (unknown writers are assumed destructive)."""
    hints = _HINTS.get(name) or (
        {"destructive_hint": True, "idempotent_hint": False}
        if _WRITES.get(name, True)
        else {"read_only_hint": True}
    )
    read_only = hints.get("read_only_hint", False)
    return types.ToolAnnotations(
        title=name.replace("_", " "),
        read_only_hint=read_only,
        destructive_hint=None if read_only else hints["destructive_hint"],
        idempotent_hint=None if read_only else hints["idempotent_hint"],
        open_world_hint=False,
    )


def uri_of(path: str) -> str:
    """The resource URI of a workspace path (percent-encoded, so any file name is a valid URI)."""
    return URI_PREFIX + quote(path, safe="/")


def is_error_result(text: str) -> bool:
    """Whether an executor result is an error: the executor marks every one with ``Error: ``."""
    return text.startswith("Error: ")


def build_server(
    fs: MemFS,
    *,
    manifest: AgentManifest | None = None,
    name: str = SERVER_NAME,
) -> Server[Any]:
    """An MCP server for the workspace of ``fs`` (pass ``fs.read_only()`` to serve read-only)."""
    manifest = manifest or AgentManifest()
    fs = fs.acting_as("mcp client", unless_set=True)  # who the version history names
    layout = fs.layout
    index_path = layout.index_path
    index_uri = uri_of(index_path)
    memory_files_glob = layout.memory_path("<name>")
    executor = FileToolExecutor(fs, manifest)
    mode = "read-only: memory can be read, not written" if fs.is_read_only else "read-write"
    instructions = (
        f"File tools over one item workspace ({mode}). Memory lives in "
        f"{memory_files_glob} (one fact per file, YAML frontmatter) and the index {index_path}; "
        f"the '{PROMPT_NAME}' prompt says how to keep it. Memory files read back with a "
        "staleness reminder when they are older than a day."
    )

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        tools = []
        for schema in file_tool_schemas(executor.names):
            fn = schema["function"]
            tools.append(
                types.Tool(
                    name=fn["name"],
                    description=fn["description"],
                    input_schema=fn["parameters"],
                    annotations=tool_annotations(fn["name"]),
                )
            )
        return types.ListToolsResult(tools=tools)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        if params.name not in executor.names:
            raise MCPError(
                types.INVALID_PARAMS,
                f"Unknown tool {params.name!r}; this server has {', '.join(executor.names)}.",
            )
        text = await run_sync(executor.execute, params.name, params.arguments or {})
        return types.CallToolResult(
            content=[types.TextContent(text=text)], is_error=is_error_result(text)
        )

    def memory_files() -> list[str]:
        return sorted(p for p in fs.find(layout.memory_dir) if fs.is_memory_file(p))

    async def list_resources(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        resources = [
            types.Resource(
                name=index_path,
                title="Memory index",
                uri=index_uri,
                description=(
                    "The memory index: one line per memory, injected into every chat turn. "
                    "Empty until the first memory is indexed."
                ),
                mime_type=MARKDOWN,
            )
        ]
        for path in await run_sync(memory_files):
            # A file name may hold '<system-reminder>': the name is shown escaped, the URI
            # percent-encoded.
            resources.append(
                types.Resource(name=escape_for_agent(path), uri=uri_of(path), mime_type=MARKDOWN)
            )
        return types.ListResourcesResult(resources=resources)

    async def list_resource_templates(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(
            resource_templates=[
                types.ResourceTemplate(
                    name="memory-file",
                    uri_template=URI_PREFIX + join(layout.memory_dir, "{name}"),
                    description="One memory file, with its staleness reminder when it is old.",
                    mime_type=MARKDOWN,
                )
            ]
        )

    def read(uri: str) -> str:
        if not uri.startswith(URI_PREFIX):
            raise MCPError(
                types.INVALID_PARAMS, f"Unknown resource {uri!r}; resources start {URI_PREFIX}."
            )
        try:
            rel = normalize(unquote(uri[len(URI_PREFIX) :]))
        except UnsafePathError as e:
            raise MCPError(types.INVALID_PARAMS, str(e.strerror)) from e
        if rel != index_path and not fs.is_memory_file(rel):
            raise MCPError(
                types.INVALID_PARAMS,
                f"{uri!r} is not a memory resource: this server exposes {index_uri} and "
                f"{URI_PREFIX}{memory_files_glob}; use read_file for other files.",
            )
        try:
            data = fs.cat_file(rel)
        except FileNotFoundError as e:
            if rel == index_path:
                return ""  # no index yet: nothing is injected either
            raise MCPError(
                RESOURCE_NOT_FOUND, f"No memory file at {uri!r}; list resources to see them."
            ) from e
        return data.decode("utf-8", errors="replace")

    async def read_resource(
        ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        text = await run_sync(read, params.uri)
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=params.uri, mime_type=MARKDOWN, text=text)]
        )

    prompt_description = (
        "The memory section of the system prompt: how to write, index and trust memory files"
        + (" (this workspace is read-only)." if fs.is_read_only else ".")
    )

    async def list_prompts(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        return types.ListPromptsResult(
            prompts=[types.Prompt(name=PROMPT_NAME, description=prompt_description)]
        )

    async def get_prompt(
        ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        if params.name != PROMPT_NAME:
            raise MCPError(
                types.INVALID_PARAMS, f"Unknown prompt {params.name!r}; this server has 'memory'."
            )
        text = memory_prompt(manifest, layout=fs.layout, read_only=fs.is_read_only)
        return types.GetPromptResult(
            description=prompt_description,
            messages=[types.PromptMessage(role="user", content=types.TextContent(text=text))],
        )

    return Server(
        name,
        instructions=instructions,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_list_resource_templates=list_resource_templates,
        on_read_resource=read_resource,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
    )
