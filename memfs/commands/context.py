"""``memfs context WORKSPACE``: the block a turn would inject, and what it costs in tokens."""

from __future__ import annotations

import argparse
import json
import sys

from memfs.cli_workspace import add_workspace_argument, layout_notice, load_manifest, open_workspace
from memfs.memory_access import TurnMode
from memfs.prompt import memory_prompt
from memfs.tokens import DEFAULT_MARGIN_RATIO, estimate_tokens, with_margin
from memfs.turns import build_turn


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "context",
        help="print the context block a chat (or workflow) turn would inject, with its tokens",
        description=(
            "Print the block prefixed to the newest user message for WORKSPACE, and its "
            "estimated token cost. An app with no memory yet injects nothing: 0 tokens."
        ),
    )
    add_workspace_argument(p)
    p.add_argument("--app", metavar="APP_JSON", help="app.json to read the agent manifest from")
    p.add_argument(
        "--workflow",
        action="store_true",
        help="build a workflow turn (reads through a read-only mount)",
    )
    p.add_argument(
        "--prompt", action="store_true", help="also print the memory section of the system prompt"
    )
    p.add_argument(
        "--window",
        type=int,
        metavar="N",
        help="the model's context window in tokens: warn when the block alone cannot fit it",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object instead")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    fs, found = open_workspace(args.workspace, read_only=True, layout=args.layout)
    manifest = load_manifest(args.app)
    if notice := layout_notice("memfs context", found):
        print(notice, file=sys.stderr)
    mode: TurnMode = "workflow" if args.workflow else "chat"
    turn = build_turn(
        mode=mode,
        transcript=[],
        user_message="",
        manifest=manifest,
        fs=fs,
        window_tokens=args.window,
    )
    if turn.window_warning:
        print(f"memfs context: {turn.window_warning}", file=sys.stderr)
    block = turn.context_block
    tokens = estimate_tokens(block)
    prompt = (
        memory_prompt(manifest, layout=fs.layout, read_only=args.workflow) if args.prompt else None
    )
    if args.json:
        out = {
            "workspace": args.workspace,
            "mode": turn.mode,
            "layout": found.layout.kind,
            "context_files": manifest.effective_context_files(fs.layout.index_path),
            "block": block,
            "chars": len(block),
            "tokens": tokens,
            "tokens_with_margin": with_margin(tokens),
            "window_warning": turn.window_warning,
        }
        if prompt is not None:
            out["memory_prompt"] = prompt
            out["memory_prompt_tokens"] = estimate_tokens(prompt)
        print(json.dumps(out, ensure_ascii=False, indent=2))
        return 0
    if prompt is not None:
        print(prompt if prompt else "(no memory prompt: memory is off or the app has no workspace)")
        print("-" * 72)
    if block:
        sys.stdout.write(block)
        summary = (
            f"{turn.mode} turn: {len(block):,} characters, ~{tokens:,} tokens "
            f"({with_margin(tokens):,} with the {DEFAULT_MARGIN_RATIO:.0%} margin)"
        )
    else:
        summary = f"{turn.mode} turn: nothing injected — 0 tokens"
    print(summary, file=sys.stderr)
    return 0
