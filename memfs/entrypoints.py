"""The entry-point matrix (seed §2.3, decision 8): who reads memory, who writes it, who gets none.

Memory is workspace files, so an entry point with no item workspace has nowhere to keep it —
"physics, not a trade-off". The builders here make that a property of the API: the ones for KB
chat, sub-agents, card jobs and wiki jobs take no workspace and no manifest at all, so there is
no argument through which memory could reach them.

=================  =================  ==============  =========================================
entry point        item workspace     memory          builder
=================  =================  ==============  =========================================
app chat           yes                read + write    :func:`app_chat_turn`
workflow turn      yes (same item)    read only       :func:`workflow_turn` (read-only mount)
KB chat            no (a retriever)   none            :func:`kb_chat_turn`
sub-agent          no (disposable)    none            :func:`sub_agent_turn`
card job           no                 none            :func:`card_job_turn`
wiki job           no (wiki's store)  none            :func:`wiki_job_turn`
=================  =================  ==============  =========================================
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from memfs.filesystem import MemFS
from memfs.turns import ChatTurn, Message, assemble_turn, build_chat_turn, build_workflow_turn


class MemoryAccess(StrEnum):
    READ_WRITE = "read+write"
    READ = "read"
    NONE = "none"


@dataclass(frozen=True)
class EntryPoint:
    name: str
    has_workspace: bool
    memory: MemoryAccess
    builder: Callable[..., ChatTurn]
    why: str


def app_chat_turn(**kwargs: Any) -> ChatTurn:
    """App chat: memory injected, and the turn's file tools write it (``fs`` as given)."""
    return build_chat_turn(**kwargs)


def workflow_turn(**kwargs: Any) -> ChatTurn:
    """Workflow turn: memory injected through a read-only mount; writes are refused."""
    return build_workflow_turn(**kwargs)


def _no_memory(*, history: list[Message], user_message: str, system_prompt: str) -> ChatTurn:
    return assemble_turn(
        history=history, user_message=user_message, context_block="", system_prompt=system_prompt
    )


def kb_chat_turn(*, history: list[Message], user_message: str, system_prompt: str = "") -> ChatTurn:
    """KB chat: a retriever over collections, no item workspace — no memory, no memory prompt."""
    return _no_memory(history=history, user_message=user_message, system_prompt=system_prompt)


def sub_agent_turn(*, task: str, system_prompt: str = "") -> ChatTurn:
    """A sub-agent (``ask_knowledge_base`` / ``ask_wiki``): a disposable, isolated context."""
    return _no_memory(history=[], user_message=task, system_prompt=system_prompt)


def card_job_turn(*, instructions: str, system_prompt: str = "") -> ChatTurn:
    """The context-card drafting job: no item workspace, no memory."""
    return _no_memory(history=[], user_message=instructions, system_prompt=system_prompt)


def wiki_job_turn(*, instructions: str, system_prompt: str = "") -> ChatTurn:
    """A wiki job: it has a file store, but the wiki's, not an item's — no memory."""
    return _no_memory(history=[], user_message=instructions, system_prompt=system_prompt)


ENTRY_POINTS: dict[str, EntryPoint] = {
    e.name: e
    for e in (
        EntryPoint("app_chat", True, MemoryAccess.READ_WRITE, app_chat_turn, "the item's chat"),
        EntryPoint(
            "workflow_turn", True, MemoryAccess.READ, workflow_turn, "decision 6: reads, no writes"
        ),
        EntryPoint("kb_chat", False, MemoryAccess.NONE, kb_chat_turn, "only a retriever"),
        EntryPoint("sub_agent", False, MemoryAccess.NONE, sub_agent_turn, "isolated by design"),
        EntryPoint("card_job", False, MemoryAccess.NONE, card_job_turn, "no item workspace"),
        EntryPoint("wiki_job", False, MemoryAccess.NONE, wiki_job_turn, "the wiki's store"),
    )
}


def tools_fs(entry_point: str, fs: MemFS | None) -> MemFS | None:
    """The mount an entry point's file tools get: writable, read-only, or nothing."""
    try:
        access = ENTRY_POINTS[entry_point].memory
    except KeyError:
        raise ValueError(
            f"Unknown entry point {entry_point!r}; choose one of {', '.join(ENTRY_POINTS)}."
        ) from None
    if fs is None or access is MemoryAccess.NONE:
        return None
    return fs if access is MemoryAccess.READ_WRITE else fs.read_only()
