"""The agent's file tools over a :class:`~memfs.filesystem.MemFS`.

The platform's names: ``read_file``, ``write_file``, ``edit_file``, ``list_files``, ``exists``,
``delete_file``. Memory needs no other tool: the agent writes its memory files and the index
with these, mid-turn (docs/design.md says why).

Each tool's arguments are a pydantic model; :func:`file_tool_schemas` turns them into
OpenAI-format tool schemas, and :class:`FileToolExecutor` runs one call against a MemFS and
returns the string the model reads next. The rules stay in the filesystem: ``read_file`` reads
the decorated view (staleness reminder), ``edit_file`` matches against the raw stored bytes so a
reminder is never written back, and a read-only mount (workflow turns) refuses writes with the
filesystem's own ``PermissionError(EROFS)``, which the executor hands back as a tool result.

Two write-time levers help a small model (the manifest turns each off or on):

* **read before overwrite** — ``write_file`` first tries a create-only write; a path that is
  taken is overwritten only when this turn read it (or was shown it whole in its context
  block), and then only if its bytes are still the ones seen; otherwise the call is refused
  with what the file holds and what to do instead. ``edit_file`` needs no read: its
  ``old_string`` is the check.
* **the write receipt** (:mod:`memfs.receipt`) — a write or edit of a memory file or the index
  says what was stored and what is wrong with it; the opt-in index nudge adds the index line.
"""

from __future__ import annotations

import errno
import html
import json
import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, ValidationError, field_validator

from memfs import errors
from memfs.conflicts import content_sha256
from memfs.context import FILE_TAG, FRAMINGS, framed_body, index_budget_note
from memfs.errors import (
    PathConflictError,
    PreconditionFailedError,
    ToolCallError,
    describe_storage_failure,
    is_expected_failure,
)
from memfs.filesystem import MemFS
from memfs.layout import PLATFORM
from memfs.paths import normalize
from memfs.prompt import ADDED_RULES, appendix_a
from memfs.receipt import holds, write_receipt
from memfs.records import MemoryRecord, MemoryType, parse_memory
from memfs.staleness import split_view
from memfs.tags import escape_for_agent

if TYPE_CHECKING:
    from memfs.manifest import AgentManifest

MAX_READ_CHARS = 100_000
"""A read longer than this is cut, with a note, so one file cannot flood the context window."""

# Small models often say file_path / filename / text; accepting them costs nothing and saves a
# whole round trip on a 2-core CPU. The schema still advertises only the canonical name.
_PATH = AliasChoices("path", "file_path", "filepath", "filename", "file")


class _Args(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)


class ReadFileArgs(_Args):
    path: str = Field(
        validation_alias=_PATH,
        description="Workspace path of the file to read, e.g. 'MEMORY.md' or 'memory/role.md'.",
    )


class WriteFileArgs(_Args):
    path: str = Field(
        validation_alias=_PATH,
        description="Workspace path of the file to create or overwrite, e.g. 'memory/role.md'.",
    )
    content: str = Field(
        validation_alias=AliasChoices("content", "text", "contents", "data"),
        description="The complete new content of the file.",
    )


class EditFileArgs(_Args):
    path: str = Field(validation_alias=_PATH, description="Workspace path of the file to edit.")
    old_string: str = Field(
        validation_alias=AliasChoices("old_string", "old_str", "old", "search"),
        description="Exact text to replace; it must occur exactly once in the file.",
    )
    new_string: str = Field(
        validation_alias=AliasChoices("new_string", "new_str", "new", "replace"),
        description="Text to put in its place.",
    )


class ListFilesArgs(_Args):
    path: str = Field(
        default="",
        validation_alias=_PATH,
        description="Directory to list, relative to the workspace root; empty for the root.",
    )
    recursive: bool = Field(
        default=False, description="List every file below the directory, not only its children."
    )


class ExistsArgs(_Args):
    path: str = Field(validation_alias=_PATH, description="Workspace path to check.")


class DeleteFileArgs(_Args):
    path: str = Field(validation_alias=_PATH, description="Workspace path of the file to delete.")


_NAME_EXAMPLE = "deploy-freeze"
"""The memory name the remember tool's help and errors give as an example: no eval scenario's
fact, so the help never hands a model a scenario's answer."""


SavedType = Literal["project", "user", "feedback", "reference"]
"""The memory types (:data:`~memfs.records.MemoryType`) as the remember tools' schemas list them:
in the order the field's help describes them, the most common kind first. A small model forced
through the schema took its first value more often than the help warrants."""


class RememberArgs(_Args):
    name: str = Field(
        validation_alias=AliasChoices("name", "title"),
        description=f"A short name for this one fact, e.g. '{_NAME_EXAMPLE}'; the file is named "
        "after it.",
    )
    description: str = Field(
        validation_alias=AliasChoices("description", "summary"),
        description="One line saying what this memory holds; a later turn decides from it "
        "whether to read the memory.",
    )
    type: SavedType = Field(
        validation_alias=AliasChoices("type", "memory_type", "kind"),
        description="project: a fact about this item's work (most facts are); user: who the "
        "user is (their role, what they know); feedback: how the user wants the work done; "
        "reference: where to find something outside this item.",
    )
    body: str = Field(
        default="",
        validation_alias=AliasChoices("body", "content", "text"),
        description="The fact itself, as the user said it. For feedback, add a **Why:** line "
        "and a **How to apply:** line.",
    )
    hook: str = Field(
        default="",
        validation_alias=AliasChoices("hook", "index_hook"),
        description="A few words for this memory's line in the index; default: the description.",
    )

    @field_validator("type", mode="before")
    @classmethod
    def _lower(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value


class RememberFactsArgs(_Args):
    facts: list[RememberArgs] = Field(
        min_length=1,
        max_length=10,
        validation_alias=AliasChoices("facts", "memories"),
        description="One item per fact the user gave, each with its own name and type: a "
        "message with two facts gives two items.",
    )


_KINDS: dict[str, tuple[MemoryType, tuple[str, ...], str]] = {
    "about_this_work": (
        "project",
        ("project", "about_the_work", "work"),
        "Facts about this item's work: its sources, rules, decisions and dates (most facts are).",
    ),
    "about_the_user": (
        "user",
        ("user", "about_user"),
        "Facts about the user: their role, their goals, what they already know.",
    ),
    "how_to_work": (
        "feedback",
        ("feedback",),
        "Guidance or a correction the user gave about how you should work.",
    ),
    "where_to_look": (
        "reference",
        ("reference",),
        "Where something outside this item is found: a dashboard, a channel, a document.",
    ),
}
"""``remember_by_kind``'s lists: field → the memory type it stores, the other keys a model
sends for it, and its help."""


def _fact_texts(value: Any) -> Any:
    """A kind's facts as a list of strings: one string sent alone is a list of one; an item sent
    as an object (``{"fact": …}``, a ``remember`` item) gives its text; None gives no facts."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        out = []
        for item in value:
            if isinstance(item, dict):
                texts = [item[k] for k in _FACT_KEYS if isinstance(item.get(k), str)]
                item = texts[0] if texts else item
            out.append(item)
        return out
    return value


_FACT_KEYS = ("fact", "body", "content", "text", "description")
"""The keys an object sent in place of a fact's text may hold it under, most specific first."""


def _kind_field(kind: str) -> Any:
    """The argument of ``remember_by_kind`` that holds the facts of ``kind`` (:data:`_KINDS`)."""
    _, aliases, help = _KINDS[kind]
    return Field(
        default_factory=list,
        validation_alias=AliasChoices(kind, *aliases),
        description=help,
    )


def _every_list_required(schema: dict[str, Any]) -> None:
    schema["required"] = list(_KINDS)


class RememberByKindArgs(_Args):
    # A fact under a key that is no list would be lost: refused, naming the key and the lists.
    # The schema requires every list, so a grammar-forced call writes each one, if only as
    # [] (a small model left the user's list out, and the user's fact with it); a call that
    # omits one is still read, the list empty.
    model_config = ConfigDict(
        extra="forbid", populate_by_name=True, json_schema_extra=_every_list_required
    )

    about_this_work: list[str] = _kind_field("about_this_work")
    about_the_user: list[str] = _kind_field("about_the_user")
    how_to_work: list[str] = _kind_field("how_to_work")
    where_to_look: list[str] = _kind_field("where_to_look")

    _texts = field_validator(*_KINDS, mode="before")(_fact_texts)


@dataclass(frozen=True)
class FileTool:
    name: str
    description: str
    args: type[_Args]
    writes: bool


FILE_TOOLS: tuple[FileTool, ...] = (
    FileTool(
        "read_file",
        "Read a text file from this item's workspace. Memory files (memory/*.md) come back with "
        "a staleness reminder in front when they are older than a day; the reminder is not part "
        "of the file.",
        ReadFileArgs,
        writes=False,
    ),
    FileTool(
        "write_file",
        "Create or overwrite a file in this item's workspace with the given content. Parent "
        "directories are created as needed.",
        WriteFileArgs,
        writes=True,
    ),
    FileTool(
        "edit_file",
        "Replace one exact occurrence of old_string with new_string in a workspace file. "
        "old_string must match the stored file exactly once; read the file first.",
        EditFileArgs,
        writes=True,
    ),
    FileTool(
        "list_files",
        "List the files and directories in a workspace directory (directories end with '/').",
        ListFilesArgs,
        writes=False,
    ),
    FileTool(
        "exists",
        "Check whether a file or directory exists in this item's workspace.",
        ExistsArgs,
        writes=False,
    ),
    FileTool(
        "delete_file",
        "Delete a file from this item's workspace.",
        DeleteFileArgs,
        writes=True,
    ),
)

REMEMBER = "remember"
REMEMBER_TOOL = FileTool(
    REMEMBER,
    "Save ONE fact to memory: call it once per fact (two facts, two calls). The workspace "
    "writes the memory file (frontmatter, today's date, a safe file name that never replaces "
    "another memory) and adds its line to the memory index in the same call, so do not write "
    "memory files or the index yourself.",
    RememberArgs,
    writes=True,
)
"""The structured memory tool: offered beside the file tools where a surface asks for it
(:func:`file_tool_schemas` with ``names``); the six file tools stay the default table."""

REMEMBER_FACTS = "remember_facts"
REMEMBER_FACTS_TOOL = FileTool(
    REMEMBER_FACTS,
    "Save the user's facts to memory in one call: one item per fact, each with its own name "
    "and type (two facts, two items). The workspace writes each memory file (frontmatter, "
    "today's date, a safe file name that never replaces another memory) and adds its line to "
    "the memory index, so do not write memory files or the index yourself.",
    RememberFactsArgs,
    writes=True,
)
"""``remember`` taking a list of facts, one memory each: a measured option of the live check
(a small model sends two facts in one ``remember`` call), offered only where a caller names it."""

REMEMBER_BY_KIND = "remember_by_kind"
REMEMBER_BY_KIND_TOOL = FileTool(
    REMEMBER_BY_KIND,
    "Save the facts the user asked you to remember: put each fact, in the user's words, in the "
    "list for its kind, one fact per string (two facts, two strings). The workspace writes one "
    "memory file per fact (its name, type, today's date) and its line in the memory index, so "
    "do not write memory files or the index yourself.",
    RememberByKindArgs,
    writes=True,
)
"""The facts of a message sorted by kind, the memory type read from the list a fact is in (a
small model picks the wrong ``type`` value, and leaves out the fact about the user): a measured
option of the live check, offered only where a caller names it."""

MEMORY_SAVERS: tuple[str, ...] = (REMEMBER, REMEMBER_FACTS, REMEMBER_BY_KIND)
"""The tools that save memory as records, composing the file and its index line."""

FILE_TOOL_NAMES: tuple[str, ...] = tuple(t.name for t in FILE_TOOLS)
FILE_WRITE_TOOLS: tuple[str, ...] = (*(t.name for t in FILE_TOOLS if t.writes), *MEMORY_SAVERS)
_BY_NAME = {
    t.name: t for t in (*FILE_TOOLS, REMEMBER_TOOL, REMEMBER_FACTS_TOOL, REMEMBER_BY_KIND_TOOL)
}
_MEMORY_WRITERS = ("write_file", "edit_file", "delete_file")
"""The file tools refused on memory paths when memory is written with remember only."""

MAX_NAME_TRIES = 100
"""``remember`` tries ``x.md``, ``x-2.md`` … up to this many names before it gives up."""

SAFE_NAME_CHARS = 60
"""A memory file name made from a name is cut to this many characters (before ``.md``)."""


def safe_memory_name(name: str) -> str:
    """``name`` as a safe file stem: kebab case, no spaces, no path characters.

    Letters of any script are kept (a Chinese name stays readable); every other run of
    characters becomes one ``-``. Nothing usable left gives ``memory``.
    """
    text = unicodedata.normalize("NFKC", name).lower().replace("_", " ")
    stem = re.sub(r"[^\w]+", "-", text).strip("-")[:SAFE_NAME_CHARS].strip("-")
    return stem or "memory"


def _folded(text: str) -> str:
    """``text`` for comparison: case and spacing folded, a trailing ellipsis dropped (a model
    that copies a long help text back often cuts it with one)."""
    return " ".join(text.lower().split()).rstrip(".…").strip()


_REMEMBER_HELP = tuple(
    _folded(text)
    for text in (
        REMEMBER_TOOL.description,
        *(f.description or "" for f in RememberArgs.model_fields.values()),
        REMEMBER_BY_KIND_TOOL.description,
        *(help for _, _, help in _KINDS.values()),
    )
)
"""The memory savers' help texts: their descriptions and each parameter's, folded."""


_INSTRUCTIONS = tuple(
    sentence
    for section in (appendix_a(PLATFORM), *ADDED_RULES)
    for sentence in map(_folded, re.split(r"(?<=[.!?:])\s+", " ".join(section.split())))
    if len(sentence) >= 20
)
"""The memory instructions' sentences, folded: what a small model copies into a hook."""


def _copies_one_of(value: str, texts: tuple[str, ...]) -> bool:
    """``value`` is a run of one of ``texts`` at least half its length (a model that copies
    text back copies whole phrases; a real fact may share a few words with it)."""
    folded = _folded(value)
    return any(len(folded) >= max(20, len(h) // 2) and folded in h for h in texts)


def _copies_help(value: str) -> bool:
    """``value`` is copied from this tool's help texts."""
    return _copies_one_of(value, _REMEMBER_HELP)


def _cut(text: str, limit: int) -> str:
    """``text`` cut at a word to about ``limit`` characters, '…' where it was cut."""
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0].rstrip(",;:") + "…"


def _first_sentence(text: str, limit: int = 150) -> str:
    """The first sentence of ``text`` on one line, cut at a word to about ``limit`` chars."""
    line = " ".join(text.split())
    m = re.match(r"(.+?[.!?。！？])(?:\s|$)", line)
    return _cut(m.group(1) if m else line, limit)


_FIRST_NUMBER = re.compile(r"\s*(?:(?P<paren>[(（])1[)）]|1(?P<mark>[.)、:：]))(?!\d)\s*")
"""The number a text sent as a numbered list starts with: ``1.``, ``1)``, ``1、``, ``(1)``."""
_BULLET = re.compile(r"\s*[-*•]\s+")
_ITEM_END = ",;:，；、。"
"""What an item of a numbered list may end with before the next number."""


def _list_items(text: str) -> list[str]:
    """The items of a fact sent as a numbered list (``1. … 2. …``, ``(1) … (2) …``, numbered
    on from 1 in one style), without their numbers; a bullet's mark dropped; any other text
    alone. A small model sends a whole message as one fact: named and described after the
    text as it is, the memory would be named ``1-…-2-…`` and described as "1."."""
    first = _FIRST_NUMBER.match(text)
    if first is None:
        bullet = _BULLET.match(text)
        return [text[bullet.end() :] if bullet else text]
    items, rest, n = [], text[first.end() :], 2
    while True:
        number = re.escape(str(n))
        mark = (
            rf"[(（]{number}[)）]"
            if first.group("paren")
            else rf"(?<!\d){number}{re.escape(first.group('mark'))}(?!\d)"
        )
        nxt = re.search(mark, rest)
        if nxt is None:
            break
        items.append(rest[: nxt.start()])
        rest, n = rest[nxt.end() :], n + 1
    items.append(rest)
    kept = [item.strip().rstrip(_ITEM_END) for item in items if item.strip().rstrip(_ITEM_END)]
    return kept or [text]


def _summary(text: str, limit: int = 150) -> str:
    """A description for a fact sent without one: its first sentence, or for a numbered list
    each item's first sentence joined by ``; ``, cut at a word to about ``limit`` chars."""
    items = _list_items(text)
    if len(items) == 1:
        return _first_sentence(items[0], limit)
    return _cut("; ".join(_first_sentence(item, limit).rstrip(".。") for item in items), limit)


_NAME_WORDS = 5
"""A memory named after its fact takes the fact's first words, up to this many."""
_NAME_WORD_CHARS = 16
"""… each cut to this many characters (a Chinese or Japanese clause is one word)."""


def _name_of(fact: str) -> str:
    """A memory name made from the fact's first words, its first item's when it is a numbered
    list (``remember_by_kind`` asks for none)."""
    words = re.findall(r"[^\W_]+", unicodedata.normalize("NFKC", _list_items(fact)[0]))
    return " ".join(w[:_NAME_WORD_CHARS] for w in words[:_NAME_WORDS]) or "memory"


def _repair_copied_arguments(
    args: RememberArgs, other_tools: Iterable[str] = (), tool: str = REMEMBER
) -> tuple[RememberArgs, list[str]]:
    """The arguments with what a model echoed from the schema replaced by what the fact says,
    and what was replaced; refused when no fact is left.

    A small model forced to call this tool names the memory after the tool (``remember``) or
    another tool, or sends a parameter's help text back as the description or hook, while the
    body holds the user's fact. Then the description becomes the body's first sentence and the
    name is made from the hook or the description (so the file and its index line read as the
    fact). A body that is help text, or help text with no body, holds no fact: refused."""
    if _copies_help(args.body):
        raise ToolCallError(
            f"The body is this tool's own help text copied back, not the fact; write the fact "
            f"itself (the user's words, one fact per call) and call {tool} again."
        )
    notes: list[str] = []
    fields: dict[str, str] = {}
    if _copies_help(args.description):
        if not args.body.strip():
            raise ToolCallError(
                f"The description is this tool's own help text copied back, not the fact; "
                f"write the fact itself (one line saying what it holds) and call {tool} again."
            )
        fields["description"] = _summary(args.body)
        notes.append("the description was this tool's help text; the body's first sentence is used")
    if args.hook and _copies_help(args.hook):
        fields["hook"] = ""
        notes.append("the hook was this tool's help text; the description is used")
    elif args.hook and _copies_one_of(args.hook, _INSTRUCTIONS):
        fields["hook"] = ""
        notes.append("the hook was a sentence of the memory instructions; the description is used")
    stem = safe_memory_name(re.sub(r"(?i)\.md$", "", args.name.replace("\\", "/").split("/")[-1]))
    taken = {safe_memory_name(name): name for name in (*_BY_NAME, *other_tools)}
    if stem in taken:
        source = fields.get("hook", args.hook) or fields.get("description", args.description)
        name = " ".join(re.findall(r"\w+", source)[:5])
        if not name or safe_memory_name(name) in taken:
            raise ToolCallError(
                f"{args.name!r} is the name of the tool {taken[stem]}, not of a memory; name the "
                f"fact after what it holds (e.g. '{_NAME_EXAMPLE}') and call {tool} again."
            )
        fields["name"] = name
        notes.append(f"{args.name!r} is the tool {taken[stem]}'s name; named after the fact")
    return (args.model_copy(update=fields) if fields else args), notes


def _parameters(args: type[BaseModel]) -> dict[str, Any]:
    schema = args.model_json_schema(by_alias=False)
    defs = schema.pop("$defs", {})

    def plain(node: dict[str, Any]) -> dict[str, Any]:
        # A nested model inline, not as a $ref: not every tool-call grammar resolves one.
        node = dict(defs[node["$ref"].rsplit("/", 1)[-1]]) if "$ref" in node else dict(node)
        node.pop("title", None)
        if "items" in node:
            node["items"] = plain(node["items"])
        if "properties" in node:
            node["properties"] = {k: plain(v) for k, v in node["properties"].items()}
            node["additionalProperties"] = False
        return node

    return plain(schema)


def tool_schema(name: str, description: str, args: type[BaseModel]) -> dict[str, Any]:
    """One OpenAI-format tool schema from a pydantic argument model."""
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": _parameters(args)},
    }


def file_tool_schemas(names: Iterable[str] | None = None) -> list[dict[str, Any]]:
    """OpenAI-format schemas of the file tools (all six, or ``names`` in the given order)."""
    chosen = FILE_TOOL_NAMES if names is None else tuple(names)
    unknown = [n for n in chosen if n not in _BY_NAME]
    if unknown:
        raise ValueError(
            f"Unknown file tools {unknown}; the file tools are "
            f"{[*FILE_TOOL_NAMES, *MEMORY_SAVERS]}."
        )
    return [tool_schema(n, _BY_NAME[n].description, _BY_NAME[n].args) for n in chosen]


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _strings(v)


class ToolCallRecord(BaseModel):
    """One tool call of a turn as the agent loop ran it, and what it returned.

    The runner writes these and the live check's judge reads them (from disk too, so every
    field has a default an older record can fall back on).
    """

    name: str
    arguments: dict[str, Any] | str = Field(default_factory=dict)
    """Parsed arguments; the raw string when they were not valid JSON."""
    result: str = ""
    source: Literal["native", "text"] = "native"
    """``text``: the model wrote the call in its reply instead of filling ``tool_calls``."""
    step: int = 0
    executed: bool = True
    """True for the file tools; the platform's other tools are recorded, never executed."""
    repeated: bool = False
    """The loop guard answered it: an identical call had already run in this turn."""

    def args(self) -> dict[str, Any]:
        return self.arguments if isinstance(self.arguments, dict) else {}

    def text(self) -> str:
        """Every string in the arguments, joined: what this call would persist."""
        if isinstance(self.arguments, str):
            return self.arguments
        return "\n".join(_strings(self.arguments))


def parse_arguments(name: str, arguments: str | dict[str, Any] | None) -> dict[str, Any]:
    """The arguments of one call as a dict, or :class:`ToolCallError` saying how to fix them."""
    if arguments is None or (isinstance(arguments, str) and not arguments.strip()):
        return {}
    if isinstance(arguments, dict):
        return arguments
    try:
        value = json.loads(arguments)
    except (TypeError, json.JSONDecodeError) as e:
        raise ToolCallError(
            f"The arguments for {name} are not valid JSON ({e}). Send one JSON object, "
            'e.g. {"path": "memory/user-role.md"}.'
        ) from e
    if not isinstance(value, dict):
        raise ToolCallError(
            f"The arguments for {name} must be a JSON object with named fields, "
            f"not {type(value).__name__}."
        )
    return value


def _accepted_keys(args: type[BaseModel]) -> dict[str, str]:
    """Every argument name a model accepts (its aliases too) → the field it fills."""
    keys: dict[str, str] = {}
    for field, info in args.model_fields.items():
        keys[field] = field
        alias = info.validation_alias
        for choice in alias.choices if isinstance(alias, AliasChoices) else ():
            if isinstance(choice, str):
                keys[choice] = field
    return keys


def _json_object(text: str) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except (TypeError, json.JSONDecodeError):
        return None
    return value if isinstance(value, dict) else None


def repair_arguments(
    arguments: str | dict[str, Any] | None, args: type[BaseModel]
) -> tuple[str | dict[str, Any] | None, list[str]]:
    """The arguments with the shapes small models send put right, and what was put right.

    Seen live: the object sent as a JSON string inside the JSON string; every field wrapped in
    one outer key (``{"memory": {...}}``, also as a string); dotted keys such as
    ``metadata.type`` or a nested ``metadata`` mapping; a text field sent as a list of lines.
    Nothing else is guessed: whatever still does not fit is refused by the argument model.
    """
    notes: list[str] = []
    if isinstance(arguments, str):
        try:
            inner = json.loads(arguments)
        except (TypeError, json.JSONDecodeError):
            inner = None
        if isinstance(inner, str) and _json_object(inner) is not None:
            arguments = inner
            notes.append("the arguments were a JSON string inside a string; decoded twice")
        arguments = _json_object(arguments) if _json_object(arguments) is not None else arguments
    if not isinstance(arguments, dict):
        return arguments, notes
    keys = _accepted_keys(args)
    raw = dict(arguments)
    if len(raw) == 1 and next(iter(raw)) not in keys:
        ((outer, value),) = raw.items()
        inner_obj = _json_object(value) if isinstance(value, str) else value
        if isinstance(inner_obj, dict):
            raw = dict(inner_obj)
            notes.append(f"the fields were wrapped in {outer!r}; read from inside it")
    for key in [k for k in raw if k not in keys]:
        value = raw[key]
        leaf = key.rsplit(".", 1)[-1]
        if "." in key and leaf in keys and keys[leaf] not in raw:
            raw[keys[leaf]] = raw.pop(key)
            notes.append(f"{key!r} read as {keys[leaf]!r}")
        elif isinstance(value, dict):
            lifted = [k for k in value if k in keys and keys[k] not in raw]
            for k in lifted:
                raw[keys[k]] = value[k]
            if lifted:
                notes.append(f"{', '.join(f'{key}.{k}' for k in lifted)} read as top-level")
    for key, value in list(raw.items()):
        field = keys.get(key)
        info = args.model_fields.get(field or "")
        lines = isinstance(value, list) and all(isinstance(v, str) for v in value)
        if info is not None and info.annotation is str and lines:
            raw[key] = "\n".join(value)
            notes.append(f"{key!r} was a list of lines; joined")
    return raw, notes


def _repair_facts(raw: dict[str, Any], notes: list[str]) -> dict[str, Any]:
    """``remember_facts`` arguments with each fact repaired as ``remember``'s are, and one fact
    sent without the list (its fields at the top) read as a list of one."""
    keys = _accepted_keys(RememberFactsArgs)
    if not any(k in keys for k in raw) and any(k in _accepted_keys(RememberArgs) for k in raw):
        raw = {"facts": [raw]}
        notes.append("one fact was sent without the facts list; read as a list of one")
    facts = next((raw[k] for k in keys if k in raw), None)
    if not isinstance(facts, list):
        return raw
    repaired = []
    for n, fact in enumerate(facts, 1):
        fixed, fact_notes = repair_arguments(fact, RememberArgs)
        repaired.append(fixed)
        notes.extend(f"fact {n}: {note}" for note in fact_notes)
    return {**{k: v for k, v in raw.items() if k not in keys}, "facts": repaired}


def _repair_kinds(raw: dict[str, Any], notes: list[str]) -> dict[str, Any]:
    """``remember_by_kind`` arguments sent as typed items (``{"facts": [{"type": "user",
    "body": …}, …]}``, ``remember_facts``' shape) sorted into the list of each item's type."""
    keys = _accepted_keys(RememberByKindArgs)
    if any(k in keys for k in raw) or len(raw) != 1:
        return raw
    ((outer, items),) = raw.items()
    if not isinstance(items, list) or not items:
        return raw
    by_type: dict[str, str] = {t: kind for kind, (t, _, _) in _KINDS.items()}
    kinds = [
        by_type.get(str(item.get("type", "")).strip().lower()) if isinstance(item, dict) else None
        for item in items
    ]
    if None in kinds:
        return raw
    sorted_raw: dict[str, list[Any]] = {}
    for kind, item in zip(kinds, items, strict=True):
        sorted_raw.setdefault(str(kind), []).append(item)
    notes.append(f"the facts came as typed items in {outer!r}; each read into the list of its type")
    return sorted_raw


def _validation_message(name: str, args: type[BaseModel], err: ValidationError) -> str:
    problems = []
    for item in err.errors():
        field = ".".join(str(p) for p in item["loc"]) or "(arguments)"
        if item["type"] == "missing":
            problems.append(f"missing required argument '{field}'")
        else:
            problems.append(f"'{field}': {item['msg']}")
    fields = ", ".join(
        f"{k}{'' if k in args.model_json_schema().get('required', []) else '?'}"
        for k in args.model_fields
    )
    return f"Invalid arguments for {name}: {'; '.join(problems)}. Expected arguments: {fields}."


def _line_numbers(text: str, needle: str) -> list[int]:
    lines, start = [], 0
    while (i := text.find(needle, start)) != -1:
        lines.append(text.count("\n", 0, i) + 1)
        start = i + len(needle)
    return lines


_SHOWN = re.compile(rf'<{FILE_TAG} path="([^"]*)">\n(.*?)</{FILE_TAG}>', re.DOTALL)


def shown_files(context_block: str) -> dict[str, str]:
    """Path → text of each file a turn's context block shows whole (as the block shows it)."""
    return {html.unescape(m.group(1)): m.group(2) for m in _SHOWN.finditer(context_block)}


@dataclass
class _Settings:
    read_before_write: bool
    write_receipt: bool
    index_nudge: bool
    keep_memory: bool = False


class FileToolExecutor:
    """Runs the agent's file-tool calls against one MemFS and returns what the model reads.

    ``execute`` never raises for a bad call (unknown tool, invalid JSON, missing argument,
    missing file, read-only mount): the error comes back as text that says what to do next,
    and the agent loop continues.

    One executor serves one turn: it remembers which files the turn has read or written (and,
    from ``context_block``, which the turn was shown whole), so ``write_file`` over an existing
    file the turn has not seen is refused, and an overwrite is conditioned on the bytes the
    turn saw. :meth:`begin_turn` starts the next turn on the same executor. The settings come
    from the manifest (``read_before_write``, ``write_receipt``, ``index_nudge``); a keyword
    given here wins. ``actor`` names the writer in the version history (default: the mount's
    own actor if it has one, else "chat turn", or "workflow step" on a read-only mount).

    ``tools`` may name ``remember`` (:data:`REMEMBER_TOOL`) beside the file tools;
    ``memory_file_writes=False`` refuses write_file, edit_file and delete_file on memory files
    and the index, so memory is written through ``remember`` only. ``other_tools`` names the
    turn's other tools (a platform's ``save_skill``): ``remember`` refuses a memory named after
    any tool, these too.
    """

    def __init__(
        self,
        fs: MemFS,
        manifest: AgentManifest | None = None,
        *,
        tools: Iterable[str] | None = None,
        context_block: str = "",
        read_before_write: bool | None = None,
        write_receipt: bool | None = None,
        index_nudge: bool | None = None,
        keep_memory: bool | None = None,
        actor: str | None = None,
        memory_file_writes: bool = True,
        other_tools: Iterable[str] = (),
    ) -> None:
        # A context file is replayed into every turn, like memory: it gets the same guard.
        fs = fs if manifest is None else fs.guarding(manifest.context_files or [])
        # Versions written through these tools name who wrote them, unless the mount already
        # says (an MCP client, a workflow step that writes memory).
        default = "workflow step" if fs.is_read_only else "chat turn"
        self.fs = fs.acting_as(actor or default, unless_set=actor is None)
        self.manifest = manifest

        def setting(name: str, given: bool | None, default: bool) -> bool:
            return bool(getattr(manifest, name, default)) if given is None else given

        self.settings = _Settings(
            read_before_write=setting("read_before_write", read_before_write, True),
            write_receipt=setting("write_receipt", write_receipt, True),
            index_nudge=setting("index_nudge", index_nudge, False),
            keep_memory=setting("keep_memory", keep_memory, False),
        )
        self.names: tuple[str, ...] = FILE_TOOL_NAMES if tools is None else tuple(tools)
        file_tool_schemas(self.names)  # validates the names
        self.memory_file_writes = memory_file_writes
        self.other_tools = tuple(other_tools)
        self._handlers: dict[str, Callable[[Any], str]] = {
            "read_file": self._read_file,
            "write_file": self._write_file,
            "edit_file": self._edit_file,
            "list_files": self._list_files,
            "exists": self._exists,
            "delete_file": self._delete_file,
            REMEMBER: self._remember,
            REMEMBER_FACTS: self._remember_facts,
            REMEMBER_BY_KIND: self._remember_by_kind,
        }
        self._seen: dict[str, str] = {}
        self._shown: dict[str, str] = {}
        self.begin_turn(context_block)

    def begin_turn(self, context_block: str = "") -> None:
        """Forget what the previous turn read; ``context_block`` is what this turn was shown."""
        self._seen = {}
        self._first: dict[str, bytes] = {}  # each file as this turn first had it (b"": made)
        self._shown = shown_files(context_block)

    def schemas(self) -> list[dict[str, Any]]:
        return file_tool_schemas(self.names)

    def execute(self, name: str, arguments: str | dict[str, Any] | None = None) -> str:
        if name not in self.names:
            return (
                f"Error: unknown tool {name!r}. The file tools available here are: "
                f"{', '.join(self.names)}."
            )
        tool = _BY_NAME[name]
        try:
            repaired, notes = repair_arguments(arguments, tool.args)
            raw = parse_arguments(name, repaired)
            if name == REMEMBER_FACTS:
                raw = _repair_facts(raw, notes)
            elif name == REMEMBER_BY_KIND:
                raw = _repair_kinds(raw, notes)
            try:
                args = tool.args.model_validate(raw)
            except ValidationError as e:
                raise ToolCallError(_validation_message(name, tool.args, e)) from e
            self._refuse_memory_path(name, args)
            result = self._handlers[name](args)
            # read_file returns the filesystem's view, already escaped (and a memory file's
            # genuine reminder must survive); every other result may quote names and content.
            if name != "read_file":
                result = escape_for_agent(result)
            if notes:  # said once, here, for every tool and every surface that runs it
                result += escape_for_agent(f"\nRepaired arguments: {'; '.join(notes)}.")
            return result
        except ToolCallError as e:
            return escape_for_agent(f"Error: {e}")
        except Exception as e:
            return escape_for_agent(self._failure(e, name))

    def _failure(self, e: Exception, action: str) -> str:
        """A refusal or a storage failure, in the words every surface uses for it (a missing
        credential reads the same here as on the command line); a bug propagates."""
        if not is_expected_failure(e):
            raise e
        target = getattr(self.fs.store, "url", None)
        return f"Error: {describe_storage_failure(e, target, action=action)}"

    def _refuse_memory_path(self, name: str, args: Any) -> None:
        if self.memory_file_writes or name not in _MEMORY_WRITERS:
            return
        rel = normalize(args.path, allow_absolute=True)
        layout = self.fs.layout
        if layout.is_memory_file(rel) or layout.is_index(rel):
            saver = next((n for n in self.names if n in MEMORY_SAVERS), REMEMBER)
            how = {
                REMEMBER_FACTS: "one item per fact",
                REMEMBER_BY_KIND: "each fact in the list for its kind",
            }.get(saver, "one fact per call")
            raise ToolCallError(
                f"{rel} is memory, and here memory is saved with {saver} ({how}), which "
                f"writes the memory file and its index line; {name} was not run."
            )

    # -- what this turn has seen ---------------------------------------------------------------

    def _saw(self, rel: str, stored: bytes) -> None:
        self._seen[rel] = content_sha256(stored)
        self._first.setdefault(rel, stored)

    def _check_kept(self, rel: str, first: bytes | None, data: bytes) -> None:
        """With ``keep_memory``, refuse an overwrite of a memory file that keeps none of the
        body lines it had when this turn first read it (a file this turn made is its own)."""
        layout = self.fs.layout
        if not self.settings.keep_memory or not first or not layout.is_memory_file(rel):
            return
        old = [ln.strip() for ln in parse_memory(first, rel).body.splitlines() if ln.strip()]
        new = data.decode("utf-8", "replace")
        if not old or any(ln in new for ln in old):
            return
        other = self._new_name(rel, data)
        said = old[0] if len(old[0]) <= 80 else old[0][:79] + "…"
        raise ToolCallError(
            f"write_file would replace everything {rel} says ({said!r}); nothing was written. A "
            f"memory stays until the user asks to change it: to save a new fact, write a new file "
            f"such as {other}; to change this memory, edit_file the part that changed."
        )

    def _receipt(self, rel: str, stored: bytes, sent: bytes | None) -> str:
        if not self.settings.write_receipt:
            return ""
        layout = self.fs.layout
        index_text = None
        if self.settings.index_nudge and layout.is_memory_file(rel):
            try:
                index_text = self.fs.raw.cat_file(layout.index_path).decode("utf-8", "replace")
            except (FileNotFoundError, IsADirectoryError):
                index_text = ""
        receipt = write_receipt(rel, stored, layout=layout, sent=sent, index_text=index_text)
        return f"\n{receipt}" if receipt else ""

    def _is_index(self, path: str) -> bool:
        return self.fs.layout.is_index(normalize(path, allow_absolute=True))

    def _index_note(self, path: str) -> str:
        """The index-size note other code may provide, appended after a write to MEMORY.md."""
        if self.manifest is None or not self._is_index(path):
            return ""
        note = index_budget_note(self.fs, self.manifest)
        return f"\n{note}" if note else ""

    # -- the tools ---------------------------------------------------------------------------

    def _read_file(self, args: ReadFileArgs) -> str:
        rel = normalize(args.path, allow_absolute=True)
        try:
            raw, data = self.fs.read_with_view(rel)
        except FileNotFoundError as e:
            if e.filename != rel or not self.fs.layout.is_index(rel):
                raise  # another file, or the whole workspace gone
            # the index of a new workspace: empty, as the context block and the MCP resource
            # read it, not an error that sends the agent looking for it
            return escape_for_agent(
                f"({rel} is empty: no memory is indexed yet; write it to add one)"
            )
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return escape_for_agent(
                f"Error: {rel!r} is not UTF-8 text ({len(data)} bytes); read_file only "
                "returns text files."
            )
        self._saw(rel, raw)
        if not text:
            return escape_for_agent(f"({rel} is empty)")
        if len(text) > MAX_READ_CHARS:
            # A cut can end inside what was not a tag ("<system-reminders>" cut after the
            # name): the cut text is escaped again, past the memory's genuine reminder.
            reminder, _ = split_view(data)
            keep = len(reminder) + 1 if reminder else 0
            return text[:keep] + escape_for_agent(
                text[keep:MAX_READ_CHARS]
                + f"\n[... cut: {rel} has {len(text)} characters, only the first "
                f"{MAX_READ_CHARS} are shown]"
            )
        return text

    def _new_name(self, rel: str, sent: bytes) -> str:
        """The file a refused write of ``sent`` over the memory ``rel`` could go to instead: its
        frontmatter's name in the safe form, or a placeholder."""
        layout = self.fs.layout
        name = parse_memory(sent, rel).name
        other = layout.memory_path(safe_memory_name(name)) if name else ""
        if not other or other == rel or normalize(other) != other:
            other = layout.memory_path("<new-name>")
        return other

    def _refuse_unread(self, rel: str, raw: bytes, sent: bytes) -> ToolCallError:
        layout = self.fs.layout
        if layout.is_memory_file(rel):
            other = self._new_name(rel, sent)
            todo = (
                f"To save a new fact, write a new file such as {other}; to change this one, "
                "read_file it first, then edit_file."
            )
        elif layout.is_index(rel):
            todo = (
                "To add a line, edit_file it, or read_file it first and then write_file the "
                "whole index with your line added."
            )
        else:
            todo = "To replace it, read_file it first, then write_file; to change part, edit_file."
        held = holds(rel, raw, layout=layout)
        return ToolCallError(
            f"{rel} already exists ({held}) and this turn has not read it; nothing was written. "
            f"{todo}"
        )

    def _changed_since(self, rel: str, how: str) -> ToolCallError:
        return ToolCallError(
            f"{rel} changed since this turn {how} it; nothing was written. read_file it again, "
            "then write_file or edit_file on its current content."
        )

    def _write_file(self, args: WriteFileArgs) -> str:
        rel = normalize(args.path, allow_absolute=True)
        if not rel:
            raise errors.is_a_directory(rel)
        data = args.content.encode("utf-8")
        fs = self.fs
        verb = "Overwrote"
        if not self.settings.read_before_write:
            try:
                stored = fs.save(rel, data, create=True)
                verb = "Created"
                self._first.setdefault(rel, b"")
            except PathConflictError:
                first = self._first[rel] if rel in self._first else fs.raw.cat_file(rel)
                self._check_kept(rel, first, data)
                stored = fs.save(rel, data)
        elif rel in self._seen:
            self._check_kept(rel, self._first.get(rel), data)
            try:
                stored = fs.save(rel, data, expected_sha256=self._seen[rel])
            except PreconditionFailedError:
                raise self._changed_since(rel, "read or wrote") from None
        elif rel in self._shown:
            try:
                raw = fs.raw.cat_file(rel)
            except FileNotFoundError:
                stored = fs.save(rel, data, create=True)
                verb = "Created"
                self._first.setdefault(rel, b"")
            else:
                text = raw.decode("utf-8", "replace")
                if self._shown[rel] not in {framed_body(text, f) for f in FRAMINGS}:
                    raise self._changed_since(rel, "was shown")
                self._check_kept(rel, raw, data)
                try:
                    stored = fs.save(rel, data, expected_sha256=content_sha256(raw))
                except PreconditionFailedError:
                    raise self._changed_since(rel, "was shown") from None
        else:
            try:
                stored = fs.save(rel, data, create=True)
                verb = "Created"
                self._first.setdefault(rel, b"")  # made by this turn: its own to rewrite
            except PathConflictError:
                raise self._refuse_unread(rel, fs.raw.cat_file(rel), data) from None
        self._saw(rel, stored)
        return (
            f"{verb} {rel} ({len(stored)} bytes).{self._receipt(rel, stored, data)}"
            f"{self._index_note(rel)}"
        )

    def _edit_file(self, args: EditFileArgs) -> str:
        rel = normalize(args.path, allow_absolute=True)
        if not rel:
            raise errors.is_a_directory(rel)
        if not args.old_string:
            raise ToolCallError(
                "old_string is empty. Give the exact text to replace, or use write_file to "
                "replace the whole file."
            )
        if args.old_string == args.new_string:
            raise ToolCallError("old_string and new_string are the same; nothing would change.")
        where: list[int] = []

        def change(raw: bytes | None) -> bytes:
            if raw is None:
                raise errors.not_found(rel)
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                raise ToolCallError(f"{rel!r} is not UTF-8 text; it cannot be edited.") from e
            where[:] = _line_numbers(text, args.old_string)
            if not where:
                hint = ""
                stored_form = args.old_string.replace("&lt;", "<").replace("&gt;", ">")
                if stored_form != args.old_string and stored_form in text:
                    hint = (
                        " read_file shows tag-like text escaped as &lt;…&gt;; the file stores "
                        "'<' and '>', so write those in old_string."
                    )
                elif "system-reminder" in args.old_string:
                    hint = (
                        " The staleness reminder shown by read_file is not stored in the file; "
                        "leave it out of old_string."
                    )
                raise ToolCallError(
                    f"old_string was not found in {rel}. Read the file again with read_file and "
                    f"copy the exact text, including spaces and line breaks.{hint}"
                )
            if len(where) > 1:
                raise ToolCallError(
                    f"old_string was found {len(where)} times in {rel}, at lines "
                    f"{', '.join(map(str, where))}. Include more surrounding text so it matches "
                    "exactly once."
                )
            return text.replace(args.old_string, args.new_string, 1).encode("utf-8")

        # Read raw -> replace -> write only if the file is still what was read; a concurrent
        # turn's edit is re-read and this one re-applied on top (bounded), never overwritten.
        stored = self.fs.update(rel, change)
        self._saw(rel, stored)
        return (
            f"Edited {rel} (line {where[0]}).{self._receipt(rel, stored, None)}"
            f"{self._index_note(rel)}"
        )

    def _list_files(self, args: ListFilesArgs) -> str:
        rel = normalize(args.path, allow_absolute=True)
        # One recursive listing answers both forms; directories show through their files, as
        # on an object store, instead of one store call (and one decorated read) per entry.
        try:
            files = sorted(self.fs.find(rel))
        except FileNotFoundError:
            files = []
        if rel and files == [rel]:
            return f"{rel} is a file, not a directory."
        if not files:
            if rel and not self.fs.isdir(rel):
                raise FileNotFoundError(
                    errno.ENOENT,
                    f"No such directory: {rel!r}. Use list_files on its parent to see what exists.",
                    rel,
                )
            return f"{rel or 'The workspace root'} is empty."
        if args.recursive:
            return "\n".join(files)
        prefix = f"{rel}/" if rel else ""
        children = set()
        for path in files:
            head, below, _ = path[len(prefix) :].partition("/")
            children.add(prefix + head + ("/" if below else ""))
        return "\n".join(sorted(children))

    def _exists(self, args: ExistsArgs) -> str:
        rel = normalize(args.path, allow_absolute=True)
        if not rel or self.fs.isdir(rel):
            return f"true: {rel or '/'} exists (directory)."
        if self.fs.exists(rel):
            return f"true: {rel} exists (file)."
        return f"false: {rel} does not exist."

    def _delete_file(self, args: DeleteFileArgs) -> str:
        rel = normalize(args.path, allow_absolute=True)
        if not rel or self.fs.isdir(rel):
            raise errors.is_a_directory(rel)
        self.fs.rm_file(rel)
        self._seen.pop(rel, None)
        return f"Deleted {rel}.{self._index_note(rel)}"

    def _holds_body(self, rel: str, body: str) -> bool:
        """Whether the memory at ``rel`` holds ``body`` (a small model sends one fact again
        under the name the last result gave it)."""
        try:
            raw = self.fs.raw.cat_file(rel)
        except FileNotFoundError:  # deleted again since the create lost to it
            return False
        return parse_memory(raw, rel).body.strip() == body

    def _remember_each(self, fact: RememberArgs, tool: str) -> str:
        """:meth:`_remember`'s result for one fact of a list, or its refusal as the line a
        surface would give it (a fact refused does not stop the others)."""
        try:
            return self._remember(fact, tool=tool)
        except ToolCallError as e:
            return f"Error: {e}"
        except Exception as e:
            return self._failure(e, tool)

    def _remember_facts(self, args: RememberFactsArgs) -> str:
        """Each fact as :meth:`_remember` saves it; a fact refused does not stop the others."""
        return "\n".join(
            f"Fact {n}: {self._remember_each(fact, REMEMBER)}"
            for n, fact in enumerate(args.facts, 1)
        )

    def _remember_by_kind(self, args: RememberByKindArgs) -> str:
        """Each fact as :meth:`_remember` saves it, typed by its list and named, described and
        indexed after its own words; a fact refused does not stop the others."""
        facts = [
            (kind, text.strip()) for kind in _KINDS for text in getattr(args, kind) if text.strip()
        ]
        if not facts:
            raise ToolCallError(
                f"Nothing to remember: every list was empty. Put each fact the user gave, in "
                f"their words, in the list for its kind ({', '.join(_KINDS)}) and call "
                f"{REMEMBER_BY_KIND} again."
            )
        results = []
        for n, (kind, text) in enumerate(facts, 1):
            fact = RememberArgs(
                name=_name_of(text),
                description=_summary(text),
                type=_KINDS[kind][0],
                body=text,
            )
            results.append(f"Fact {n} ({kind}): {self._remember_each(fact, REMEMBER_BY_KIND)}")
        return "\n".join(results)

    def _remember(self, args: RememberArgs, tool: str = REMEMBER) -> str:
        """One fact as a memory file (frontmatter composed here, the date stamped by the
        filesystem) under a name no other file has, and its line appended to the index."""
        args, repairs = _repair_copied_arguments(args, self.other_tools, tool)
        layout = self.fs.layout
        stem = safe_memory_name(args.name)
        description = " ".join(args.description.split())
        body = args.body.strip()
        for n in range(1, MAX_NAME_TRIES + 1):
            name = stem if n == 1 else f"{stem}-{n}"
            rel = layout.memory_path(name)
            record = MemoryRecord(
                name=name, description=description, type=args.type, body=f"{body}\n" if body else ""
            )
            data = record.dumps().encode("utf-8")
            try:
                stored = self.fs.save(rel, data, create=True)
                break
            except PathConflictError:
                if body and self._holds_body(rel, body):
                    return (
                        f"Already remembered: {rel} holds this fact (the same body); nothing "
                        f"was written. Call {tool} again only for another fact."
                    )
                continue
        else:
            raise ToolCallError(
                f"{layout.memory_path(stem)} and {MAX_NAME_TRIES - 1} numbered names after it "
                "are taken; give this memory another name."
            )
        self._saw(rel, stored)
        title = " ".join(args.name.split()) or stem
        hook = " ".join(args.hook.split()) or description
        line = f"- [{title}]({layout.link_for(rel)})" + (f" — {hook}" if hook else "")

        def add_line(raw: bytes | None) -> bytes:
            text = "" if raw is None else raw.decode("utf-8", "replace")
            if text and not text.endswith("\n"):
                text += "\n"
            return f"{text}{line}\n".encode()

        self.fs.update(layout.index_path, add_line)
        renamed = (
            f" ({layout.memory_path(stem)} was taken)" if rel != layout.memory_path(stem) else ""
        )
        repaired = f"\nRepaired arguments: {'; '.join(repairs)}." if repairs else ""
        return (
            f"Remembered {rel}{renamed} ({len(stored)} bytes, type {args.type}) and added its "
            f"line to {layout.index_path}: {line}{self._receipt(rel, stored, data)}"
            f"{self._index_note(layout.index_path)}{repaired}"
        )
