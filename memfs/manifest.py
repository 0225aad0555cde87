"""The app manifest: which files an app's agent gets in context, and whether it has memory.

Memory is on by default, switched off per app in its ``app.json``; when on, ``MEMORY.md`` joins
the app's ``context_files``. The flag lives here, never in a hard-coded app name. The workspace
function gates the memory prompt too: an app without a workspace gets no memory at all (there is
nowhere to keep it). Why on by default: docs/design.md, *Memory is on by default, and empty
memory costs nothing*.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from memfs.errors import UnsafePathError
from memfs.layout import INDEX_FILE
from memfs.paths import normalize

DEFAULT_INDEX_MAX_LINES = 200
"""Claude Code loads the first 200 lines of ``MEMORY.md``; the opt-in budget warns past that."""

DEFAULT_INDEX_MAX_CHARS = 25_000
"""…or the first 25 KB; as characters here, the unit that matters for context cost (UTF-8
Chinese is about 3 bytes a character, so bytes would overstate it)."""


class AppFunction(BaseModel):
    """What the app does with an item. ``workspace`` gates memory and the memory prompt."""

    model_config = ConfigDict(extra="allow", frozen=True)

    workspace: bool = True


class IndexBudget(BaseModel):
    """Opt-in warning when ``MEMORY.md`` grows past these sizes; never a cap, nothing is cut."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_lines: int = Field(default=DEFAULT_INDEX_MAX_LINES, gt=0)
    max_chars: int = Field(default=DEFAULT_INDEX_MAX_CHARS, gt=0)


class AgentManifest(BaseModel):
    """The agent part of an app manifest, as the context builder and prompt builder read it."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    context_files: list[str] | None = None
    memory: bool = True
    function: AppFunction = AppFunction(workspace=True)
    index_budget: IndexBudget | None = None
    read_before_write: bool = True
    """``write_file`` over an existing file this turn has not read is refused (Claude Code's
    Write rule): a small model otherwise overwrites a memory it never looked at."""
    write_receipt: bool = True
    """A write or edit of a memory file or the index returns what was stored and what is wrong."""
    index_nudge: bool = False
    """After a memory write that no index line links, the receipt gives the line to append.
    Off by default: the index is the agent's to curate, not reconciled by the platform."""
    keep_memory: bool = False
    """``write_file`` over a memory file that keeps none of its body's lines (as the turn first
    read it) is refused, saying to write a new file or edit the part that changed: a small
    model reads a memory, then replaces it with the new fact. Off by default until the live
    check measures it (``levers=…+keep``)."""

    @field_validator("context_files")
    @classmethod
    def _normalise_paths(cls, value: list[str] | None) -> list[str] | None:
        if value is None:
            return None
        out: list[str] = []
        for path in value:
            # A context file is a workspace path; the same rule as every file tool.
            try:
                rel = normalize(path, allow_absolute=True)
            except UnsafePathError as e:
                raise ValueError(f"context_files entry: {e.strerror}") from None
            if not rel:
                raise ValueError(
                    f"context_files entry {path!r} names the workspace root; name a file such "
                    "as 'MEMORY.md' or 'notes/brief.md'."
                )
            if rel not in out:
                out.append(rel)
        return out

    @property
    def has_workspace(self) -> bool:
        return self.function.workspace

    @property
    def memory_enabled(self) -> bool:
        """Memory is on only when the flag is on *and* the app has a workspace to keep it in."""
        return self.memory and self.function.workspace

    def effective_context_files(self, index_path: str = INDEX_FILE) -> list[str]:
        """The files injected into each turn: the declared ones, plus the memory index
        (``index_path``, where the workspace's layout keeps it) when memory is on."""
        files = list(self.context_files or [])
        if self.memory_enabled and index_path not in files:
            files.append(index_path)
        return files

    @classmethod
    def from_app_json(cls, app: dict[str, Any]) -> AgentManifest:
        """Read an ``app.json``-style dict.

        The agent settings may sit under ``"agent"`` (``{"agent": {"context_files": [...],
        "memory": false}, "function": {"workspace": true}}``) or at the top level; the other
        keys an ``app.json`` carries (name, tools, collections …) are ignored.
        """
        if not isinstance(app, dict):
            raise ValueError(
                f"app.json must be a JSON object, got {type(app).__name__}; expected e.g. "
                '{"agent": {"context_files": ["MEMORY.md"], "memory": true}}.'
            )
        agent = app.get("agent", {})
        if agent is None:
            agent = {}
        if not isinstance(agent, dict):
            raise ValueError(
                f'app.json "agent" must be an object, got {type(agent).__name__}; expected e.g. '
                '{"context_files": ["MEMORY.md"], "memory": true}.'
            )
        fields = {k: app[k] for k in cls.model_fields if k in app}
        fields.update({k: agent[k] for k in cls.model_fields if k in agent})
        if fields.get("function") is None:
            fields.pop("function", None)
        return cls.model_validate(fields)
