"""Rows 2–4: the chat-turn context block — its cost, its independence from store size, and
its cost when there is no memory at all.

The candidate is :func:`memfs.context.build_context_block` over MemFS on the local store, the
call every chat turn makes. The baseline for row 2 is the least any implementation could do:
read ``MEMORY.md`` from disk and join it into the same frame.
"""

from __future__ import annotations

import os
from functools import partial

from memfs import INDEX_FILE, LocalFileStore, MemFS
from memfs.context import FILE_TAG, FRAME_PREAMBLE, _block_memo, build_context_block
from memfs.counting import CountingFileStore
from memfs.manifest import AgentManifest
from memfs.prompt import memory_prompt
from memfs.staleness import REMINDER_CLOSE, REMINDER_OPEN
from memfs.tokens import estimate_tokens
from memfs.turns import build_chat_turn

from benchmarks.harness import Row, compare, fmt_ratio, fmt_us, measure, store_calls
from benchmarks.workspaces import GROWTH_SIZES, Workspaces, bench_clock

TARGET_BLOCK = 1.5
TARGET_FLAT = 1.2
MANIFEST = AgentManifest()  # memory on, workspace on: MEMORY.md is the only context file


def raw_block(index_host_path: str) -> str:
    """The baseline: one read of MEMORY.md from disk and a string join into the same frame."""
    with open(index_host_path, "rb") as f:
        text = f.read().decode("utf-8")
    return "\n".join(
        (
            REMINDER_OPEN,
            FRAME_PREAMBLE,
            f'<{FILE_TAG} path="{INDEX_FILE}">\n{text}</{FILE_TAG}>',
            REMINDER_CLOSE,
        )
    )


def _fs(root: str) -> tuple[MemFS, CountingFileStore]:
    counting = CountingFileStore(LocalFileStore(root))
    return MemFS(counting, clock=bench_clock), counting


def run(ws: Workspaces, repeats: int = 41) -> list[Row]:
    return [row_block(ws, repeats), row_growth(ws, repeats), row_empty(ws)]


def row_block(ws: Workspaces, repeats: int) -> Row:
    root = ws.generated_dir(261)
    fs, counting = _fs(root)
    host_index = os.path.join(root, INDEX_FILE)
    block = build_context_block(fs, MANIFEST)
    c = compare(
        lambda: raw_block(host_index),
        lambda: build_context_block(fs, MANIFEST),
        baseline_label="open(MEMORY.md).read() + join",
        candidate_label="build_context_block(MemFS)",
        repeats=repeats,
    )
    # The first build after MEMORY.md changed: nothing memoised (what a turn after a write pays).
    cold = compare(
        lambda: raw_block(host_index),
        lambda: build_context_block(fs, MANIFEST),
        baseline_label="open(MEMORY.md).read() + join",
        candidate_label="build_context_block(MemFS), memo cleared",
        repeats=repeats,
        number=1,
        setup=_block_memo.clear,
    )
    calls = store_calls(counting, lambda: build_context_block(fs, MANIFEST), times=10)
    per_op = calls.per_operation(10)
    tokens = estimate_tokens(block)
    return Row(
        id="2",
        what="chat-turn context block for the generated store (261 files, 17,652-char index)",
        baseline="raw read of MEMORY.md + string join",
        target=f"≤ {TARGET_BLOCK}×; exactly 1 store read",
        measured=f"{fmt_ratio(c)}; {fmt_us(c.candidate.min_s)} vs {fmt_us(c.baseline.min_s)}; "
        f"first build after a change {fmt_ratio(cold)}; block {len(block):,} chars ≈ "
        f"{tokens:,} tokens",
        met=c.ratio_paired <= TARGET_BLOCK and per_op == {"read": 1.0},
        store_calls=per_op,
        figures={
            **c.summary(),
            "first_build_after_change": cold.summary(),
            "block_chars": len(block),
            "block_tokens": tokens,
        },
    )


def row_growth(ws: Workspaces, repeats: int) -> Row:
    """The same index over 10 → 10,000 memory files: each size timed against the 10-file one."""
    base_fs, _ = _fs(ws.growth_dir(GROWTH_SIZES[0]))
    reference = build_context_block(base_fs, MANIFEST)
    sizes: dict[str, object] = {}
    worst = 1.0
    calls_at: dict[str, float] = {}
    for n in GROWTH_SIZES[1:]:
        fs, counting = _fs(ws.growth_dir(n))
        assert build_context_block(fs, MANIFEST) == reference, "the index is the same bytes"
        c = compare(
            lambda: build_context_block(base_fs, MANIFEST),
            partial(build_context_block, fs, MANIFEST),
            baseline_label=f"{GROWTH_SIZES[0]} files",
            candidate_label=f"{n} files",
            repeats=repeats,
        )
        calls = store_calls(counting, partial(build_context_block, fs, MANIFEST)).counts
        calls_at = {k: float(v) for k, v in calls.items()}
        sizes[str(n)] = {**c.summary(), "store_calls": calls_at}
        worst = max(worst, c.ratio_paired)
    measured = "; ".join(
        f"{n:,} files: **{s['ratio_paired']:.2f}×** (min/min {s['ratio_min']:.2f}×)"  # type: ignore[index]
        for n, s in ((int(k), v) for k, v in sizes.items())
    )
    return Row(
        id="3",
        what="the same block as the store grows 10 → 261 → 1,000 → 10,000 memory files "
        "(index fixed)",
        baseline="itself at 10 files",
        target=f"flat: ≤ {TARGET_FLAT}×",
        measured=measured,
        met=worst <= TARGET_FLAT,
        store_calls=calls_at,
        figures={"by_size": sizes, "block_chars": len(reference)},
    )


def row_empty(ws: Workspaces) -> Row:
    fs, counting = _fs(ws.empty_dir)
    block = build_context_block(fs, MANIFEST)
    calls = store_calls(counting, lambda: build_context_block(fs, MANIFEST))
    turn = build_chat_turn(transcript=[], user_message="hello", manifest=MANIFEST, fs=fs)
    t = measure(lambda: build_context_block(fs, MANIFEST), label="build_context_block, empty")
    prompt_tokens = estimate_tokens(memory_prompt(MANIFEST))
    tokens = estimate_tokens(block)
    return Row(
        id="4",
        what="empty workspace, memory on",
        baseline="—",
        target="0 tokens, ≤ 1 store call",
        measured=f"block {tokens} tokens ({len(block)} chars), user message sent unchanged: "
        f"{turn.messages[-1]['content'] == 'hello'}; {fmt_us(t.min_s)} per block",
        met=tokens == 0 and calls.total <= 1 and turn.messages[-1]["content"] == "hello",
        store_calls={k: float(v) for k, v in calls.counts.items()},
        note="The static memory section of the system prompt (Claude Code's memory prompt and "
        f"the platform's rules) is ≈ {prompt_tokens:,} tokens whether or not memory exists; it "
        "is prompt, not injection, and is cached with the rest of the system prompt.",
        figures={
            "block_tokens": tokens,
            "block_chars": len(block),
            "timing": t.model_dump(),
            "memory_prompt_tokens": prompt_tokens,
        },
    )
