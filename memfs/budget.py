"""The transcript reducer: fit a turn's messages into a token budget without touching memory.

The memory block rides on the newest user message, and the reducer never drops the newest
message — so memory is immune to reduction and, when the index grows, it crowds out the
conversation instead. That is the accepted trade-off: the index has no size cap, and a reducer
allowed to drop memory would make the agent forget without anyone seeing it (docs/design.md,
*The block rides on the newest user message*). This module does the crowding out in this order
and reports it:

1. tool outputs, oldest first, are replaced by a short stub (the call stays, so the
   assistant/tool pairing the API requires stays valid);
2. the middle of the conversation — everything after the first user message and before the
   newest — oldest first;
3. the oldest turns, the first user message (often the task itself) included.

Never dropped: leading system messages, the newest message, and any message that carries the
memory block (``protected_prefix``), which matters inside a multi-step turn where the newest
message is a tool result and the block sits on the user message before it.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from memfs.tokens import estimate_tokens, with_margin

Message = dict[str, Any]
Stage = Literal["tool_output", "middle", "oldest"]

MESSAGE_OVERHEAD_TOKENS = 4
"""Per-message framing (role, separators) that chat templates add around the content."""

TOOL_OUTPUT_STUB = "[tool output removed to fit the context budget]"


def message_tokens(message: Message) -> int:
    """Estimated tokens of one OpenAI-format message: content, tool calls and framing."""
    content = message.get("content")
    if isinstance(content, list):
        text = "".join(
            part.get("text", "") if isinstance(part, dict) else str(part) for part in content
        )
    else:
        text = "" if content is None else str(content)
    calls = message.get("tool_calls")
    if calls:
        text += json.dumps(calls, ensure_ascii=False, default=str)
    return estimate_tokens(text) + MESSAGE_OVERHEAD_TOKENS


def messages_tokens(messages: list[Message]) -> int:
    return sum(message_tokens(m) for m in messages)


class DroppedMessage(BaseModel):
    """One message the reducer removed (or, for a tool output, emptied)."""

    model_config = ConfigDict(frozen=True)

    index: int
    """Position in the messages given to the reducer."""
    role: str
    stage: Stage
    tokens: int
    """Tokens this freed."""


class TruncationReport(BaseModel):
    """What a reduction cost the conversation, for logs and for a note to the user."""

    model_config = ConfigDict(frozen=True)

    dropped: list[DroppedMessage]
    tokens_before: int
    tokens_after: int
    budget_tokens: int | None = None
    protected_tokens: int = 0
    """Tokens of the memory block, which the reducer never touches."""

    @property
    def truncated(self) -> bool:
        return bool(self.dropped)

    @property
    def fits(self) -> bool:
        return self.budget_tokens is None or self.tokens_after <= self.budget_tokens

    def count(self, stage: Stage) -> int:
        return sum(1 for d in self.dropped if d.stage == stage)

    def summary(self) -> str:
        """One line naming what was dropped, or ``""`` when nothing was."""
        if not self.dropped and self.fits:
            return ""
        parts = []
        labels = {
            "tool_output": "tool output(s) emptied",
            "middle": "message(s) from the middle of the conversation dropped",
            "oldest": "of the oldest message(s) dropped",
        }
        for stage in ("tool_output", "middle", "oldest"):
            n = self.count(stage)  # type: ignore[arg-type]
            if n:
                parts.append(f"{n} {labels[stage]}")
        line = "Context budget: " + ("; ".join(parts) if parts else "nothing could be dropped")
        line += f" ({self.tokens_before:,} → {self.tokens_after:,} tokens"
        if self.budget_tokens is not None:
            line += f", budget {self.budget_tokens:,}"
        line += ")."
        if self.protected_tokens:
            line += f" The memory block ({self.protected_tokens:,} tokens) was kept."
        if not self.fits:
            line += " Still over budget: only the system prompt, memory and newest message remain."
        return line


class ReduceResult(BaseModel):
    """The messages to send, and the report of what was dropped to get there."""

    model_config = ConfigDict(frozen=True)

    messages: list[Message]
    report: TruncationReport

    @property
    def dropped(self) -> list[DroppedMessage]:
        return self.report.dropped

    @property
    def truncated(self) -> bool:
        return self.report.truncated

    @property
    def fits(self) -> bool:
        return self.report.fits


def _units(messages: list[Message]) -> list[list[int]]:
    """Indices grouped so an assistant tool call and its tool results leave together."""
    units: list[list[int]] = []
    for i, m in enumerate(messages):
        if m.get("role") in ("tool", "function") and units:
            prev = messages[units[-1][0]]
            if prev.get("role") == "assistant" and prev.get("tool_calls"):
                units[-1].append(i)
                continue
        units.append([i])
    return units


def _carries(message: Message, block: str) -> bool:
    """Whether ``message`` carries the context block: it starts with it (in front of the user's
    message, or a message of its own), or, a system message, ends with it."""
    content = message.get("content")
    if not block or not isinstance(content, str):
        return False
    return content.startswith(block) or (
        message.get("role") == "system" and content.endswith(block)
    )


def reduce_transcript(
    messages: list[Message], budget_tokens: int, *, protected_prefix: str = ""
) -> ReduceResult:
    """``messages`` cut to ``budget_tokens`` in the order tool outputs → middle → oldest.

    ``protected_prefix`` is the context block: a message whose content starts with it is never
    dropped. The result may still be over budget when only protected messages are left; the
    report says so (memory crowds out the conversation, it is never cut).
    """
    if budget_tokens < 0:
        raise ValueError(f"budget_tokens must be zero or more, got {budget_tokens}.")
    work: list[Message | None] = [dict(m) for m in messages]
    sizes = [message_tokens(m) for m in messages]
    original_sizes = list(sizes)
    before = sum(sizes)
    total = before
    dropped: list[DroppedMessage] = []
    protected_tokens = estimate_tokens(protected_prefix) if protected_prefix else 0
    if not any(_carries(m, protected_prefix) for m in messages):
        protected_tokens = 0

    n = len(messages)
    keep = {n - 1} if n else set()
    lead = 0
    while lead < n and messages[lead].get("role") == "system":
        keep.add(lead)
        lead += 1
    keep |= {i for i, m in enumerate(messages) if _carries(m, protected_prefix)}

    # 1. Tool outputs, oldest first: emptied, not removed, so every call keeps its answer.
    for i, m in enumerate(messages):
        if total <= budget_tokens:
            break
        if i in keep or m.get("role") not in ("tool", "function"):
            continue
        stub = {**m, "content": TOOL_OUTPUT_STUB}
        freed = sizes[i] - message_tokens(stub)
        if freed <= 0:
            continue
        work[i] = stub
        total -= freed
        sizes[i] -= freed
        dropped.append(
            DroppedMessage(index=i, role=str(m.get("role")), stage="tool_output", tokens=freed)
        )

    # 2 and 3. Whole units: first the middle (after the first user message), then the oldest.
    units = [u for u in _units(messages) if not (set(u) & keep)]
    first_user = next(
        (i for i, m in enumerate(messages) if i >= lead and m.get("role") == "user"), None
    )
    middle = [u for u in units if first_user is not None and u[0] > first_user]
    oldest = [u for u in units if u not in middle]
    for stage, group in (("middle", middle), ("oldest", oldest)):
        for unit in group:
            if total <= budget_tokens:
                break
            for i in unit:
                m = messages[i]
                # A tool output emptied in stage 1 and now dropped whole is reported once.
                dropped = [d for d in dropped if d.index != i]
                dropped.append(
                    DroppedMessage(
                        index=i,
                        role=str(m.get("role")),
                        stage=stage,  # type: ignore[arg-type]
                        tokens=original_sizes[i],
                    )
                )
                total -= sizes[i]
                work[i] = None

    out = [m for m in work if m is not None]
    report = TruncationReport(
        dropped=sorted(dropped, key=lambda d: (d.index, d.stage)),
        tokens_before=before,
        tokens_after=total,
        budget_tokens=budget_tokens,
        protected_tokens=protected_tokens,
    )
    return ReduceResult(messages=out, report=report)


def window_warning(context_block: str, window_tokens: int | None) -> str:
    """One line when the context block alone cannot fit a model window of ``window_tokens``
    (the estimate, with its safety margin), ``""`` otherwise or when the window is unknown.

    Memory is never cut and the index has no cap, so the cost is said instead, before a
    request is sent: a block this large leaves the model no room for the conversation, or
    gets cut silently by a server that truncates its prompt.
    """
    if not window_tokens or not context_block:
        return ""
    tokens = with_margin(estimate_tokens(context_block))
    if tokens <= window_tokens:
        return ""
    return (
        f"Context window: the memory block is ~{tokens:,} tokens (with the estimate's margin), "
        f"more than the model's whole window of {window_tokens:,}; the request cannot fit. "
        "Shorten MEMORY.md (pack cold memories into one line) or use a model with a larger "
        "window."
    )


def detect_truncation(
    original: list[Message], sent: list[Message], *, protected_prefix: str = ""
) -> TruncationReport:
    """After the fact: which of ``original`` did not reach the model in ``sent``.

    Matches ``sent`` against ``original`` in order; a message that is missing is reported as
    dropped (``middle`` if a user message came before it, else ``oldest``), a tool message whose
    content changed as an emptied tool output. For reductions done elsewhere (another reducer, a
    proxy) as well as this module's own.
    """
    dropped: list[DroppedMessage] = []
    j = 0
    seen_user = False
    for i, m in enumerate(original):
        s = sent[j] if j < len(sent) else None
        if s == m:
            j += 1
        elif (
            s is not None
            and m.get("role") in ("tool", "function")
            and s.get("role") == m.get("role")
            and s.get("tool_call_id") == m.get("tool_call_id")
        ):
            freed = message_tokens(m) - message_tokens(s)
            dropped.append(
                DroppedMessage(index=i, role=str(m.get("role")), stage="tool_output", tokens=freed)
            )
            j += 1
        else:
            stage: Stage = "middle" if seen_user else "oldest"
            dropped.append(
                DroppedMessage(
                    index=i, role=str(m.get("role")), stage=stage, tokens=message_tokens(m)
                )
            )
        if m.get("role") == "user":
            seen_user = True
    carried = any(_carries(m, protected_prefix) for m in sent)
    return TruncationReport(
        dropped=dropped,
        tokens_before=messages_tokens(original),
        tokens_after=messages_tokens(sent),
        protected_tokens=estimate_tokens(protected_prefix) if carried else 0,
    )
