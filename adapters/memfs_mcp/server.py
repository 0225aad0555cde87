"""An MCP server over one item workspace: the file tools, ``MEMORY.md`` and the memory prompt.

Built on the official ``mcp`` SDK's low-level :class:`~mcp.server.Server`, because the tools come
from :mod:`memfs.tools` as schemas, not as Python functions:

* **tools** — the agent's file tools (``read_file`` … ``delete_file``): schemas from
  :func:`memfs.tools.file_tool_schemas`, calls run by :class:`memfs.tools.FileToolExecutor`;
  and ``search_memory`` (:mod:`memfs.search`, the search ``memfs grep`` runs). Annotations say
  honestly what each tool does. A server over a read-only mount (``fs.read_only()``) lists only
  the tools that read; the mount is still what refuses a write, the listing only leaves out
  what would be refused.
* **resources** — ``memfs:///MEMORY.md`` (the index, injected into every turn by the platform)
  and each memory file as ``memfs:///memory/<name>.md`` with the title (``name``) and the
  description of its frontmatter, read through MemFS so a stale memory carries its reminder.
* **prompts** — ``memory``: the memory section of the system prompt
  (:func:`memfs.prompt.memory_prompt`).

Nothing here re-implements a rule: staleness, confinement, the credential guard, concurrency and
the read-only refusal all happen inside MemFS. A tool call that fails in the backend (a store
error, a lost connection) comes back as an ``isError`` result of one line, a resource read as a
protocol error of one line; neither prints a traceback.
"""

from __future__ import annotations

import logging
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as package_version
from typing import Any
from urllib.parse import quote, unquote

import mcp_types as types
from anyio.to_thread import run_sync
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from memfs.errors import UnsafePathError, message
from memfs.filesystem import UNKNOWN_ACTOR, MemFS
from memfs.layout import INDEX_FILE
from memfs.manifest import AgentManifest
from memfs.paths import join, normalize
from memfs.prompt import memory_prompt
from memfs.records import parse_memory
from memfs.search import SearchArgs, SearchPatternError, describe, format_matches, search_memory
from memfs.tags import escape_for_agent
from memfs.tools import FILE_TOOLS, FileToolExecutor, file_tool_schemas, tool_schema
from pydantic import ValidationError

logger = logging.getLogger(__name__)

SERVER_NAME = "memfs"
URI_PREFIX = "memfs:///"
INDEX_URI = URI_PREFIX + INDEX_FILE
"""The index's URI in the platform layout; :func:`build_server` serves the layout's own."""
PROMPT_NAME = "memory"
MARKDOWN = "text/markdown"
RESOURCE_NOT_FOUND = -32002
"""The MCP specification's error code for a resource that does not exist."""
DISTRIBUTION = "memfs-workspace"
SEARCH_TOOL = "search_memory"
SEARCH_LIMIT = 50
"""Matching lines a search_memory result shows; it says how many more there were."""
SEARCH_DESCRIPTION = (
    "Search the memory files (memory/*.md) for a text: their bodies and their frontmatter "
    "name and description. Returns path:line:text for each matching line, with context lines "
    "as path-line-text, from the stored files (no staleness reminder). Read a file with "
    "read_file for the whole memory."
)


def server_version() -> str:
    """The installed memfs version (serverInfo.version)."""
    try:
        return package_version(DISTRIBUTION)
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "0+unknown"


# What each file tool does to the workspace, as MCP annotations describe it. write_file replaces
# a whole file and edit_file rewrites text (both destructive); writing the same content twice
# or deleting twice changes nothing more (idempotent); an edit re-applied can match again.
_HINTS: dict[str, dict[str, bool]] = {
    SEARCH_TOOL: {"read_only_hint": True},
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


def one_line(text: str) -> str:
    return " ".join(text.split())


def _error(text: str) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(text=escape_for_agent(one_line(text)))], is_error=True
    )


def _backend_failure(action: str, e: Exception) -> str:
    """One line for a failure no tool explains (a store error, a lost connection)."""
    return f"{action} failed: {message(e) or type(e).__name__}"


def tools_served(fs: MemFS) -> tuple[str, ...]:
    """The tools a server over ``fs`` lists: all of them, or on a read-only mount only those
    that read (the mount would refuse the others; listing them would only invite a refusal)."""
    names = [t.name for t in FILE_TOOLS if not (fs.is_read_only and t.writes)]
    return (*names, SEARCH_TOOL)


def _search(fs: MemFS, arguments: dict[str, Any]) -> types.CallToolResult:
    try:
        args = SearchArgs.model_validate(arguments)
    except ValidationError as e:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'arguments'}: {err['msg']}"
            for err in e.errors()
        )
        return _error(f"Error: invalid arguments for {SEARCH_TOOL}: {problems}.")
    try:
        result = search_memory(
            fs,
            args.pattern,
            regex=args.regex,
            ignore_case=args.ignore_case,
            context=args.context,
            limit=SEARCH_LIMIT,
        )
    except SearchPatternError as e:
        return _error(f"Error: {e}")
    text = describe(result)
    if result.files:
        text += "\n" + format_matches(result)
    return types.CallToolResult(content=[types.TextContent(text=text)], is_error=False)


MCP_ACTOR = "mcp client"
"""Who the version history names for a change made through this server, before the client's
own name (``mcp client claude-code 2.1.332``)."""

_ACTOR_NAME_CHARS = 80


def client_actor(ctx: ServerRequestContext[Any]) -> str:
    """``mcp client`` followed by the name and version the client gave in ``initialize``
    (anything unprintable turned into a space, at most 80 characters), or alone when it gave
    none. A read-only server, or one whose MemFS already names an actor, keeps its own."""
    params = ctx.session.client_params
    info = params.client_info if params is not None else None
    if info is None:
        return MCP_ACTOR
    said = " ".join(part for part in (info.name, info.version) if part)
    label = " ".join("".join(c if c.isprintable() else " " for c in said).split())
    label = label[:_ACTOR_NAME_CHARS].rstrip()
    return f"{MCP_ACTOR} {label}" if label else MCP_ACTOR


def build_server(
    fs: MemFS,
    *,
    manifest: AgentManifest | None = None,
    name: str = SERVER_NAME,
) -> Server[Any]:
    """An MCP server for the workspace of ``fs`` (pass ``fs.read_only()`` to serve read-only)."""
    manifest = manifest or AgentManifest()
    actor_given = fs.actor != UNKNOWN_ACTOR  # an embedding app named the actor: it stays
    fs = fs.acting_as(MCP_ACTOR, unless_set=True)  # who the version history names
    layout = fs.layout
    index_path = layout.index_path
    index_uri = uri_of(index_path)
    memory_files_glob = layout.memory_path("<name>")
    served = tools_served(fs)
    file_tools = [n for n in served if n != SEARCH_TOOL]
    executor = FileToolExecutor(fs, manifest, tools=file_tools)
    executors: dict[str, FileToolExecutor] = {fs.actor: executor}

    def executor_for(ctx: ServerRequestContext[Any]) -> FileToolExecutor:
        """The file tools acting as this connection's client (one executor per client name)."""
        if actor_given or fs.is_read_only:
            return executor
        actor = client_actor(ctx)
        if actor not in executors:
            if len(executors) > 64:  # names come from clients: keep the table bounded
                executors.clear()
            executors[actor] = FileToolExecutor(fs.acting_as(actor), manifest, tools=file_tools)
        return executors[actor]

    mode = "read-only: memory can be read, not written" if fs.is_read_only else "read-write"
    instructions = (
        f"File tools over one item workspace ({mode}). Memory lives in "
        f"{memory_files_glob} (one fact per file, YAML frontmatter) and the index {index_path}; "
        f"the '{PROMPT_NAME}' prompt says how to keep it; {SEARCH_TOOL} finds memories by "
        "text. Memory files read back with a staleness reminder when they are older than a day."
    )

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        tools = []
        schemas = file_tool_schemas(executor.names)
        schemas.append(tool_schema(SEARCH_TOOL, SEARCH_DESCRIPTION, SearchArgs))
        for schema in schemas:
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
        name, arguments = params.name, params.arguments or {}
        if name not in served:
            if name in _WRITES:  # a file tool this read-only server does not list
                raise MCPError(
                    types.INVALID_PARAMS,
                    f"Tool {name!r} is not available: this MCP server serves the workspace "
                    f"read-only, so it lists only {', '.join(served)}. To write memory, use a "
                    "server started without --read-only.",
                )
            raise MCPError(
                types.INVALID_PARAMS,
                f"Unknown tool {name!r}; this server has {', '.join(served)}.",
            )
        try:
            if name == SEARCH_TOOL:
                return await run_sync(_search, fs, arguments)
            text = await run_sync(executor_for(ctx).execute, name, arguments)
        except Exception as e:  # the backend failed in a way no tool explains
            logger.debug("tool %s failed", name, exc_info=True)
            return _error(f"Error: {_backend_failure(name, e)}")
        if is_error_result(text):
            return _error(text)
        return types.CallToolResult(content=[types.TextContent(text=text)], is_error=False)

    def memory_files() -> list[tuple[str, str | None, str | None]]:
        """Each memory file with the name and description of its frontmatter."""
        out = []
        for path in sorted(p for p in fs.find(layout.memory_dir) if fs.is_memory_file(p)):
            try:
                record = parse_memory(fs.raw.cat_file(path), path)
            except (FileNotFoundError, UnsafePathError):
                continue  # removed, or swapped for a link, since it was listed
            title = record.name if record.has_frontmatter else None
            out.append((path, title, record.description))
        return out

    def backend_error(action: str, e: Exception) -> MCPError:
        logger.debug("%s failed", action, exc_info=True)
        return MCPError(
            types.INTERNAL_ERROR, escape_for_agent(one_line(_backend_failure(action, e)))
        )

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
        try:
            files = await run_sync(memory_files)
        except Exception as e:
            raise backend_error("Listing the memory files", e) from None
        for path, title, description in files:
            # A name, title or description may hold '<system-reminder>': each is shown
            # escaped, the URI percent-encoded.
            resources.append(
                types.Resource(
                    name=escape_for_agent(path),
                    title=None if title is None else escape_for_agent(title),
                    description=None if description is None else escape_for_agent(description),
                    uri=uri_of(path),
                    mime_type=MARKDOWN,
                )
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
        except UnsafePathError as e:  # a link or special file where a memory file should be
            raise MCPError(types.INVALID_PARAMS, str(e.strerror)) from e
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
        try:
            text = await run_sync(read, params.uri)
        except MCPError:
            raise
        except Exception as e:
            raise backend_error(f"Reading {params.uri}", e) from None
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
        version=server_version(),
        instructions=instructions,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_list_resource_templates=list_resource_templates,
        on_read_resource=read_resource,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
    )
