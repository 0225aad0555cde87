"""One agent turn through ``litellm.completion``, with the file tools on a MemFS.

``run_turn`` builds the turn with memfs's turn builders (system prompt + memory section, the
context block on the newest user message), appends the platform's prose tool list, then loops:
call the model, run the tool calls it made (native ``tool_calls``, or calls written as text by
a small model), feed the results back, until the model answers or ``max_steps`` is reached.

A chat turn's file tools get the writable workspace; a workflow turn's get the read-only mount,
so a write comes back to the model as the filesystem's read-only error, not as an exception.
For Ollama models the resolved window is sent as ``num_ctx``; every response's
``prompt_tokens`` is checked against an estimate of what was sent (silent truncation).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any, Literal

from memfs.context import Framing
from memfs.filesystem import MemFS
from memfs.manifest import AgentManifest
from memfs.memory_access import TurnMode, mount_for_mode
from memfs.prompt import MEMORY_LAST_VARIANTS, PromptVariant
from memfs.tools import FILE_WRITE_TOOLS, FileToolExecutor, ToolCallRecord
from memfs.turns import Message, Placement, build_turn
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


def run_turn(
    *,
    model: str,
    fs: MemFS | None,
    manifest: AgentManifest,
    user_message: str,
    transcript: list[Message] | None = None,
    mode: TurnMode = "chat",
    tools: ToolSet = "platform",
    prompt_variant: PromptVariant = "full",
    placement: Placement = "prefix",
    framing: Framing = "reminder",
    system_prompt: str = DEFAULT_APP_PROMPT,
    max_steps: int = 6,
    loop_guard: bool = True,
    completion_kwargs: dict[str, Any] | None = None,
    context_window: int | None = None,
    tools_in_prompt: bool = True,
    text_tool_calls: bool = True,
    resolver: ContextWindowResolver | None = None,
    completion: Callable[..., Any] | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> TurnResult:
    """Run one agent turn; see the module docstring.

    ``tools="files-only"`` drops the platform's competing tools (an evaluation without them);
    ``tools_in_prompt=False`` drops the prose tool list from the system prompt; the
    ``full-after-tools`` variant puts the memory section after that list instead of before it.
    ``placement`` and ``framing`` are the turn builder's: where the context block goes and how
    it is framed (:mod:`memfs.turns`).
    ``loop_guard`` answers a call identical (tool and arguments) to one already run in this
    turn with the earlier result instead of running it again; a file write in between makes
    every earlier call new again (a read after an edit is not a repeat), any other call in
    between makes the refused ones new (a write refused for want of a read, retried after it).
    The file tools' write-time levers (read before overwrite, write receipt, index nudge) are
    the manifest's.
    ``context_window`` is the operator override for the model's window. ``completion`` replaces
    ``litellm.completion`` (tests, other clients); it gets the same keyword arguments.
    """
    if max_steps < 1:
        raise ValueError(f"max_steps must be at least 1, not {max_steps}.")
    if completion is None:
        import litellm

        completion = litellm.completion
    resolver = resolver or DEFAULT_RESOLVER
    started = clock()

    schemas = tool_schemas(tools, file_tools=fs is not None)
    offered = [s["function"]["name"] for s in schemas]
    tool_prose = format_tools_for_prompt(schemas) if tools_in_prompt and schemas else ""
    memory_last = prompt_variant in MEMORY_LAST_VARIANTS
    app_prompt = system_prompt
    if memory_last and tool_prose:
        # The turn builder puts the memory section after the app's prompt: make the tool list
        # part of that prompt, and the section lands after it.
        app_prompt = "\n\n".join(p for p in (system_prompt, tool_prose) if p)
    turn = build_turn(
        mode=mode,
        transcript=list(transcript or []),
        user_message=user_message,
        manifest=manifest,
        fs=fs,
        system_prompt=app_prompt,
        prompt_variant=prompt_variant,
        placement=placement,
        framing=framing,
        system_suffix="" if memory_last else tool_prose,
    )
    mount = mount_for_mode(mode, fs)
    files = (
        None
        if mount is None
        else FileToolExecutor(mount, manifest, context_block=turn.context_block)
    )
    recorder = PlatformToolRecorder()

    system = turn.system_prompt
    messages: list[Message] = [dict(m) for m in turn.messages]
    new_messages: list[Message] = []

    window = resolver.resolve(model, context_window) if is_ollama(model) else None
    extras = window_kwargs(model, window)
    result = TurnResult(
        model=model,
        mode=mode,
        tools=tools,
        transcript=messages,
        persist=list(turn.persist),
        context_block=turn.context_block,
        system_prompt=system,
        num_ctx_sent=extras.get("num_ctx"),
        window_source=window.source if window else None,
        offered_tools=offered,
    )

    def dispatch(name: str, arguments: Any) -> tuple[str, bool]:
        if files is not None and is_file_tool(name):
            return files.execute(name, arguments), True
        if tools == "platform" and name in recorder.names:
            return recorder.execute(name, arguments), False
        return (
            f"Error: unknown tool {name!r}. The tools available are: {', '.join(offered)}.",
            False,
        )

    earlier: dict[tuple[str, str], str] = {}  # (tool, arguments) → result, for the loop guard
    for step in range(1, max_steps + 1):
        kwargs: dict[str, Any] = {"model": model, "messages": messages}
        if schemas:
            kwargs["tools"] = schemas
        kwargs.update(extras)
        kwargs.update(completion_kwargs or {})
        t0 = clock()
        try:
            response = completion(**kwargs)
        except Exception as e:
            # An endpoint that refuses a prompt often says its window; the next turn uses it.
            resolver.learn_from_error(model, str(e))
            raise
        elapsed = clock() - t0

        usage = _get(response, "usage")
        prompt_tokens = _get(usage, "prompt_tokens")
        completion_tokens = _get(usage, "completion_tokens")
        result.usage.calls += 1
        result.usage.prompt_tokens += prompt_tokens or 0
        result.usage.completion_tokens += completion_tokens or 0
        result.usage.total_tokens += _get(usage, "total_tokens") or (
            (prompt_tokens or 0) + (completion_tokens or 0)
        )
        estimated = estimate_prompt_tokens(messages, schemas)
        check = check_truncation(
            model, prompt_tokens, estimated, num_ctx_sent=extras.get("num_ctx")
        )
        if check.truncated and not result.truncated:
            result.truncated, result.truncation_note = True, check.note

        choice = (_get(response, "choices") or [None])[0]
        message = _get(choice, "message")
        content = _get(message, "content") or ""
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

        calls: list[tuple[str, str, Any, Literal["native", "text"]]] = [
            (cid, name, args, "native") for cid, name, args in _native_calls(message)
        ]
        written = content
        if not calls and text_tool_calls and content:
            parsed = parse_text_tool_calls(content, offered)
            calls = [
                (f"text_{step}_{i}", c.name, c.arguments, "text") for i, c in enumerate(parsed)
            ]
            if parsed:
                content = strip_tool_calls(content, offered)

        if not calls:
            reply = {"role": "assistant", "content": content}
            messages.append(reply)
            new_messages.append(reply)
            result.final_text = content
            result.stopped = "answer"
            break

        assistant: Message
        if calls[0][3] == "text":
            # Echo the reply as the model wrote it. Re-encoded as tool_calls, chat templates
            # render the arguments string with tojson (escaped twice), and a small model copies
            # that escaping into its next call (seen live: a literal "\\n" in a memory file).
            assistant = {"role": "assistant", "content": written}
        else:
            assistant = {
                "role": "assistant",
                "content": content or None,
                "tool_calls": [
                    {
                        "id": cid,
                        "type": "function",
                        "function": {"name": n, "arguments": _args_json(a)},
                    }
                    for cid, n, a, _ in calls
                ],
            }
        messages.append(assistant)
        new_messages.append(assistant)
        for cid, name, args, source in calls:
            key = _call_key(name, args)
            repeated = loop_guard and key in earlier
            if repeated:
                output, executed = repeat_message(earlier[key]), False
            else:
                output, executed = dispatch(name, args)
                if executed and name in FILE_WRITE_TOOLS and not output.startswith("Error"):
                    earlier.clear()  # the workspace changed: earlier reads may answer differently
                else:
                    # A refused call may succeed after another one (a write after its read).
                    earlier = {k: v for k, v in earlier.items() if not v.startswith("Error")}
                earlier[key] = output
            result.tool_calls.append(
                ToolCallRecord(
                    name=name,
                    arguments=_args_for_record(args),
                    result=output,
                    source=source,
                    step=step,
                    executed=executed,
                    repeated=repeated,
                )
            )
            tool_msg = {"role": "tool", "tool_call_id": cid, "name": name, "content": output}
            messages.append(tool_msg)
            new_messages.append(tool_msg)
        result.final_text = content
    else:
        result.stopped = "max_steps"

    result.transcript = messages  # the model copied the list it was given at construction
    result.persist = [*turn.persist, *new_messages]
    result.elapsed_s = round(clock() - started, 3)
    return result
