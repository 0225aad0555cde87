"""The entry-point matrix: who reads memory, who writes it, who gets none — decided here only.

Memory is workspace files, so an entry point with no item workspace has nowhere to keep it. The
turn builders for those (:mod:`memfs.turns`) take no workspace and no manifest at all, so there
is no argument through which memory could reach them; the mount every other turn's context
block and file tools read through comes from :func:`mount_for`.

=================  =================  ==============  =========================================
entry point        item workspace     memory          mount (:func:`mount_for`)
=================  =================  ==============  =========================================
app chat           yes                read + write    the workspace as given
workflow turn      yes (same item)    read only       a read-only mount of it
KB chat            no (a retriever)   none            none
sub-agent          no (disposable)    none            none
card job           no                 none            none
wiki job           no (wiki's store)  none            none
=================  =================  ==============  =========================================
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from memfs.filesystem import MemFS

TurnMode = Literal["chat", "workflow"]
"""The two kinds of turn that have an item workspace."""


class MemoryAccess(StrEnum):
    READ_WRITE = "read+write"
    READ = "read"
    NONE = "none"


@dataclass(frozen=True)
class EntryPoint:
    name: str
    has_workspace: bool
    memory: MemoryAccess
    why: str


ENTRY_POINTS: dict[str, EntryPoint] = {
    e.name: e
    for e in (
        EntryPoint("app_chat", True, MemoryAccess.READ_WRITE, "the item's chat"),
        EntryPoint("workflow_turn", True, MemoryAccess.READ, "workflows read, never write"),
        EntryPoint("kb_chat", False, MemoryAccess.NONE, "only a retriever"),
        EntryPoint("sub_agent", False, MemoryAccess.NONE, "isolated by design"),
        EntryPoint("card_job", False, MemoryAccess.NONE, "no item workspace"),
        EntryPoint("wiki_job", False, MemoryAccess.NONE, "the wiki's store"),
    )
}

ENTRY_POINT_OF_MODE: dict[TurnMode, str] = {"chat": "app_chat", "workflow": "workflow_turn"}


def mount_for(entry_point: str, fs: MemFS | None) -> MemFS | None:
    """The mount an entry point's turn reads and writes through: writable, read-only, or none."""
    try:
        access = ENTRY_POINTS[entry_point].memory
    except KeyError:
        raise ValueError(
            f"Unknown entry point {entry_point!r}; choose one of {', '.join(ENTRY_POINTS)}."
        ) from None
    if fs is None or access is MemoryAccess.NONE:
        return None
    return fs if access is MemoryAccess.READ_WRITE else fs.read_only()


def mount_for_mode(mode: TurnMode, fs: MemFS | None) -> MemFS | None:
    """:func:`mount_for` the entry point a chat or workflow turn is."""
    if mode not in ENTRY_POINT_OF_MODE:
        raise ValueError(f"mode={mode!r}: use one of {', '.join(ENTRY_POINT_OF_MODE)}.")
    return mount_for(ENTRY_POINT_OF_MODE[mode], fs)
