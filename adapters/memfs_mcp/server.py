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

import functools
import logging
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as package_version
from typing import Any
from urllib.parse import quote, unquote

import mcp_types as types
from anyio.to_thread import run_sync
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import MCPError
from memfs import (
    DISTRIBUTION,
    FILE_TOOLS,
    INDEX_FILE,
    REMEMBER,
    REMEMBER_TOOL,
    UNKNOWN_ACTOR,
    AgentManifest,
    FileToolExecutor,
    MemFS,
    SearchArgs,
    SearchPatternError,
    UnsafePathError,
    describe_search,
    describe_storage_failure,
    escape_for_agent,
    file_tool_schemas,
    format_matches,
    join,
    memory_prompt,
    normalize,
    parse_memory,
    search_memory,
    tool_schema,
)
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
    # a new file under a name no file has, and one line appended: nothing is replaced
    REMEMBER: {"destructive_hint": False, "idempotent_hint": False},
}
_WRITES = {t.name: t.writes for t in (*FILE_TOOLS, REMEMBER_TOOL)}


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


def tools_served(fs: MemFS) -> tuple[str, ...]:
    """The tools a server over ``fs`` lists: all of them, or on a read-only mount only those
    that read (the mount would refuse the others; listing them would only invite a refusal)."""
    tools = (*FILE_TOOLS, REMEMBER_TOOL)
    names = [t.name for t in tools if not (fs.is_read_only and t.writes)]
    return (*names, SEARCH_TOOL)


def run_search(fs: MemFS, arguments: dict[str, Any]) -> types.CallToolResult:
    """One ``search_memory`` call: its arguments checked, its matches as grep shows them."""
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
    text = describe_search(result)
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


_MAX_EXECUTORS = 64
"""Client names a server keeps an executor for; the names come from clients, so the table is
bounded (cleared when full)."""


@dataclass
class ServerState:
    """What every handler of one server reads: the workspace, the manifest, the tools served and
    one file-tool executor per client name. :meth:`of` builds it as :func:`build_server` does;
    a test builds one and calls a handler with it, no server running."""

    fs: MemFS
    manifest: AgentManifest
    served: tuple[str, ...]
    actor_given: bool
    """An embedding app named the actor: every change keeps that name."""
    executor: FileToolExecutor
    """The executor acting as the server's own actor (no client name, or a read-only mount)."""
    executors: dict[str, FileToolExecutor] = field(default_factory=dict)

    @classmethod
    def of(cls, fs: MemFS, manifest: AgentManifest | None = None) -> ServerState:
        actor_given = fs.actor != UNKNOWN_ACTOR
        fs = fs.acting_as(MCP_ACTOR, unless_set=True)  # who the version history names
        manifest = manifest or AgentManifest()
        served = tools_served(fs)
        tools = [n for n in served if n != SEARCH_TOOL]
        executor = FileToolExecutor(fs, manifest, tools=tools)
        return cls(fs, manifest, served, actor_given, executor, {fs.actor: executor})

    @property
    def file_tools(self) -> list[str]:
        return [n for n in self.served if n != SEARCH_TOOL]

    @property
    def index_path(self) -> str:
        return self.fs.layout.index_path

    @property
    def index_uri(self) -> str:
        return uri_of(self.index_path)

    @property
    def memory_files_glob(self) -> str:
        return self.fs.layout.memory_path("<name>")

    @property
    def target(self) -> str | None:
        """The workspace's URL on a remote store, which a storage failure names (None locally:
        a host path is not for an agent to read)."""
        url = getattr(self.fs.store, "url", None)
        return url if isinstance(url, str) else None

    def executor_for(self, ctx: ServerRequestContext[Any]) -> FileToolExecutor:
        """The file tools acting as this connection's client (one executor per client name)."""
        if self.actor_given or self.fs.is_read_only:
            return self.executor
        actor = client_actor(ctx)
        if actor not in self.executors:
            if len(self.executors) > _MAX_EXECUTORS:
                self.executors.clear()
            fs = self.fs.acting_as(actor)
            self.executors[actor] = FileToolExecutor(fs, self.manifest, tools=self.file_tools)
        return self.executors[actor]

    def failure(self, action: str, e: Exception) -> str:
        """One line for a failure no tool explains (a store error, a lost connection)."""
        logger.debug("%s failed", action, exc_info=True)
        return one_line(describe_storage_failure(e, self.target, action=action))


def instructions(state: ServerState) -> str:
    """What the initialize result tells the client about this workspace."""
    fs = state.fs
    mode = "read-only: memory can be read, not written" if fs.is_read_only else "read-write"
    return (
        f"File tools over one item workspace ({mode}). Memory lives in "
        f"{state.memory_files_glob} (one fact per file, YAML frontmatter) and the index "
        f"{state.index_path}; the '{PROMPT_NAME}' prompt says how to keep it; {SEARCH_TOOL} "
        "finds memories by text. Memory files read back with a staleness reminder when they are "
        "older than a day."
    )


# -- tools --------------------------------------------------------------------------------------


async def list_tools(
    state: ServerState,
    ctx: ServerRequestContext[Any],
    params: types.PaginatedRequestParams | None,
) -> types.ListToolsResult:
    schemas = file_tool_schemas(state.file_tools)
    schemas.append(tool_schema(SEARCH_TOOL, SEARCH_DESCRIPTION, SearchArgs))
    tools = [
        types.Tool(
            name=fn["name"],
            description=fn["description"],
            input_schema=fn["parameters"],
            annotations=tool_annotations(fn["name"]),
        )
        for fn in (schema["function"] for schema in schemas)
    ]
    return types.ListToolsResult(tools=tools)


def _refuse_unserved(state: ServerState, name: str) -> MCPError:
    served = ", ".join(state.served)
    if name in _WRITES:  # a file tool this read-only server does not list
        return MCPError(
            types.INVALID_PARAMS,
            f"Tool {name!r} is not available: this MCP server serves the workspace read-only, "
            f"so it lists only {served}. To write memory, use a server started without "
            "--read-only.",
        )
    return MCPError(types.INVALID_PARAMS, f"Unknown tool {name!r}; this server has {served}.")


async def call_tool(
    state: ServerState, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
) -> types.CallToolResult:
    name, arguments = params.name, params.arguments or {}
    if name not in state.served:
        raise _refuse_unserved(state, name)
    try:
        if name == SEARCH_TOOL:
            return await run_sync(run_search, state.fs, arguments)
        text = await run_sync(state.executor_for(ctx).execute, name, arguments)
    except Exception as e:  # the backend failed in a way no tool explains
        return _error(f"Error: {state.failure(name, e)}")
    if is_error_result(text):
        return _error(text)
    return types.CallToolResult(content=[types.TextContent(text=text)], is_error=False)


# -- resources ----------------------------------------------------------------------------------


def memory_files(state: ServerState) -> list[tuple[str, str | None, str | None]]:
    """Each memory file with the name and description of its frontmatter."""
    fs, out = state.fs, []
    for path in sorted(p for p in fs.find(fs.layout.memory_dir) if fs.is_memory_file(p)):
        try:
            record = parse_memory(fs.raw.cat_file(path), path)
        except (FileNotFoundError, UnsafePathError):
            continue  # removed, or swapped for a link, since it was listed
        title = record.name if record.has_frontmatter else None
        out.append((path, title, record.description))
    return out


def backend_error(state: ServerState, action: str, e: Exception) -> MCPError:
    """A resource request's backend failure as a protocol error of one line."""
    return MCPError(types.INTERNAL_ERROR, escape_for_agent(state.failure(action, e)))


def _index_resource(state: ServerState) -> types.Resource:
    return types.Resource(
        name=state.index_path,
        title="Memory index",
        uri=state.index_uri,
        description=(
            "The memory index: one line per memory, injected into every chat turn. "
            "Empty until the first memory is indexed."
        ),
        mime_type=MARKDOWN,
    )


async def list_resources(
    state: ServerState,
    ctx: ServerRequestContext[Any],
    params: types.PaginatedRequestParams | None,
) -> types.ListResourcesResult:
    try:
        files = await run_sync(memory_files, state)
    except Exception as e:
        raise backend_error(state, "Listing the memory files", e) from None
    # A name, title or description may hold '<system-reminder>': each is shown escaped, the
    # URI percent-encoded.
    resources = [_index_resource(state)] + [
        types.Resource(
            name=escape_for_agent(path),
            title=None if title is None else escape_for_agent(title),
            description=None if description is None else escape_for_agent(description),
            uri=uri_of(path),
            mime_type=MARKDOWN,
        )
        for path, title, description in files
    ]
    return types.ListResourcesResult(resources=resources)


async def list_resource_templates(
    state: ServerState,
    ctx: ServerRequestContext[Any],
    params: types.PaginatedRequestParams | None,
) -> types.ListResourceTemplatesResult:
    return types.ListResourceTemplatesResult(
        resource_templates=[
            types.ResourceTemplate(
                name="memory-file",
                uri_template=URI_PREFIX + join(state.fs.layout.memory_dir, "{name}"),
                description="One memory file, with its staleness reminder when it is old.",
                mime_type=MARKDOWN,
            )
        ]
    )


def _resource_path(state: ServerState, uri: str) -> str:
    """The workspace path a resource URI names, when it is one this server exposes."""
    if not uri.startswith(URI_PREFIX):
        raise MCPError(
            types.INVALID_PARAMS, f"Unknown resource {uri!r}; resources start {URI_PREFIX}."
        )
    try:
        rel = normalize(unquote(uri[len(URI_PREFIX) :]))
    except UnsafePathError as e:
        raise MCPError(types.INVALID_PARAMS, str(e.strerror)) from e
    if rel != state.index_path and not state.fs.is_memory_file(rel):
        raise MCPError(
            types.INVALID_PARAMS,
            f"{uri!r} is not a memory resource: this server exposes {state.index_uri} and "
            f"{URI_PREFIX}{state.memory_files_glob}; use read_file for other files.",
        )
    return rel


def read_memory_resource(state: ServerState, uri: str) -> str:
    """The text of the index or a memory file, read through MemFS (a stale memory carries its
    reminder); a missing index reads as empty, as the context block and read_file read it."""
    rel = _resource_path(state, uri)
    try:
        data = state.fs.cat_file(rel)
    except UnsafePathError as e:  # a link or special file where a memory file should be
        raise MCPError(types.INVALID_PARAMS, str(e.strerror)) from e
    except FileNotFoundError as e:
        if rel == state.index_path and e.filename == rel:
            return ""  # no index yet: nothing is injected either
        raise MCPError(
            RESOURCE_NOT_FOUND, f"No memory file at {uri!r}; list resources to see them."
        ) from e
    return data.decode("utf-8", errors="replace")


async def read_resource(
    state: ServerState, ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
) -> types.ReadResourceResult:
    try:
        text = await run_sync(read_memory_resource, state, params.uri)
    except MCPError:
        raise
    except Exception as e:
        raise backend_error(state, f"Reading {params.uri}", e) from None
    return types.ReadResourceResult(
        contents=[types.TextResourceContents(uri=params.uri, mime_type=MARKDOWN, text=text)]
    )


# -- prompts ------------------------------------------------------------------------------------


def prompt_description(state: ServerState) -> str:
    return "The memory section of the system prompt: how to write, index and trust memory files" + (
        " (this workspace is read-only)." if state.fs.is_read_only else "."
    )


async def list_prompts(
    state: ServerState,
    ctx: ServerRequestContext[Any],
    params: types.PaginatedRequestParams | None,
) -> types.ListPromptsResult:
    return types.ListPromptsResult(
        prompts=[types.Prompt(name=PROMPT_NAME, description=prompt_description(state))]
    )


async def get_prompt(
    state: ServerState, ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams
) -> types.GetPromptResult:
    if params.name != PROMPT_NAME:
        raise MCPError(
            types.INVALID_PARAMS, f"Unknown prompt {params.name!r}; this server has 'memory'."
        )
    fs = state.fs
    text = memory_prompt(state.manifest, layout=fs.layout, read_only=fs.is_read_only)
    return types.GetPromptResult(
        description=prompt_description(state),
        messages=[types.PromptMessage(role="user", content=types.TextContent(text=text))],
    )


# -- the server ---------------------------------------------------------------------------------


def build_server(
    fs: MemFS,
    *,
    manifest: AgentManifest | None = None,
    name: str = SERVER_NAME,
) -> Server[Any]:
    """An MCP server for the workspace of ``fs`` (pass ``fs.read_only()`` to serve read-only)."""
    state = ServerState.of(fs, manifest)
    bound = functools.partial
    return Server(
        name,
        version=server_version(),
        instructions=instructions(state),
        on_list_tools=bound(list_tools, state),
        on_call_tool=bound(call_tool, state),
        on_list_resources=bound(list_resources, state),
        on_list_resource_templates=bound(list_resource_templates, state),
        on_read_resource=bound(read_resource, state),
        on_list_prompts=bound(list_prompts, state),
        on_get_prompt=bound(get_prompt, state),
    )


def http_security(port: int) -> TransportSecuritySettings:
    """The HTTP transport's DNS-rebinding guard: only the server's own address passes.

    ``Host`` must be ``127.0.0.1``, ``localhost`` or ``[::1]`` at ``port``; an ``Origin``, which
    a browser sends, must be the same address (``http://localhost:PORT``). A page from another
    local server (``http://localhost:3000``) is refused with 403: the SDK's default lets any
    localhost port through, and any local web page could then drive the file tools. A client
    that sends no ``Origin`` (every non-browser MCP client) is not affected.
    """
    hosts = [f"{host}:{port}" for host in ("127.0.0.1", "localhost", "[::1]")]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=hosts,
        allowed_origins=[f"http://{host}" for host in hosts],
    )
