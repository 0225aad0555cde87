"""One agent turn through ``litellm.completion``, with the file tools on a MemFS.

:func:`run_turn` builds the turn with memfs's turn builder (system prompt + memory section, the
context block on the newest user message) and the platform's prose tool list
(:func:`start_turn`), then loops over named steps until the model answers or ``max_steps`` is
reached: :func:`build_request`, :func:`call_model`, :func:`record_step` (usage, silent
truncation), :func:`parse_reply` (native ``tool_calls``, or calls written as text by a small
model), :func:`answer` when there are none (the stop), else :func:`run_call` for each call:
the :class:`RepeatGuard` answers a repeated call, :class:`TurnTools` runs the rest. How a turn
runs is one :class:`TurnOptions`.

A chat turn's file tools get the writable workspace; a workflow turn's get the read-only mount,
so a write comes back to the model as the filesystem's read-only error, not as an exception.
For Ollama models the resolved window is sent as ``num_ctx``; every response's
``prompt_tokens`` is checked against an estimate of what was sent (silent truncation).
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal, NamedTuple

from memfs import (
    FILE_TOOL_NAMES,
    FILE_WRITE_TOOLS,
    MEMORY_LAST_VARIANTS,
    REMEMBER,
    REMEMBER_BY_KIND,
    REMEMBER_FACTS,
    AgentManifest,
    FileToolExecutor,
    Framing,
    MemFS,
    Message,
    Placement,
    PromptVariant,
    ToolCallRecord,
    TurnMode,
    build_turn,
    mount_for_mode,
)
from pydantic import BaseModel, Field

from memfs_litellm.ollama import (
    DEFAULT_RESOLVER,
    ContextWindowResolver,
    check_truncation,
    estimate_prompt_tokens,
    is_ollama,
    window_kwargs,
)
from memfs_litellm.platform_tools import (
    PlatformToolRecorder,
    ToolSet,
    format_tools_for_prompt,
    is_file_tool,
    tool_schemas,
)
from memfs_litellm.textcalls import parse_text_tool_calls, strip_tool_calls

log = logging.getLogger(__name__)

MemoryTools = Literal["files", "files+remember", "remember", "facts", "kinds"]
"""How a turn writes memory: the file tools; ``remember`` offered beside them; ``remember``
only (the file tools refuse memory paths); ``remember_facts`` only (a list of facts, one
memory each, in one call); or ``remember_by_kind`` only (the facts in one list per memory
type)."""
MEMORY_TOOLS: tuple[str, ...] = ("files", "files+remember", "remember", "facts", "kinds")
_SAVERS = {"facts": REMEMBER_FACTS, "kinds": REMEMBER_BY_KIND}


def memory_saver(memory_tools: MemoryTools) -> str | None:
    """The tool that saves memory as records in a turn written this way (None: the file tools)."""
    if memory_tools == "files":
        return None
    return _SAVERS.get(memory_tools, REMEMBER)


_ASKS_TO_REMEMBER = re.compile(
    r"\b(?:remember|memori[sz]e|don'?t forget|keep in mind|make a note|note (?:down |that))"
    r"|記住|記得|记住|记得|別忘|别忘|記下|记下|覚えて|覚えておいて|기억",
    re.IGNORECASE,
)


def asks_to_remember(message: str) -> bool:
    """Whether a user message asks the agent to remember something (English, Chinese,
    Japanese, Korean wordings): the turns ``remember`` is forced on where a caller asks so
    (``memfs chat``'s ``remember`` memory tool, an eval arm's ``force=on``)."""
    return bool(_ASKS_TO_REMEMBER.search(message))


DEFAULT_APP_PROMPT = """\
You are the assistant of this item's app on a team workspace. Each item is one topic, project \
or production line; its workspace holds the files the team keeps for it. Help the user with \
the work of this item: answer questions, analyse data the user provides, draft documents, and \
keep the item's files up to date with the file tools. Be concise and concrete, say when you \
are unsure, and never invent figures, sources or schedules the user did not give you."""


class Usage(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    calls: int = 0


class StepRecord(BaseModel):
    step: int
    elapsed_s: float
    prompt_tokens: int | None
    completion_tokens: int | None
    estimated_prompt_tokens: int
    truncated: bool
    finish_reason: str | None = None


class TurnResult(BaseModel):
    model: str
    mode: TurnMode
    tools: ToolSet
    transcript: list[Message]
    """Every message sent and received, system prompt and context block included."""
    persist: list[Message]
    """What to store as the transcript: the plain user message, then this turn's replies and tool
    messages; the context block is never in it (replay-safe)."""
    tool_calls: list[ToolCallRecord] = Field(default_factory=list)
    final_text: str = ""
    usage: Usage = Field(default_factory=Usage)
    elapsed_s: float = 0.0
    steps: list[StepRecord] = Field(default_factory=list)
    stopped: Literal["answer", "max_steps"] = "answer"
    truncated: bool = False
    truncation_note: str | None = None
    window_warning: str = ""
    """One line when the memory block alone cannot fit the model's window (logged as a warning
    before the first request)."""
    num_ctx_sent: int | None = None
    window_source: str | None = None
    context_block: str = ""
    system_prompt: str = ""
    offered_tools: list[str] = Field(default_factory=list)


def _get(obj: Any, key: str, default: Any = None) -> Any:
    if obj is None:
        return default
    if isinstance(obj, dict):
        return obj.get(key, default)
    return getattr(obj, key, default)


def _native_calls(message: Any) -> list[tuple[str, str, Any]]:
    calls = []
    for i, tc in enumerate(_get(message, "tool_calls") or []):
        fn = _get(tc, "function")
        name = _get(fn, "name") or ""
        calls.append((_get(tc, "id") or f"call_{i}", name, _get(fn, "arguments")))
    return calls


def _args_for_record(arguments: Any) -> dict[str, Any] | str:
    if isinstance(arguments, dict):
        return arguments
    try:
        value = json.loads(arguments or "{}")
    except (TypeError, json.JSONDecodeError):
        return str(arguments)
    return value if isinstance(value, dict) else str(arguments)


def _args_json(arguments: Any) -> str:
    return arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)


REPEAT_SHOWN_CHARS = 600
"""How much of the earlier result the loop guard quotes back."""


def _call_key(name: str, arguments: Any) -> tuple[str, str]:
    parsed = _args_for_record(arguments)
    if isinstance(parsed, dict):
        return name, json.dumps(parsed, sort_keys=True, ensure_ascii=False)
    return name, str(parsed)


def repeat_message(previous: str) -> str:
    """What the loop guard answers instead of running an identical call a second time."""
    shown = previous
    if len(shown) > REPEAT_SHOWN_CHARS:
        shown = shown[:REPEAT_SHOWN_CHARS] + " […]"
    return (
        f"This exact call already ran in this turn and returned: {shown}\n"
        "It was not run again. Do the next step or answer the user."
    )


@dataclass(frozen=True)
class TurnOptions:
    """How one turn runs: everything but the model, the workspace, the manifest and the message.

    Each field is also a keyword of :func:`run_turn`, which fills the ones it is given over
    ``options`` (or over the defaults).

    ``tools="files-only"`` drops the platform's competing tools (an evaluation without them);
    ``tools_in_prompt=False`` drops the prose tool list from the system prompt; the
    ``full-after-tools`` variant puts the memory section after that list instead of before it.
    ``placement`` and ``framing`` are the turn builder's: where the context block goes and how it
    is framed (:mod:`memfs.turns`). ``loop_guard``: see :class:`RepeatGuard`.
    ``text_tool_calls`` also runs calls a model wrote in its reply (:mod:`memfs_litellm.textcalls`).
    ``context_window`` is the operator override for the model's window (sent to Ollama as
    ``num_ctx``); ``completion_kwargs`` go to every completion call as they are.
    ``memory_tools`` (:data:`MemoryTools`) offers the ``remember`` tool; ``first_tool`` forces
    that named function on the first call (``tool_choice``; small local servers ignore
    ``"required"`` but honour a named function).
    """

    mode: TurnMode = "chat"
    tools: ToolSet = "platform"
    prompt_variant: PromptVariant = "full"
    placement: Placement = "prefix"
    framing: Framing = "reminder"
    system_prompt: str = DEFAULT_APP_PROMPT
    max_steps: int = 6
    loop_guard: bool = True
    completion_kwargs: dict[str, Any] | None = None
    context_window: int | None = None
    tools_in_prompt: bool = True
    text_tool_calls: bool = True
    memory_tools: MemoryTools = "files"
    first_tool: str | None = None

    def __post_init__(self) -> None:
        if self.max_steps < 1:
            raise ValueError(f"max_steps must be at least 1, not {self.max_steps}.")
        if self.memory_tools not in MEMORY_TOOLS:
            raise ValueError(
                f"memory_tools must be one of {', '.join(MEMORY_TOOLS)}, not {self.memory_tools!r}."
            )


def turn_options(options: TurnOptions | None = None, **changes: Any) -> TurnOptions:
    """``options`` (default: :class:`TurnOptions`'s defaults) with ``changes`` applied."""
    base = options or TurnOptions()
    unknown = sorted(set(changes) - {f.name for f in fields(TurnOptions)})
    if unknown:
        raise TypeError(
            f"run_turn() got unknown option(s) {', '.join(unknown)}; the options are "
            f"TurnOptions' fields: {', '.join(f.name for f in fields(TurnOptions))}."
        )
    return replace(base, **changes) if changes else base


class ToolCall(NamedTuple):
    """One call a model asked for, native or written in its reply."""

    id: str
    name: str
    arguments: Any
    source: Literal["native", "text"]


@dataclass
class Reply:
    """What one response said: its text, and the calls it asked for."""

    content: str
    """The text to show: calls written as text are taken out of it."""
    written: str
    """The text as the model wrote it."""
    calls: list[ToolCall]


class RepeatGuard:
    """The loop guard: a call identical (tool and arguments) to one already run in this turn
    is answered with the earlier result (:func:`repeat_message`) instead of running again.

    A file write that succeeded makes every earlier call new again (a read after an edit is not
    a repeat); any other call makes the refused ones new (a write refused for want of a read,
    retried after it). Off (``enabled=False``), every call runs.
    """

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self._earlier: dict[tuple[str, str], str] = {}  # (tool, arguments) → result

    def earlier_result(self, call: ToolCall) -> str | None:
        """The result of an identical call already run, or None when this one is new."""
        if not self.enabled:
            return None
        return self._earlier.get(_call_key(call.name, call.arguments))

    def ran(self, call: ToolCall, output: str, executed: bool) -> None:
        if executed and call.name in FILE_WRITE_TOOLS and not output.startswith("Error"):
            self._earlier.clear()  # the workspace changed: earlier reads may answer differently
        else:
            # A refused call may succeed after another one (a write after its read).
            self._earlier = {k: v for k, v in self._earlier.items() if not v.startswith("Error")}
        self._earlier[_call_key(call.name, call.arguments)] = output


@dataclass
class TurnTools:
    """The tools one turn offers, and who runs a call: the file tools on the turn's mount,
    the platform's other tools recorded (never run), anything else an error the model reads."""

    schemas: list[dict[str, Any]]
    files: FileToolExecutor | None
    record_platform: bool
    recorder: PlatformToolRecorder = field(default_factory=PlatformToolRecorder)

    @property
    def offered(self) -> list[str]:
        return [s["function"]["name"] for s in self.schemas]

    def execute(self, name: str, arguments: Any) -> tuple[str, bool]:
        """The call's result, and whether it ran (True only for a file tool)."""
        if self.files is not None and is_file_tool(name):
            return self.files.execute(name, arguments), True
        if self.record_platform and name in self.recorder.names:
            return self.recorder.execute(name, arguments), False
        return (
            f"Error: unknown tool {name!r}. The tools available are: {', '.join(self.offered)}.",
            False,
        )


@dataclass
class TurnLoop:
    """One turn in progress: what is sent, what came back, and the result being filled in."""

    model: str
    options: TurnOptions
    tools: TurnTools
    window_kwargs: dict[str, Any]
    """The completion kwargs that open the model's window (Ollama's ``num_ctx``)."""
    messages: list[Message]
    result: TurnResult
    guard: RepeatGuard
    new_messages: list[Message] = field(default_factory=list)

    def add(self, message: Message) -> None:
        self.messages.append(message)
        self.new_messages.append(message)


def _prompts(options: TurnOptions, tool_prose: str) -> tuple[str, str]:
    """The app prompt and the system suffix the turn builder gets, the tool list in one."""
    if options.prompt_variant in MEMORY_LAST_VARIANTS and tool_prose:
        # The turn builder puts the memory section after the app's prompt: make the tool list
        # part of that prompt, and the section lands after it.
        return "\n\n".join(p for p in (options.system_prompt, tool_prose) if p), ""
    return options.system_prompt, tool_prose


def start_turn(
    model: str,
    fs: MemFS | None,
    manifest: AgentManifest,
    user_message: str,
    transcript: list[Message] | None,
    options: TurnOptions,
    resolver: ContextWindowResolver,
) -> TurnLoop:
    """The turn's messages (:func:`memfs.build_turn`), its tools and window, and its result."""
    saver = memory_saver(options.memory_tools)
    schemas = tool_schemas(options.tools, file_tools=fs is not None, saver=saver)
    prose = format_tools_for_prompt(schemas) if options.tools_in_prompt and schemas else ""
    app_prompt, suffix = _prompts(options, prose)
    window = resolver.resolve(model, options.context_window) if is_ollama(model) else None
    turn = build_turn(
        mode=options.mode,
        transcript=list(transcript or []),
        user_message=user_message,
        manifest=manifest,
        fs=fs,
        system_prompt=app_prompt,
        prompt_variant=options.prompt_variant,
        placement=options.placement,
        framing=options.framing,
        system_suffix=suffix,
        window_tokens=window.tokens if window else options.context_window,
    )
    if turn.window_warning:  # said before the request goes out; the block is still sent whole
        log.warning(turn.window_warning)
    mount = mount_for_mode(options.mode, fs)
    files = (
        None
        if mount is None
        else FileToolExecutor(
            mount,
            manifest,
            context_block=turn.context_block,
            tools=[*FILE_TOOL_NAMES, *([saver] if saver else [])],
            memory_file_writes=options.memory_tools in ("files", "files+remember"),
            other_tools=[s["function"]["name"] for s in schemas],
        )
    )
    tools = TurnTools(schemas, files, record_platform=options.tools == "platform")
    extras = window_kwargs(model, window)
    messages: list[Message] = [dict(m) for m in turn.messages]
    result = TurnResult(
        model=model,
        mode=options.mode,
        tools=options.tools,
        transcript=messages,
        persist=list(turn.persist),
        context_block=turn.context_block,
        system_prompt=turn.system_prompt,
        num_ctx_sent=extras.get("num_ctx"),
        window_source=window.source if window else None,
        window_warning=turn.window_warning,
        offered_tools=tools.offered,
    )
    return TurnLoop(
        model, options, tools, extras, messages, result, RepeatGuard(options.loop_guard)
    )


def build_request(loop: TurnLoop, step: int = 1) -> dict[str, Any]:
    """The completion kwargs of the next call: the messages so far, the tools, the window,
    and on the first step the forced function (``first_tool``) when the turn offers it."""
    request: dict[str, Any] = {"model": loop.model, "messages": loop.messages}
    if loop.tools.schemas:
        request["tools"] = loop.tools.schemas
        forced = loop.options.first_tool
        if step == 1 and forced is not None and forced in loop.tools.offered:
            request["tool_choice"] = {"type": "function", "function": {"name": forced}}
    request.update(loop.window_kwargs)
    request.update(loop.options.completion_kwargs or {})
    return request


def call_model(
    completion: Callable[..., Any],
    request: dict[str, Any],
    *,
    model: str,
    resolver: ContextWindowResolver,
    clock: Callable[[], float],
) -> tuple[Any, float]:
    """The response, and how long it took."""
    t0 = clock()
    try:
        response = completion(**request)
    except Exception as e:
        # An endpoint that refuses a prompt often says its window; the next turn uses it.
        resolver.learn_from_error(model, str(e))
        raise
    return response, clock() - t0


def record_step(loop: TurnLoop, step: int, response: Any, elapsed: float) -> Any:
    """Count the response's usage, check it for a silent cut; returns its message."""
    result = loop.result
    usage = _get(response, "usage")
    prompt_tokens = _get(usage, "prompt_tokens")
    completion_tokens = _get(usage, "completion_tokens")
    result.usage.calls += 1
    result.usage.prompt_tokens += prompt_tokens or 0
    result.usage.completion_tokens += completion_tokens or 0
    result.usage.total_tokens += _get(usage, "total_tokens") or (
        (prompt_tokens or 0) + (completion_tokens or 0)
    )
    estimated = estimate_prompt_tokens(loop.messages, loop.tools.schemas)
    check = check_truncation(
        loop.model, prompt_tokens, estimated, num_ctx_sent=loop.window_kwargs.get("num_ctx")
    )
    if check.truncated and not result.truncated:
        result.truncated, result.truncation_note = True, check.note
    choice = (_get(response, "choices") or [None])[0]
    result.steps.append(
        StepRecord(
            step=step,
            elapsed_s=round(elapsed, 3),
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            estimated_prompt_tokens=estimated,
            truncated=check.truncated,
            finish_reason=_get(choice, "finish_reason"),
        )
    )
    return _get(choice, "message")


def parse_reply(message: Any, step: int, offered: list[str], text_tool_calls: bool) -> Reply:
    """The calls a message asks for: native ``tool_calls``, else (``text_tool_calls``) the
    calls written in its text, which are then taken out of the text shown."""
    written = _get(message, "content") or ""
    calls = [ToolCall(cid, name, args, "native") for cid, name, args in _native_calls(message)]
    if calls or not text_tool_calls or not written:
        return Reply(written, written, calls)
    parsed = parse_text_tool_calls(written, offered)
    if not parsed:
        return Reply(written, written, [])
    calls = [
        ToolCall(f"text_{step}_{i}", c.name, c.arguments, "text") for i, c in enumerate(parsed)
    ]
    return Reply(strip_tool_calls(written, offered), written, calls)


def assistant_message(reply: Reply) -> Message:
    """The assistant message that goes back into the transcript for a reply with calls."""
    if reply.calls[0].source == "text":
        # Echo the reply as the model wrote it. Re-encoded as tool_calls, chat templates
        # render the arguments string with tojson (escaped twice), and a small model copies
        # that escaping into its next call (seen live: a literal "\\n" in a memory file).
        return {"role": "assistant", "content": reply.written}
    return {
        "role": "assistant",
        "content": reply.content or None,
        "tool_calls": [
            {
                "id": c.id,
                "type": "function",
                "function": {"name": c.name, "arguments": _args_json(c.arguments)},
            }
            for c in reply.calls
        ],
    }


def run_call(loop: TurnLoop, step: int, call: ToolCall) -> None:
    """Run one call (or let the loop guard answer it); record it and send its result back."""
    earlier = loop.guard.earlier_result(call)
    if earlier is not None:
        output, executed = repeat_message(earlier), False
    else:
        output, executed = loop.tools.execute(call.name, call.arguments)
        loop.guard.ran(call, output, executed)
    loop.result.tool_calls.append(
        ToolCallRecord(
            name=call.name,
            arguments=_args_for_record(call.arguments),
            result=output,
            source=call.source,
            step=step,
            executed=executed,
            repeated=earlier is not None,
        )
    )
    loop.add({"role": "tool", "tool_call_id": call.id, "name": call.name, "content": output})


def answer(loop: TurnLoop, reply: Reply) -> None:
    """The stop: a reply without calls is the turn's answer."""
    loop.add({"role": "assistant", "content": reply.content})
    loop.result.final_text = reply.content
    loop.result.stopped = "answer"


def finish(loop: TurnLoop, persist_before: list[Message], elapsed: float) -> TurnResult:
    result = loop.result
    result.transcript = loop.messages  # the model copied the list it was given at construction
    result.persist = [*persist_before, *loop.new_messages]
    result.elapsed_s = round(elapsed, 3)
    return result


def _litellm_completion() -> Callable[..., Any]:
    import litellm  # here, not at import: the chat command checks its input before paying for it

    completion: Callable[..., Any] = litellm.completion
    return completion


def run_turn(
    *,
    model: str,
    fs: MemFS | None,
    manifest: AgentManifest,
    user_message: str,
    transcript: list[Message] | None = None,
    options: TurnOptions | None = None,
    completion: Callable[..., Any] | None = None,
    resolver: ContextWindowResolver | None = None,
    clock: Callable[[], float] = time.perf_counter,
    **option_changes: Any,
) -> TurnResult:
    """Run one agent turn; see the module docstring.

    ``options`` (:class:`TurnOptions`) say how; any of its fields may also be passed as a
    keyword (``max_steps=3``), applied over ``options``. The file tools' write-time levers
    (read before overwrite, write receipt, index nudge) are the manifest's, run by
    :class:`memfs.FileToolExecutor`. ``completion`` replaces ``litellm.completion`` (tests,
    other clients); it gets the same keyword arguments.
    """
    opts = turn_options(options, **option_changes)
    completion = completion or _litellm_completion()
    resolver = resolver or DEFAULT_RESOLVER
    started = clock()
    loop = start_turn(model, fs, manifest, user_message, transcript, opts, resolver)
    persist_before = list(loop.result.persist)
    for step in range(1, opts.max_steps + 1):
        response, elapsed = call_model(
            completion, build_request(loop, step), model=model, resolver=resolver, clock=clock
        )
        message = record_step(loop, step, response, elapsed)
        reply = parse_reply(message, step, loop.tools.offered, opts.text_tool_calls)
        if not reply.calls:
            answer(loop, reply)
            break
        loop.add(assistant_message(reply))
        for call in reply.calls:
            run_call(loop, step, call)
        loop.result.final_text = reply.content
    else:
        loop.result.stopped = "max_steps"
    return finish(loop, persist_before, clock() - started)
