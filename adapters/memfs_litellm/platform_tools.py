"""The platform's other tools: the competitors memory writes lose to.

On the platform a small model that should have written memory called ``save_skill`` instead,
with 18 tools on the table and ~79% of the system prompt being their prose listing. An
evaluation that offers only the file tools measures a different prompt, so these are shipped
with realistic descriptions and argument schemas. Their calls are **recorded, not executed**:
:class:`PlatformToolRecorder` validates the arguments like the real platform would and answers
with the acknowledgement an agent would see, so a model that picks ``save_skill`` for an
item-local fact carries on exactly as it would on the platform.

``format_tools_for_prompt`` renders the prose tool list the platform appends to the system
prompt ("so small local LLMs don't confuse provisioned function tools with shell binaries").
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from memfs import (
    FILE_TOOL_NAMES,
    MEMORY_SAVERS,
    ToolCallError,
    file_tool_schemas,
    parse_arguments,
    tool_schema,
)
from pydantic import BaseModel, ConfigDict, Field, ValidationError


class _Args(BaseModel):
    model_config = ConfigDict(extra="ignore")


class SaveSkillArgs(_Args):
    name: str = Field(description="Short kebab-case name of the skill, e.g. 'spc-chart-review'.")
    description: str = Field(
        description="One sentence saying when the skill applies; shown to every agent that "
        "could use it, in every item."
    )
    instructions: str = Field(
        description="The method itself, as numbered steps in Markdown. Write it so an agent in "
        "a different item can follow it without this conversation."
    )
    tags: list[str] = Field(default_factory=list, description="Optional topic tags.")


class SaveWorkflowArgs(_Args):
    name: str = Field(description="Short name of the workflow, e.g. 'weekly-yield-report'.")
    description: str = Field(description="What the workflow produces and when it should run.")
    steps: list[str] = Field(
        description="Ordered steps; each step is an instruction an agent runs with the "
        "workflow's tools."
    )
    schedule: str | None = Field(
        default=None,
        description="Optional cron expression (UTC), e.g. '0 8 * * 1' for Mondays 08:00.",
    )


class CreateContextCardArgs(_Args):
    term: str = Field(description="The term, acronym or name being defined, e.g. 'Cpk'.")
    definition: str = Field(description="A definition that holds in every item of the workspace.")
    aliases: list[str] = Field(default_factory=list, description="Other spellings or synonyms.")
    collection: str | None = Field(
        default=None, description="Glossary collection to file it under; default: workspace."
    )


class UpdateContextCardArgs(_Args):
    card_id: str = Field(description="Id of the existing card, as returned by create_context_card.")
    definition: str | None = Field(default=None, description="Replacement definition.")
    aliases: list[str] | None = Field(default=None, description="Replacement alias list.")


class RequestWikiUpdateArgs(_Args):
    page: str = Field(description="Title of the wiki page to create or change.")
    change: str = Field(
        description="The proposed text or change, in Markdown. Reviewed by a wiki editor "
        "before it is published to everyone."
    )
    rationale: str = Field(description="Why the change is correct; cite sources.")


class ResolveCollectionArgs(_Args):
    query: str = Field(
        description="Name or description of the knowledge-base collection the user refers "
        "to, e.g. 'plant A line 3 QA reports'."
    )


class TodoItem(_Args):
    text: str = Field(description="What has to be done.")
    status: Literal["pending", "in_progress", "done"] = Field(
        default="pending", description="Current state of the item."
    )


class UpdateTodosArgs(_Args):
    todos: list[TodoItem] = Field(
        description="The complete, updated to-do list of this conversation (replaces the old one)."
    )


class AskKnowledgeBaseArgs(_Args):
    question: str = Field(description="A self-contained question in natural language.")
    collection: str | None = Field(
        default=None,
        description="Collection id from resolve_collection; omit to search every collection.",
    )
    top_k: int = Field(default=5, ge=1, le=20, description="How many passages to return.")


class AskWikiArgs(_Args):
    question: str = Field(description="A self-contained question about the organisation's wiki.")


class WebSearchArgs(_Args):
    query: str = Field(description="Search engine query.")
    max_results: int = Field(default=5, ge=1, le=10, description="How many results to return.")


class CreateChartArgs(_Args):
    title: str = Field(description="Chart title.")
    kind: Literal["line", "bar", "scatter", "control"] = Field(
        description="Chart type; 'control' draws an SPC chart with mean and ±3σ limits."
    )
    data_path: str = Field(description="Workspace path of a CSV file with the data.")
    x: str = Field(description="Column for the x axis.")
    y: list[str] = Field(description="Column(s) for the y axis.")


class RunWorkflowArgs(_Args):
    name: str = Field(description="Name of a saved workflow to run now in this item.")
    inputs: dict[str, Any] = Field(
        default_factory=dict, description="Inputs the workflow declares, by name."
    )


@dataclass(frozen=True)
class PlatformTool:
    name: str
    description: str
    args: type[_Args]
    ack: str
    """The acknowledgement returned to the model; formatted with the validated arguments."""


COMPETING_TOOLS: tuple[PlatformTool, ...] = (
    PlatformTool(
        "save_skill",
        "Save a reusable skill: a method or procedure that works the same way in any item of "
        "this workspace. Skills are listed (name + description) in the system prompt of every "
        "agent in every item, so only save methods that are general and not specific to this "
        "item. Use this when the user teaches you how to do a kind of task.",
        SaveSkillArgs,
        "Skill '{name}' saved. It is now available to agents in every item of this workspace.",
    ),
    PlatformTool(
        "save_workflow",
        "Save an automated workflow: an ordered list of agent steps that can run on demand or "
        "on a schedule, in any item. Use this when the user wants something done repeatedly "
        "or automatically. Workflows run with read-only access to the item's files.",
        SaveWorkflowArgs,
        "Workflow '{name}' saved. Run it with run_workflow or from the Workflows panel.",
    ),
    PlatformTool(
        "create_context_card",
        "Create a context card: a glossary entry (term + definition) shared by all items of "
        "the workspace and shown to agents when the term appears. Use for vocabulary, "
        "acronyms and names whose meaning does not depend on the item.",
        CreateContextCardArgs,
        "Context card created for '{term}' (id card_{term}).",
    ),
    PlatformTool(
        "update_context_card",
        "Change the definition or aliases of an existing context card. Affects every item "
        "that uses the card.",
        UpdateContextCardArgs,
        "Context card {card_id} updated.",
    ),
    PlatformTool(
        "request_wiki_update",
        "Propose a change to the organisation's wiki (domain knowledge that holds across "
        "items). The proposal is queued for review by a wiki editor; it is not published "
        "immediately.",
        RequestWikiUpdateArgs,
        "Wiki update for '{page}' submitted for review.",
    ),
    PlatformTool(
        "resolve_collection",
        "Find the knowledge-base collection the user means, from a name or description. "
        "Returns the collection id to pass to ask_knowledge_base. Call this before "
        "ask_knowledge_base when the user names a document set.",
        ResolveCollectionArgs,
        "No collection matches '{query}'. Available collections: 'general'.",
    ),
    PlatformTool(
        "update_todos",
        "Replace the to-do list of this conversation. Use it to plan multi-step work and to "
        "show the user progress; mark items in_progress and done as you go.",
        UpdateTodosArgs,
        "To-do list updated.",
    ),
    PlatformTool(
        "ask_knowledge_base",
        "Search the uploaded documents of the knowledge base (KB collections shared across "
        "items) and answer a question with cited passages.",
        AskKnowledgeBaseArgs,
        "No passages found for: {question}",
    ),
    PlatformTool(
        "ask_wiki",
        "Ask the organisation's wiki a question; answers come with links to wiki pages.",
        AskWikiArgs,
        "The wiki has no page that answers: {question}",
    ),
    PlatformTool(
        "web_search",
        "Search the public web. Returns titles, URLs and snippets. Only for information that "
        "is not in the item's files, the knowledge base or the wiki.",
        WebSearchArgs,
        "Web search is unavailable in this environment; no results for '{query}'.",
    ),
    PlatformTool(
        "create_chart",
        "Draw a chart from a CSV file in the item's workspace and attach it to the "
        "conversation as an image.",
        CreateChartArgs,
        "Chart '{title}' could not be drawn: {data_path} was not found.",
    ),
    PlatformTool(
        "run_workflow",
        "Run a saved workflow now, in this item, with the given inputs; returns its output.",
        RunWorkflowArgs,
        "No workflow named '{name}' exists in this workspace.",
    ),
)

COMPETING_TOOL_NAMES: tuple[str, ...] = tuple(t.name for t in COMPETING_TOOLS)
_BY_NAME = {t.name: t for t in COMPETING_TOOLS}

ToolSet = Literal["platform", "files-only"]


def competing_tool_schemas() -> list[dict[str, Any]]:
    return [tool_schema(t.name, t.description, t.args) for t in COMPETING_TOOLS]


PLATFORM_TOOLS: list[dict[str, Any]] = file_tool_schemas() + competing_tool_schemas()
"""The whole table the platform puts in front of an app agent: 6 file tools + 12 others = 18."""


def tool_schemas(
    tools: ToolSet = "platform", *, file_tools: bool = True, saver: str | None = None
) -> list[dict[str, Any]]:
    """The schemas one turn offers: file tools (when there is a workspace), the memory saver
    (``remember``, ``remember_facts`` or ``remember_by_kind``) after them when asked, and, for
    ``"platform"``, the competing tools."""
    names = [*FILE_TOOL_NAMES, *([saver] if saver else [])]
    out = file_tool_schemas(names) if file_tools else []
    if tools == "platform":
        out += competing_tool_schemas()
    elif tools != "files-only":
        raise ValueError(f"tools must be 'platform' or 'files-only', not {tools!r}.")
    return out


def format_tools_for_prompt(tools: list[dict[str, Any]]) -> str:
    """The prose tool list appended to the system prompt: name, description, JSON arguments."""
    if not tools:
        return ""
    lines = [
        "# Tools",
        "",
        "These are the function tools provisioned for you. Call them through the tool-calling "
        "interface with JSON arguments; they are not shell commands or programs.",
    ]
    for schema in tools:
        fn = schema.get("function", schema)
        lines += [
            "",
            f"## {fn['name']}",
            str(fn.get("description", "")).strip(),
            "Arguments (JSON schema):",
            json.dumps(fn.get("parameters", {}), ensure_ascii=False, separators=(", ", ": ")),
        ]
    return "\n".join(lines) + "\n"


class PlatformToolRecorder:
    """Answers calls to the competing tools without executing them; every call is kept."""

    names = COMPETING_TOOL_NAMES

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def execute(self, name: str, arguments: str | dict[str, Any] | None = None) -> str:
        tool = _BY_NAME.get(name)
        if tool is None:
            return f"Error: unknown tool {name!r}."
        try:
            raw = parse_arguments(name, arguments)
            args = tool.args.model_validate(raw)
        except ToolCallError as e:
            return f"Error: {e}"
        except ValidationError as e:
            missing = [".".join(map(str, x["loc"])) for x in e.errors() if x["type"] == "missing"]
            detail = (
                f"missing required argument(s) {', '.join(missing)}"
                if missing
                else "; ".join(x["msg"] for x in e.errors())
            )
            return f"Error: invalid arguments for {name}: {detail}."
        values = args.model_dump()
        self.calls.append((name, values))
        return tool.ack.format_map(values)  # each ack names only its own arguments (tested)


def is_file_tool(name: str) -> bool:
    """A tool run on the workspace: the six file tools and the memory savers."""
    return name in FILE_TOOL_NAMES or name in MEMORY_SAVERS


__all__ = [
    "COMPETING_TOOLS",
    "COMPETING_TOOL_NAMES",
    "PLATFORM_TOOLS",
    "PlatformToolRecorder",
    "competing_tool_schemas",
    "format_tools_for_prompt",
    "is_file_tool",
    "tool_schemas",
]
