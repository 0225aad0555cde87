"""``memfs chat WORKSPACE [--model M]``: an interactive chat with memory, in the terminal.

Each line you type is one chat turn through :func:`memfs_litellm.run_turn`: ``MEMORY.md`` is
injected, the agent reads and writes ``memory/*.md`` with its file tools, and the next turn
(or a later ``memfs chat`` on the same workspace) sees what it wrote. The model is any litellm
model string; without ``--model`` the local server (``memfs model start``) is used when it
answers, else ``$MEMFS_MODEL``.

In-chat commands (:data:`CHAT_COMMANDS`): ``/help`` lists them, ``/new`` starts a fresh
conversation (memory stays), ``/memory`` prints ``MEMORY.md``, ``/exit`` quits. Any other
``/word`` is refused rather than sent to the model; ``//`` sends a line that starts with ``/``.

Before the chat opens the command checks, in this order, the workspace, the model and its
endpoint (the local server answers), and then imports litellm (the ``litellm`` extra): a
mistyped workspace or a server that is down is one line at once, not after litellm's seconds of
import, and a missing extra is one line before the chat opens, not a failure on every message.
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import re
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO

from memfs.cli_workspace import add_workspace_argument, layout_notice, load_manifest, open_workspace
from memfs.extras import require

if TYPE_CHECKING:  # a chat that cannot open does not load the manifest's models
    from memfs import AgentManifest, MemFS

PROMPT = "you> "
CHAT_COMMANDS = {
    "/help": "list these commands",
    "/new": "start a fresh conversation (memory is kept)",
    "/memory": "print MEMORY.md",
    "/exit": "leave the chat (also /quit or Ctrl-D)",
}
_COMMAND = re.compile(r"/[A-Za-z][\w-]*")


def help_text() -> str:
    rows = [*CHAT_COMMANDS.items(), ("//…", "send a line that starts with / to the model")]
    width = max(len(name) for name, _ in rows)
    return "\n".join(f"  {name:<{width}}  {what}" for name, what in rows)


def no_server(base: str) -> str:
    """What to say when nothing answers at ``base``."""
    from memfs_litellm import local_model  # here: a chat refused for its workspace never loads it

    if base == local_model.api_base():
        return f"no model server at {base} — run `memfs model start`"
    return f"no model server at {base} — start it, or pass another --api-base"


def check_endpoint(kwargs: dict[str, Any]) -> None:
    """Refuse to open a chat on the local model when its server is down.

    Only the local server is probed: a remote endpoint may refuse an unauthenticated
    ``/models`` and still serve completions.
    """
    from memfs_litellm import local_model

    base = kwargs.get("api_base")
    if base == local_model.api_base() and not local_model.endpoint_responds(base):
        raise ConnectionRefusedError(errno.ECONNREFUSED, no_server(base) + ".")


def describe_failure(e: Exception, api_base: str | None) -> str:
    """One line for a failed model call: a down server by name, else the error's first line."""
    text = str(e).strip()
    refused = isinstance(e, ConnectionError) or "APIConnectionError" in type(e).__name__
    if api_base and (refused or "Connection refused" in text or "Connection error" in text):
        return no_server(api_base)
    first = text.splitlines()[0] if text else ""
    return _short(f"{type(e).__name__}: {first}")


def resolve_model(
    model: str | None, api_base: str | None, api_key: str | None
) -> tuple[str, dict[str, Any]]:
    """The litellm model string and endpoint kwargs: explicit → local server → $MEMFS_MODEL."""
    from memfs_litellm import local_model

    kwargs: dict[str, Any] = {}
    if api_base:
        kwargs["api_base"] = api_base
    if api_key:
        kwargs["api_key"] = api_key
    if model:
        if model == local_model.LITELLM_MODEL and not api_base:
            kwargs = {**local_model.local_completion_kwargs(), **kwargs}
        return model, kwargs
    if local_model.endpoint_responds(local_model.api_base()):
        return local_model.LITELLM_MODEL, {**local_model.local_completion_kwargs(), **kwargs}
    if env := os.environ.get("MEMFS_MODEL"):
        return env, kwargs
    raise ValueError(
        "No model: pass --model (a litellm model string such as 'ollama_chat/qwen3:14b' or "
        "'anthropic/claude-sonnet-4-5'), set MEMFS_MODEL, or start the local model with "
        "`memfs model install && memfs model start`."
    )


def _short(text: str, limit: int = 300) -> str:
    text = text.replace("\n", "\\n")
    return text if len(text) <= limit else text[:limit] + f"… ({len(text)} chars)"


def chat_loop(
    fs: MemFS,
    manifest: AgentManifest,
    model: str,
    *,
    completion_kwargs: dict[str, Any] | None = None,
    read_line: Callable[[str], str] = input,
    out: TextIO = sys.stdout,
    run: Callable[..., Any] | None = None,
    force_remember: bool = False,
    **turn_options: Any,
) -> int:
    """Read lines, run one turn per line, print tool calls and replies; returns turns run.

    ``force_remember`` forces the tool that saves memory in this chat (``remember``, or
    ``remember_facts`` with ``memory_tools="facts"``) on the first step of a turn whose message
    asks to remember (:func:`~memfs_litellm.runner.asks_to_remember`)."""
    from memfs import REMEMBER

    from memfs_litellm.runner import asks_to_remember, memory_saver

    saver = memory_saver(turn_options.get("memory_tools", "files")) or REMEMBER

    if run is None:
        from memfs_litellm.runner import run_turn

        run = run_turn
    transcript: list[dict[str, Any]] = []
    turns = 0
    api_base = (completion_kwargs or {}).get("api_base")
    print(f"memfs chat — model {model}; /help lists the commands", file=out, flush=True)
    while True:
        try:
            line = read_line(PROMPT)
        except (EOFError, KeyboardInterrupt):
            print(file=out)
            return turns
        text = line.strip()
        if not text:
            continue
        word = text.split()[0]
        if text.startswith("//"):
            text = text[1:]  # a message that starts with "/", sent as typed minus one slash
        elif _COMMAND.fullmatch(word):
            if word in ("/exit", "/quit"):
                return turns
            if word == "/help":
                print(help_text(), file=out, flush=True)
            elif word == "/new":
                transcript = []
                print("(new conversation; memory is kept)", file=out, flush=True)
            elif word == "/memory":
                try:
                    index = fs.cat_file(fs.layout.index_path).decode("utf-8", errors="replace")
                except FileNotFoundError:
                    index = "(no MEMORY.md yet)"
                print(index, file=out, flush=True)
            else:
                print(f"(unknown command {word}; /help lists the commands)", file=out, flush=True)
            continue
        try:
            result = run(
                model=model,
                fs=fs,
                manifest=manifest,
                user_message=text,
                transcript=transcript,
                completion_kwargs=completion_kwargs,
                first_tool=saver if force_remember and asks_to_remember(text) else None,
                **turn_options,
            )
        except Exception as e:  # a provider error must not end the session
            print(f"(model call failed: {describe_failure(e, api_base)})", file=out, flush=True)
            continue
        turns += 1
        for call in result.tool_calls:
            args = call.arguments if isinstance(call.arguments, str) else json.dumps(call.arguments)
            origin = "" if call.source == "native" else " [from text]"
            print(f"  ↳ {call.name}({_short(args, 160)}){origin}", file=out)
            print(f"    {_short(call.result, 200)}", file=out)
        if result.truncated:
            print(f"  ! {result.truncation_note}", file=out)
        print(f"assistant> {result.final_text or '(no reply)'}", file=out)
        print(
            f"  ({result.usage.prompt_tokens} prompt + {result.usage.completion_tokens} "
            f"completion tokens, {result.elapsed_s:.1f} s)",
            file=out,
            flush=True,
        )
        transcript = result.persist


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "chat",
        help="interactive chat with memory over a workspace",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
    )
    add_workspace_argument(parser, creates=True)
    parser.add_argument("--model", help="litellm model string (default: the local server)")
    parser.add_argument("--api-base", help="endpoint URL for the model")
    parser.add_argument("--api-key", help="API key for the endpoint")
    parser.add_argument("--app", help="app.json whose manifest to use (context_files, memory)")
    parser.add_argument("--no-memory", action="store_true", help="turn memory off for this chat")
    parser.add_argument(
        "--tools",
        choices=["files-only", "platform"],
        default="files-only",
        help="files-only: the six file tools; platform: also the 12 recorded competing tools",
    )
    parser.add_argument(
        "--memory-tool",
        choices=["auto", "files", "remember", "facts"],
        default="auto",
        help="how memory is written: files (the file tools, as Claude Code does), remember (the "
        "structured tool only, one fact a call), facts (remember_facts only, every fact of a "
        "message in one call); remember and facts are forced on a message that asks to "
        "remember; auto: facts for the local model, files for any other (default: auto)",
    )
    parser.add_argument("--workflow", action="store_true", help="read-only turns (a workflow)")
    parser.add_argument("--context-window", type=int, help="model window (sent to Ollama)")
    parser.add_argument("--max-steps", type=int, default=6)
    parser.add_argument("--max-tokens", type=int, default=512, help="reply length cap per call")
    parser.set_defaults(func=_cmd_chat)


def _cmd_chat(args: argparse.Namespace) -> int:
    # Cheapest check first: a mistyped workspace or a server that is down is said at once, and
    # litellm (seconds to import) is loaded only for a chat that can open.
    fs, found = open_workspace(
        args.workspace,
        create=args.create,
        offer_create=True,
        read_only=args.workflow,
        layout=args.layout,
    )
    manifest = load_manifest(args.app)
    model, kwargs = resolve_model(args.model, args.api_base, args.api_key)
    check_endpoint(kwargs)
    litellm: Any = require("litellm", "litellm")
    litellm.suppress_debug_info = True  # no "Give Feedback / Get Help" banner on each failure
    notice = layout_notice("memfs chat", found)  # said only for a layout other than the platform's
    if notice:
        print(notice, file=sys.stderr)
    if args.no_memory:
        manifest = manifest.model_copy(update={"memory": False})
    kwargs["max_tokens"] = args.max_tokens
    from memfs_litellm import local_model

    memory_tool = args.memory_tool
    if memory_tool == "auto":  # what the live check measured best for the model behind it
        memory_tool = "facts" if model == local_model.LITELLM_MODEL else "files"
    chat_loop(
        fs,
        manifest,
        model,
        completion_kwargs=kwargs,
        tools=args.tools,
        mode="workflow" if args.workflow else "chat",
        context_window=args.context_window,
        max_steps=args.max_steps,
        memory_tools=memory_tool,
        force_remember=memory_tool != "files",
    )
    return 0
