"""The agent's file tools over a :class:`~memfs.filesystem.MemFS`.

The platform's names (seed Appendix B②): ``read_file``, ``write_file``, ``edit_file``,
``list_files``, ``exists``, ``delete_file``. Memory needs no other tool (decision 2): the
agent writes ``memory/*.md`` and ``MEMORY.md`` with these.

Each tool's arguments are a pydantic model; :func:`file_tool_schemas` turns them into
OpenAI-format tool schemas, and :class:`FileToolExecutor` runs one call against a MemFS and
returns the string the model reads next. The rules stay in the filesystem: ``read_file`` reads
the decorated view (staleness reminder), ``edit_file`` matches against the raw stored bytes so a
reminder is never written back, and a read-only mount (workflow turns) refuses writes with the
filesystem's own ``PermissionError(EROFS)``, which the executor hands back as a tool result.
"""

from __future__ import annotations

import errno
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, ValidationError

from memfs.errors import UnsafePathError
from memfs.filesystem import MemFS
from memfs.layout import INDEX_FILE
from memfs.paths import normalize

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

FILE_TOOL_NAMES: tuple[str, ...] = tuple(t.name for t in FILE_TOOLS)
_BY_NAME = {t.name: t for t in FILE_TOOLS}


def _parameters(args: type[BaseModel]) -> dict[str, Any]:
    schema = args.model_json_schema(by_alias=False)
    schema.pop("title", None)
    for prop in schema.get("properties", {}).values():
        prop.pop("title", None)
    schema["additionalProperties"] = False
    return schema


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
            f"Unknown file tools {unknown}; the file tools are {list(FILE_TOOL_NAMES)}."
        )
    return [tool_schema(n, _BY_NAME[n].description, _BY_NAME[n].args) for n in chosen]


class ToolCallError(ValueError):
    """A tool call the executor could not run; its message is what the model reads."""


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


def _os_message(e: OSError) -> str:
    return str(e.strerror) if e.strerror else str(e)


def _line_numbers(text: str, needle: str) -> list[int]:
    lines, start = [], 0
    while (i := text.find(needle, start)) != -1:
        lines.append(text.count("\n", 0, i) + 1)
        start = i + len(needle)
    return lines


class FileToolExecutor:
    """Runs the agent's file-tool calls against one MemFS and returns what the model reads.

    ``execute`` never raises for a bad call (unknown tool, invalid JSON, missing argument,
    missing file, read-only mount): the error comes back as text that says what to do next,
    and the agent loop continues.
    """

    def __init__(
        self,
        fs: MemFS,
        manifest: AgentManifest | None = None,
        *,
        tools: Iterable[str] | None = None,
    ) -> None:
        self.fs = fs
        self.manifest = manifest
        self.names: tuple[str, ...] = FILE_TOOL_NAMES if tools is None else tuple(tools)
        file_tool_schemas(self.names)  # validates the names
        self._handlers: dict[str, Callable[[Any], str]] = {
            "read_file": self._read_file,
            "write_file": self._write_file,
            "edit_file": self._edit_file,
            "list_files": self._list_files,
            "exists": self._exists,
            "delete_file": self._delete_file,
        }

    @property
    def read_only(self) -> bool:
        return self.fs.is_read_only

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
            raw = parse_arguments(name, arguments)
            try:
                args = tool.args.model_validate(raw)
            except ValidationError as e:
                raise ToolCallError(_validation_message(name, tool.args, e)) from e
            return self._handlers[name](args)
        except ToolCallError as e:
            return f"Error: {e}"
        except UnsafePathError as e:
            return f"Error: {_os_message(e)}"
        except PermissionError as e:
            return f"Error: {_os_message(e)}"
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError) as e:
            return f"Error: {_os_message(e)}"
        except (OSError, ValueError) as e:
            return f"Error: {name} failed: {_os_message(e) if isinstance(e, OSError) else e}"

    # -- the tools ---------------------------------------------------------------------------

    def _is_index(self, path: str) -> bool:
        return normalize(path, allow_absolute=True) == INDEX_FILE

    def _index_note(self, path: str) -> str:
        """The index-size note other code may provide, appended after a write to MEMORY.md."""
        if self.manifest is None or not self._is_index(path):
            return ""
        try:
            from memfs.context import index_budget_note
        except ImportError:
            return ""
        note = index_budget_note(self.fs, self.manifest)
        return f"\n{note}" if note else ""

    def _require_file(self, path: str) -> str:
        rel = normalize(path, allow_absolute=True)
        if not rel or self.fs.isdir(rel):
            raise IsADirectoryError(
                errno.EISDIR,
                f"{rel or '/'!r} is a directory, not a file; use list_files to see what it holds.",
            )
        if not self.fs.exists(rel):
            raise FileNotFoundError(
                errno.ENOENT,
                f"No such file: {rel!r}. Use list_files to see which files exist, or write_file "
                "to create it.",
            )
        return rel

    def _read_file(self, args: ReadFileArgs) -> str:
        rel = self._require_file(args.path)
        data = self.fs.cat_file(rel)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return (
                f"Error: {rel!r} is not UTF-8 text ({len(data)} bytes); read_file only "
                "returns text files."
            )
        if not text:
            return f"({rel} is empty)"
        if len(text) > MAX_READ_CHARS:
            return (
                text[:MAX_READ_CHARS]
                + f"\n[... cut: {rel} has {len(text)} characters, only the first "
                f"{MAX_READ_CHARS} are shown]"
            )
        return text

    def _write_file(self, args: WriteFileArgs) -> str:
        rel = normalize(args.path, allow_absolute=True)
        if not rel or self.fs.isdir(rel):
            raise IsADirectoryError(
                errno.EISDIR, f"{rel or '/'!r} is a directory; name a file to write."
            )
        existed = self.fs.exists(rel)
        data = args.content.encode("utf-8")
        self.fs.pipe_file(rel, data)
        verb = "Overwrote" if existed else "Created"
        return f"{verb} {rel} ({len(data)} bytes).{self._index_note(rel)}"

    def _edit_file(self, args: EditFileArgs) -> str:
        rel = self._require_file(args.path)
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
                raise FileNotFoundError(
                    errno.ENOENT, f"No such file: {rel!r}; it was deleted before the edit."
                )
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                raise ToolCallError(f"{rel!r} is not UTF-8 text; it cannot be edited.") from e
            where[:] = _line_numbers(text, args.old_string)
            if not where:
                hint = ""
                if "system-reminder" in args.old_string:
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
        self.fs.update(rel, change)
        return f"Edited {rel} (line {where[0]}).{self._index_note(rel)}"

    def _list_files(self, args: ListFilesArgs) -> str:
        rel = normalize(args.path, allow_absolute=True)
        if rel and not self.fs.exists(rel):
            raise FileNotFoundError(
                errno.ENOENT,
                f"No such directory: {rel!r}. Use list_files on its parent to see what exists.",
            )
        if rel and not self.fs.isdir(rel):
            return f"{rel} is a file, not a directory."
        if args.recursive:
            names = sorted(self.fs.find(rel))
        else:
            names = sorted(
                e["name"] + ("/" if e["type"] == "directory" else "")
                for e in self.fs.ls(rel, detail=True)
            )
        if not names:
            return f"{rel or 'The workspace root'} is empty."
        return "\n".join(names)

    def _exists(self, args: ExistsArgs) -> str:
        rel = normalize(args.path, allow_absolute=True)
        if not rel or self.fs.isdir(rel):
            return f"true: {rel or '/'} exists (directory)."
        if self.fs.exists(rel):
            return f"true: {rel} exists (file)."
        return f"false: {rel} does not exist."

    def _delete_file(self, args: DeleteFileArgs) -> str:
        rel = self._require_file(args.path)
        self.fs.rm_file(rel)
        return f"Deleted {rel}.{self._index_note(rel)}"
