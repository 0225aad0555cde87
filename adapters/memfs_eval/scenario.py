"""Scenarios of the live check: data (YAML under ``scenarios/``), validated by pydantic.

A scenario is one input given to a real model N times: the workspace it starts from, the
conversation so far, the user's message, and what the deterministic judges expect of the
resulting files and transcript. The ``kind`` decides which class counts as a pass.
"""

from __future__ import annotations

import datetime as dt
from importlib import resources
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, field_validator

Kind = Literal["write", "recall", "boundary", "planted", "workflow"]
MemoryType = Literal["user", "feedback", "project", "reference"]

PASS_CLASS: dict[str, str] = {
    "write": "memory_written",
    "recall": "recall_pass",
    "boundary": "routed_elsewhere",
    "planted": "resisted",
    "workflow": "read_only_respected",
}
"""The outcome class that counts as a pass, per scenario kind."""

MEMORY_TYPES: tuple[MemoryType, ...] = ("user", "feedback", "project", "reference")

CROSS_ITEM_TOOLS = (
    "save_skill",
    "save_workflow",
    "create_context_card",
    "update_context_card",
    "request_wiki_update",
)
"""The platform's mechanisms for knowledge that would still hold in another item."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Fact(_Strict):
    """A fact that must land in a memory file: any one of the keywords, in a file of these types."""

    id: str
    any_of: list[str] = Field(min_length=1)
    types: list[MemoryType] = Field(default_factory=lambda: list(MEMORY_TYPES))
    inverted: list[str] = Field(
        default_factory=list,
        description="regexes (lower case, on NFKC text) of a sentence stating the fact's "
        "opposite ('filter out non-trial accounts' for 'trial accounts are left out'); a "
        "memory that says it holds the inversion, not the fact. A fact with no opposite (a "
        "date, a host name) lists none",
    )


class Identity(_Strict):
    """A user-identity fact ("I am a process engineer") whose polarity must survive the write."""

    role: list[str] = Field(min_length=1, description="ways the role may be written")


class Recall(_Strict):
    """What the answer must contain (every group: any one keyword) and must not (regexes)."""

    all_groups: list[list[str]] = Field(default_factory=list)
    forbid: list[str] = Field(default_factory=list, description="case-insensitive regexes")


class Expect(_Strict):
    facts: list[Fact] = Field(default_factory=list)
    identity: Identity | None = None
    allowed_specifics: list[str] = Field(
        default_factory=list,
        description="numbers the user implied without writing them ('1' for 'one decimal')",
    )
    require_why_how: bool = False
    absolute_dates: list[str] = Field(
        default_factory=list, description="ISO dates any one of which the memory must carry"
    )
    secrets: list[str] = Field(default_factory=list, description="strings that must never persist")
    recall: Recall | None = None
    protected: list[str] = Field(
        default_factory=list, description="files a planted instruction targets; must survive"
    )
    user_may_change: list[str] = Field(
        default_factory=list,
        description="files the user asked to replace or delete: losing them is not destroying",
    )
    wrong_tools: list[str] = Field(default_factory=lambda: list(CROSS_ITEM_TOOLS))
    routing_tools: list[str] = Field(default_factory=lambda: list(CROSS_ITEM_TOOLS))


class Scenario(_Strict):
    id: str
    title: str
    lang: str = Field(pattern=r"^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$", description="a BCP 47 tag")
    kind: Kind
    mode: Literal["chat", "workflow"] = "chat"
    today: dt.date = Field(description="the eval clock: the date the agent is told and stamps")
    source: str = Field(default="", description="where in the design this comes from")
    seed_files: dict[str, str] = Field(default_factory=dict)
    transcript: list[dict[str, str]] = Field(default_factory=list)
    user_message: str
    expect: Expect = Field(default_factory=Expect)

    @field_validator("seed_files")
    @classmethod
    def _relative_paths(cls, v: dict[str, str]) -> dict[str, str]:
        for path in v:
            if path.startswith("/") or ".." in path.split("/"):
                raise ValueError(f"seed file {path!r} must be a workspace-relative path")
        return v

    @property
    def pass_class(self) -> str:
        return PASS_CLASS[self.kind]

    def user_text(self) -> str:
        """Everything the user said: the source every specific in a memory must come from."""
        said = [m.get("content", "") for m in self.transcript if m.get("role") == "user"]
        return "\n".join([*said, self.user_message])


class ScenarioError(ValueError):
    """A scenario file that does not validate, or a scenario id that does not exist."""


def _scenario_dir() -> Path:
    return Path(str(resources.files("memfs_eval") / "scenarios"))


def load_scenario_file(path: str | Path) -> Scenario:
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        return Scenario.model_validate(data)
    except (yaml.YAMLError, ValueError) as e:
        raise ScenarioError(f"Scenario file {str(path)!r} is not valid: {e}") from e


def load_scenarios(
    ids: list[str] | None = None, *, directory: str | Path | None = None
) -> list[Scenario]:
    """The packaged scenarios (or those in ``directory``), sorted by id, optionally filtered.

    An id selects exactly that scenario, or every scenario whose id starts with ``id-``
    (``s45-write`` selects ``s45-write-zh`` and ``s45-write-en``).
    """
    root = Path(directory) if directory else _scenario_dir()
    every = sorted((load_scenario_file(p) for p in root.glob("*.yaml")), key=lambda s: s.id)
    seen: set[str] = set()
    for s in every:
        if s.id in seen:
            raise ScenarioError(f"Two scenario files in {str(root)!r} use the id {s.id!r}.")
        seen.add(s.id)
    if not ids:
        return every
    chosen: list[Scenario] = []
    for wanted in ids:
        hits = [s for s in every if s.id == wanted or s.id.startswith(wanted + "-")]
        if not hits:
            raise ScenarioError(
                f"No scenario {wanted!r}. Known ids: {', '.join(s.id for s in every)}."
            )
        chosen.extend(h for h in hits if h not in chosen)
    return chosen
