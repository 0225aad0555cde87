"""``memfs chat WORKSPACE [--model M]``: an interactive chat with memory, in the terminal.

Each line you type is one chat turn through :func:`memfs_litellm.run_turn`: ``MEMORY.md`` is
injected, the agent reads and writes ``memory/*.md`` with its file tools, and the next turn
(or a later ``memfs chat`` on the same workspace) sees what it wrote. The model is any litellm
model string; without ``--model`` the local server (``memfs model start``) is used when it
answers, else ``$MEMFS_MODEL``.

In-chat commands: ``/new`` starts a fresh conversation (memory stays), ``/memory`` prints
``MEMORY.md``, ``/exit`` quits.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from typing import Any, TextIO

from memfs.errors import message
from memfs.filesystem import MemFS
from memfs.manifest import AgentManifest
from memfs.workspace import add_workspace_argument, load_manifest, open_workspace

from memfs_litellm import local_model

PROMPT = "you> "


def resolve_model(
    model: str | None, api_base: str | None, api_key: str | None
) -> tuple[str, dict[str, Any]]:
    """The litellm model string and endpoint kwargs: explicit → local server → $MEMFS_MODEL."""
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
    **turn_options: Any,
) -> int:
    """Read lines, run one turn per line, print tool calls and replies; returns turns run."""
    if run is None:
        from memfs_litellm.runner import run_turn

        run = run_turn
    history: list[dict[str, Any]] = []
    turns = 0
    print(f"memfs chat — model {model}; /new, /memory, /exit", file=out, flush=True)
    while True:
        try:
            line = read_line(PROMPT)
        except (EOFError, KeyboardInterrupt):
            print(file=out)
            return turns
        text = line.strip()
        if not text:
            continue
        if text in ("/exit", "/quit"):
            return turns
        if text == "/new":
            history = []
            print("(new conversation; memory is kept)", file=out, flush=True)
            continue
        if text == "/memory":
            try:
                index = fs.cat_file(fs.layout.index_path).decode("utf-8", errors="replace")
            except FileNotFoundError:
                index = "(no MEMORY.md yet)"
            print(index, file=out, flush=True)
            continue
        try:
            result = run(
                model=model,
                fs=fs,
                manifest=manifest,
                user_message=text,
                history=history,
                completion_kwargs=completion_kwargs,
                **turn_options,
            )
        except Exception as e:  # a provider error must not end the session
            print(f"(model call failed: {type(e).__name__}: {_short(str(e))})", file=out)
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
        history = result.persist


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
    parser.add_argument("--workflow", action="store_true", help="read-only turns (a workflow)")
    parser.add_argument("--context-window", type=int, help="model window (sent to Ollama)")
    parser.add_argument("--max-steps", type=int, default=6)
    parser.add_argument("--max-tokens", type=int, default=512, help="reply length cap per call")
    parser.set_defaults(func=_cmd_chat)


def _cmd_chat(args: argparse.Namespace) -> int:
    try:
        model, kwargs = resolve_model(args.model, args.api_base, args.api_key)
        manifest = load_manifest(args.app)
        fs, found = open_workspace(
            args.workspace,
            create=args.create,
            offer_create=True,
            read_only=args.workflow,
            layout=args.layout,
        )
        print(f"memfs chat: {args.workspace} — {found.describe()}", file=sys.stderr)
    except (OSError, ValueError) as e:
        print(f"memfs chat: {message(e)}", file=sys.stderr)
        return 2
    if args.no_memory:
        manifest = manifest.model_copy(update={"memory": False})
    kwargs["max_tokens"] = args.max_tokens
    chat_loop(
        fs,
        manifest,
        model,
        completion_kwargs=kwargs,
        tools=args.tools,
        mode="workflow" if args.workflow else "chat",
        context_window=args.context_window,
        max_steps=args.max_steps,
    )
    return 0
