"""Turn builders: the messages one agent turn sends, and the history it persists.

Seed Phase 1 and §2.3. A chat turn and a workflow turn are built the same way — system prompt
(the app's prompt plus the memory section), history, then the newest user message with the
context block in front of it — with two differences: a workflow turn reads its files through a
read-only mount of the same workspace, and its memory section says memory is read-only there.

The block rides only on the message sent. The history to persist holds the plain user message,
so replaying a conversation never stacks old blocks, and building the same turn twice gives the
same messages.
"""

from __future__ import annotations

import copy
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from memfs.budget import TruncationReport, reduce_history
from memfs.context import build_context_block
from memfs.filesystem import MemFS
from memfs.manifest import AgentManifest
from memfs.prompt import PromptVariant, memory_prompt

Message = dict[str, Any]
TurnMode = Literal["chat", "workflow"]


class ChatTurn(BaseModel):
    """One turn, ready to send: ``messages`` go to the model, ``persist`` goes to storage."""

    model_config = ConfigDict(frozen=True)

    messages: list[Message]
    """``[system] + history + [user message with the context block in front]`` (OpenAI format)."""
    persist: list[Message]
    """``history + [plain user message]``: never contains the context block."""
    context_block: str
    """The injected block, ``""`` when nothing was injected (zero tokens)."""
    system_prompt: str
    """The app prompt followed by the memory section; the system message's content."""
    mode: TurnMode = "chat"
    reduction: TruncationReport | None = None
    """What the history reducer dropped, when the turn was built with a token budget."""


def compose_system_prompt(
    system_prompt: str,
    manifest: AgentManifest,
    *,
    variant: PromptVariant = "full",
    read_only: bool = False,
    has_workspace: bool = True,
) -> str:
    """The app's own prompt followed by its memory section (when the app has memory).

    ``has_workspace=False`` (no workspace was passed) drops the memory section: a turn with no
    place to keep memory must not be told to write it.
    """
    memory = memory_prompt(manifest, variant=variant, read_only=read_only) if has_workspace else ""
    parts = (system_prompt, memory)
    return "\n\n".join(p.strip("\n") for p in parts if p.strip())


def assemble_turn(
    *,
    history: list[Message],
    user_message: str,
    context_block: str,
    system_prompt: str,
    mode: TurnMode = "chat",
    budget_tokens: int | None = None,
) -> ChatTurn:
    """Put a turn together from its parts; every builder ends here.

    With ``budget_tokens`` the messages go through :func:`~memfs.budget.reduce_history`: the
    conversation is cut, never the block nor the newest message. ``persist`` stays whole.
    """
    past = copy.deepcopy(list(history))
    messages: list[Message] = []
    if system_prompt:
        messages.append({"role": "system", "content": system_prompt})
    messages.extend(copy.deepcopy(past))
    messages.append({"role": "user", "content": context_block + user_message})
    persist = [*past, {"role": "user", "content": user_message}]
    reduction = None
    if budget_tokens is not None:
        reduced = reduce_history(messages, budget_tokens, protected_prefix=context_block)
        messages, reduction = reduced.messages, reduced.report
    return ChatTurn(
        messages=messages,
        persist=persist,
        context_block=context_block,
        system_prompt=system_prompt,
        mode=mode,
        reduction=reduction,
    )


def build_chat_turn(
    *,
    history: list[Message],
    user_message: str,
    manifest: AgentManifest,
    fs: MemFS | None,
    system_prompt: str = "",
    prompt_variant: PromptVariant = "full",
    budget_tokens: int | None = None,
) -> ChatTurn:
    """An app chat turn: memory is read (injected) here, and written by the agent's file tools.

    ``history`` is the persisted conversation without a system message. ``fs`` is the item's
    workspace; its writable mount is what the chat turn's file tools get. ``budget_tokens``
    (optional) fits the messages to a token budget; see :func:`assemble_turn`.
    """
    return assemble_turn(
        history=history,
        user_message=user_message,
        context_block=build_context_block(fs, manifest),
        system_prompt=compose_system_prompt(
            system_prompt, manifest, variant=prompt_variant, has_workspace=fs is not None
        ),
        mode="chat",
        budget_tokens=budget_tokens,
    )


def build_workflow_turn(
    *,
    history: list[Message],
    user_message: str,
    manifest: AgentManifest,
    fs: MemFS | None,
    system_prompt: str = "",
    prompt_variant: PromptVariant = "full",
    budget_tokens: int | None = None,
) -> ChatTurn:
    """A workflow turn: the same block as chat, read through a read-only mount (decision 6).

    The file tools of a workflow run get ``workflow_fs(fs)``, so a write is refused with
    ``PermissionError(errno.EROFS)`` by the filesystem, not by this builder.
    """
    return assemble_turn(
        history=history,
        user_message=user_message,
        context_block=build_context_block(workflow_fs(fs), manifest),
        system_prompt=compose_system_prompt(
            system_prompt,
            manifest,
            variant=prompt_variant,
            read_only=True,
            has_workspace=fs is not None,
        ),
        mode="workflow",
        budget_tokens=budget_tokens,
    )


def workflow_fs(fs: MemFS | None) -> MemFS | None:
    """The mount a workflow run gets: the same workspace, read-only."""
    return None if fs is None else fs.read_only()
