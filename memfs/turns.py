"""Turn builders: the messages one agent turn sends, and the transcript it persists.

A chat turn and a workflow turn are built the same way — system prompt
(the app's prompt plus the memory section), transcript, then the newest user message with the
context block next to it — with two differences: a workflow turn reads its files through a
read-only mount of the same workspace, and its memory section says memory is read-only there.

Where the block goes is the turn's ``placement`` (:data:`PLACEMENTS`): in front of the newest
user message (``prefix``, the default), as a message of its own right before it (``message``),
or at the end of this turn's system prompt (``system``); how it is framed is its ``framing``
(:data:`memfs.context.FRAMINGS`). Every placement keeps the same guarantees: the block is rebuilt
every turn, sent only on the messages of this turn (the transcript to persist holds the plain user
message, so replaying a conversation never stacks old blocks, and building the same turn twice
gives the same messages), and the transcript reducer never drops it.
"""

from __future__ import annotations

import copy
import functools
import marshal
from collections.abc import Callable
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict

from memfs.budget import TruncationReport, reduce_transcript, window_warning
from memfs.context import Framing, build_context_block
from memfs.filesystem import MemFS
from memfs.manifest import AgentManifest
from memfs.memory_access import TurnMode, mount_for_mode
from memfs.prompt import PromptVariant, memory_prompt

Message = dict[str, Any]
"""One chat message in OpenAI format."""

Placement = Literal["prefix", "message", "system"]
"""Where a turn sends its context block: in front of the newest user message, as a user message
of its own right before it, or at the end of this turn's system prompt."""
PLACEMENTS: tuple[Placement, ...] = get_args(Placement)


class ChatTurn(BaseModel):
    """One turn, ready to send: ``messages`` go to the model, ``persist`` goes to storage."""

    model_config = ConfigDict(frozen=True)

    messages: list[Message]
    """``[system] + transcript + [user message]`` (OpenAI format), the block placed as ``placement``
    says: in front of the user message, as a message before it, or at the end of the system."""
    persist: list[Message]
    """``transcript + [plain user message]``: never contains the context block."""
    context_block: str
    """The injected block, ``""`` when nothing was injected (zero tokens)."""
    system_prompt: str
    """The app prompt, the memory section and the caller's suffix: the system message's content,
    less the block when ``placement`` is ``system``."""
    mode: TurnMode = "chat"
    placement: Placement = "prefix"
    reduction: TruncationReport | None = None
    """What the transcript reducer dropped, when the turn was built with a token budget."""
    window_warning: str = ""
    """One line when the block alone exceeds the model's window (``window_tokens`` given):
    said before the request is sent (:func:`memfs.budget.window_warning`); ``""`` otherwise."""


_set = object.__setattr__


def _constructed(**fields: Any) -> ChatTurn:
    """A :class:`ChatTurn` of checked parts, as ``ChatTurn.model_construct(**fields)`` makes it
    when every field is given: no validation (which copied every message once more) and none of
    ``model_construct``'s per-field search for aliases and defaults (4 of a turn's 25 µs)."""
    turn = ChatTurn.__new__(ChatTurn)
    _set(turn, "__dict__", fields)
    _set(turn, "__pydantic_fields_set__", set(fields))
    _set(turn, "__pydantic_extra__", None)
    _set(turn, "__pydantic_private__", None)
    return turn


_SHARED = (str, int, float, bool, type(None))
"""Values a copy may share with its original: nothing can change them in place."""


def _copied_all(messages: list[Message]) -> list[Message]:
    """Copies of ``messages`` that share nothing mutable with them.

    ``marshal`` copies a list of builtin values in C, about twice as fast as :func:`_copied`
    (a 60-message transcript: 19 µs against 42); it refuses any other type, even a subclass of
    ``dict`` or ``str``, and then each message is copied by :func:`_copied`."""
    try:
        copies: list[Message] = marshal.loads(marshal.dumps(messages))
    except ValueError:  # a value marshal cannot write: not plain JSON-shaped data
        return [_copied(m) for m in messages]
    return copies


def _copied(value: Any) -> Any:
    """A copy of a message or of a value inside one that shares nothing mutable with it.

    A transcript is JSON-shaped (dicts, lists, strings, numbers): those are copied here, each
    string shared, at a fraction of ``copy.deepcopy``'s cost (its memo and dispatch were most of
    a turn with a long transcript); anything else goes to ``copy.deepcopy``."""
    kind = type(value)
    if kind is dict:
        return {k: v if type(v) in _SHARED else _copied(v) for k, v in value.items()}
    if kind is list:
        return [v if type(v) in _SHARED else _copied(v) for v in value]
    return copy.deepcopy(value)


def compose_system_prompt(
    system_prompt: str,
    manifest: AgentManifest,
    *,
    mount: MemFS | None,
    variant: PromptVariant = "full",
) -> str:
    """The app's own prompt followed by its memory section (when the app has memory).

    The section follows the mount the turn reads through: its layout says where files go, and
    it says memory is read-only exactly when the mount is. No mount (no workspace) drops the
    section: a turn with no place to keep memory must not be told to write it.
    """
    memory = (
        ""
        if mount is None
        else memory_prompt(
            manifest, layout=mount.layout, variant=variant, read_only=mount.is_read_only
        )
    )
    return _joined(system_prompt, memory)


@functools.lru_cache(maxsize=64)  # an app's prompt and a memory section: the same every turn
def _joined(system_prompt: str, memory: str) -> str:
    return "\n\n".join([p.strip("\n") for p in (system_prompt, memory) if p.strip()])


def assemble_turn(
    *,
    transcript: list[Message],
    user_message: str,
    context_block: str,
    system_prompt: str,
    mode: TurnMode = "chat",
    budget_tokens: int | None = None,
    placement: Placement = "prefix",
    window_tokens: int | None = None,
) -> ChatTurn:
    """Put a turn together from its parts; every builder ends here.

    With ``budget_tokens`` the messages go through :func:`~memfs.budget.reduce_transcript`: the
    conversation is cut, never the block nor the newest message (a system message is never cut
    and a message that starts with the block is protected). ``persist`` stays whole.
    """
    if placement not in PLACEMENTS:
        raise ValueError(f"placement={placement!r}: use one of {', '.join(PLACEMENTS)}.")
    for n, message in enumerate(transcript):
        if not isinstance(message, dict):
            raise TypeError(
                f"transcript[{n}] is a {type(message).__name__}, not a message: each message is "
                "a dict such as {'role': 'user', 'content': '…'}."
            )
    past = _copied_all(transcript) if transcript else []
    # The block without its closing blank line, for the placements that need it (a copy: at
    # 10,000 memories, a megabyte of fresh pages a turn that a prefixed turn does not need).
    block = (
        context_block.rstrip("\n")
        if placement != "prefix" or budget_tokens is not None
        else context_block
    )
    system = system_prompt
    if block and placement == "system":
        system = "\n\n".join(p for p in (system_prompt, block) if p)
    messages: list[Message] = []
    if system:
        messages.append({"role": "system", "content": system})
    if past:
        messages.extend(_copied_all(past))
    if block and placement == "message":
        messages.append({"role": "user", "content": block})
    prefix = context_block if placement == "prefix" else ""
    messages.append({"role": "user", "content": prefix + user_message})
    persist = [*past, {"role": "user", "content": user_message}]
    reduction = None
    if budget_tokens is not None:
        reduced = reduce_transcript(messages, budget_tokens, protected_prefix=block)
        messages, reduction = reduced.messages, reduced.report
    return _constructed(
        messages=messages,
        persist=persist,
        context_block=context_block,
        system_prompt=system_prompt,
        mode=mode,
        placement=placement,
        reduction=reduction,
        window_warning=window_warning(context_block, window_tokens),
    )


def build_turn(
    *,
    transcript: list[Message],
    user_message: str,
    manifest: AgentManifest,
    fs: MemFS | None,
    mode: TurnMode = "chat",
    system_prompt: str = "",
    prompt_variant: PromptVariant = "full",
    budget_tokens: int | None = None,
    placement: Placement = "prefix",
    framing: Framing = "reminder",
    system_suffix: str = "",
    window_tokens: int | None = None,
) -> ChatTurn:
    """A turn of an item's agent: the context block and the memory prompt for ``mode``.

    ``transcript`` is the persisted conversation without a system message; ``fs`` the item's
    workspace (None: no memory at all). The turn reads through the mount the entry-point matrix
    gives ``mode`` (:func:`memfs.memory_access.mount_for_mode`): a chat turn the workspace as
    given, a workflow turn a read-only mount, whose file tools get the filesystem's EROFS
    refusal on every write. The memory prompt says read-only exactly when the mount is.
    ``budget_tokens`` (optional) fits the messages to a token budget; see
    :func:`assemble_turn`. ``placement`` and ``framing`` say where the block goes and how it
    is framed (module docstring). ``system_suffix`` is text the caller puts after the memory
    section (a runner's prose list of its tools), so the turn builder writes the whole system
    message and a block placed there comes last. ``window_tokens``, the model's context window
    when known, sets ``window_warning`` when the block alone cannot fit it.
    """
    mount = mount_for_mode(mode, fs)
    system = compose_system_prompt(system_prompt, manifest, mount=mount, variant=prompt_variant)
    return assemble_turn(
        transcript=transcript,
        user_message=user_message,
        context_block=build_context_block(mount, manifest, framing),
        system_prompt=f"{system}\n\n{system_suffix}"
        if system and system_suffix
        else system or system_suffix,
        mode=mode,
        budget_tokens=budget_tokens,
        placement=placement,
        window_tokens=window_tokens,
    )


def build_chat_turn(**kwargs: Any) -> ChatTurn:
    """An app chat turn: memory is injected, and the agent's file tools write it."""
    return build_turn(mode="chat", **kwargs)


def build_workflow_turn(**kwargs: Any) -> ChatTurn:
    """A workflow turn: the same block as chat, read through a read-only mount."""
    return build_turn(mode="workflow", **kwargs)


def _no_memory(*, transcript: list[Message], user_message: str, system_prompt: str) -> ChatTurn:
    return assemble_turn(
        transcript=transcript,
        user_message=user_message,
        context_block="",
        system_prompt=system_prompt,
    )


def kb_chat_turn(
    *, transcript: list[Message], user_message: str, system_prompt: str = ""
) -> ChatTurn:
    """KB chat: a retriever over collections, no item workspace — no memory, no memory prompt."""
    return _no_memory(transcript=transcript, user_message=user_message, system_prompt=system_prompt)


def sub_agent_turn(*, task: str, system_prompt: str = "") -> ChatTurn:
    """A sub-agent (``ask_knowledge_base`` / ``ask_wiki``): a disposable, isolated context."""
    return _no_memory(transcript=[], user_message=task, system_prompt=system_prompt)


def card_job_turn(*, instructions: str, system_prompt: str = "") -> ChatTurn:
    """The context-card drafting job: no item workspace, no memory."""
    return _no_memory(transcript=[], user_message=instructions, system_prompt=system_prompt)


def wiki_job_turn(*, instructions: str, system_prompt: str = "") -> ChatTurn:
    """A wiki job: it has a file store, but the wiki's, not an item's — no memory."""
    return _no_memory(transcript=[], user_message=instructions, system_prompt=system_prompt)


BUILDERS: dict[str, Callable[..., ChatTurn]] = {
    "app_chat": build_chat_turn,
    "workflow_turn": build_workflow_turn,
    "kb_chat": kb_chat_turn,
    "sub_agent": sub_agent_turn,
    "card_job": card_job_turn,
    "wiki_job": wiki_job_turn,
}
"""The turn builder of each entry point of :data:`memfs.memory_access.ENTRY_POINTS`."""
