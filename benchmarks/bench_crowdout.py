"""Row 7: conversation crowd-out — how much history survives as the index grows.

The memory block rides on the newest user message and the reducer never drops that message,
so every token the index gains is a token of conversation lost. A fixed 40-turn conversation
(user asks, the assistant reads a memory file with a tool and answers; the tool outputs are
real generated memory files) is sent with a ``MEMORY.md`` of 0 to 100,000 characters (whole
lines of the generator's index, so a real store's language mix), through ``build_chat_turn`` and
``reduce_transcript`` with the budget of an 8k and a 40,960-token window. Counted: history turns
(user messages) that survive, whether the first one — usually the task — is among them, and
tool outputs emptied.
"""

from __future__ import annotations

import os
import random

from memfs import INDEX_FILE, InMemoryFileStore, MemFS
from memfs.budget import TOOL_OUTPUT_STUB, reduce_transcript
from memfs.generator import SEED_INDEX_CHARS, generate_workspace
from memfs.manifest import AgentManifest
from memfs.tokens import estimate_tokens
from memfs.turns import build_chat_turn

from benchmarks.harness import Row
from benchmarks.workspaces import bench_clock

WINDOWS = (8_192, 40_960)
HISTORY_TURNS = 40
MAX_INDEX_CHARS = 100_000
APP_PROMPT = "You are the assistant of this item's app. Answer from the item's data."
MANIFEST = AgentManifest()


def _source() -> tuple[list[str], list[str]]:
    """Index lines and memory-file texts from a generated store large enough for 100k chars."""
    fs = MemFS(InMemoryFileStore(), clock=bench_clock, credential_guard=False)
    gen = generate_workspace(fs, 1_600)
    lines = fs.raw.cat_file(INDEX_FILE).decode("utf-8").splitlines()
    files = [fs.raw.cat_file(p).decode("utf-8") for p in gen.memory_paths[:HISTORY_TURNS]]
    return lines, files


def conversation(files: list[str], seed: int = 0) -> list[dict[str, object]]:
    """A deterministic history: each turn a question, a read_file call, its output, an answer."""
    rng = random.Random(seed)
    history: list[dict[str, object]] = []
    for t, text in enumerate(files):
        if t == 0:
            ask = "任務：追蹤 A 廠 3 號線的良率，每週一整理 SPC 異常並更新趨勢圖。先讀相關記憶。"
        else:
            ask = f"第 {t} 步：check the next memory and tell me what changed for line 3."
        call_id = f"call_{t}"
        history += [
            {"role": "user", "content": ask},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {
                            "name": "read_file",
                            "arguments": f'{{"path": "memory/note-{t}.md"}}',
                        },
                    }
                ],
            },
            {"role": "tool", "tool_call_id": call_id, "content": text},
            {
                "role": "assistant",
                "content": "讀完了。"
                + " ".join(rng.sample(text.split(), k=min(40, len(text.split())))),
            },
        ]
    return history


def index_of(lines: list[str], chars: int) -> str:
    """Whole index lines up to ``chars`` characters."""
    out: list[str] = []
    total = 0
    for line in lines:
        if total + len(line) + 1 > chars:
            break
        out.append(line)
        total += len(line) + 1
    return "\n".join(out) + "\n" if out else ""


def survivors(index_text: str, history: list[dict[str, object]], window: int) -> dict[str, int]:
    fs = MemFS(InMemoryFileStore(), clock=bench_clock)
    if index_text:
        fs.raw.pipe_file(INDEX_FILE, index_text.encode("utf-8"))
    turn = build_chat_turn(
        transcript=history,
        user_message="What should I do next?",
        manifest=MANIFEST,
        fs=fs,
        system_prompt=APP_PROMPT,
    )
    result = reduce_transcript(turn.messages, window, protected_prefix=turn.context_block)
    kept = result.messages[1:-1]  # without the system prompt and the newest message
    users = [m for m in kept if m.get("role") == "user"]
    first_task = history[0]["content"]
    return {
        "index_chars": len(index_text),
        "block_tokens": estimate_tokens(turn.context_block),
        "turns_kept": len(users),
        "task_kept": int(any(m.get("content") == first_task for m in users)),
        "tool_outputs_intact": sum(
            1 for m in kept if m.get("role") == "tool" and m.get("content") != TOOL_OUTPUT_STUB
        ),
        "tokens_after": result.report.tokens_after,
        "fits": int(result.fits),
    }


def run(plot_dir: str, stamp: str) -> list[Row]:
    lines, files = _source()
    history = conversation(files)
    xs = sorted({*range(0, MAX_INDEX_CHARS + 1, 5_000), SEED_INDEX_CHARS})
    series: dict[str, list[dict[str, int]]] = {}
    for window in WINDOWS:
        series[str(window)] = [survivors(index_of(lines, x), history, window) for x in xs]
    png = os.path.join(plot_dir, f"{stamp}-crowd-out.png")
    _plot(series, png)

    def at(window: int, chars: int) -> dict[str, int]:
        return series[str(window)][xs.index(chars)]

    parts = []
    for w in WINDOWS:
        a, b, c = at(w, 0), at(w, SEED_INDEX_CHARS), at(w, MAX_INDEX_CHARS)
        gone = next((p["index_chars"] for p in series[str(w)] if p["turns_kept"] == 0), None)
        parts.append(
            f"{w:,}-token window: {a['turns_kept']} → {b['turns_kept']} → {c['turns_kept']} of "
            f"{HISTORY_TURNS} turns kept (task kept: {'yes' if a['task_kept'] else 'no'} → "
            f"{'yes' if b['task_kept'] else 'no'} → {'yes' if c['task_kept'] else 'no'})"
            + f", tool outputs intact {a['tool_outputs_intact']} → {b['tool_outputs_intact']} → "
            f"{c['tool_outputs_intact']}"
            + (f"; no history left from {gone:,} index chars" if gone is not None else "")
        )
    return [
        Row(
            id="7",
            what="conversation crowd-out: history turns surviving the reducer as the "
            "index grows 0 → 17.6k → 100k chars",
            baseline="—",
            target="reported",
            measured="; ".join(parts),
            met=None,
            note=f"History: {HISTORY_TURNS} turns (question, read_file call, a generated memory "
            "file as its output, answer). Budget = the whole window; the app prompt is short and "
            "tool schemas are not counted, so real turns lose history sooner. Plot: "
            f"{os.path.basename(png)}.",
            figures={"index_chars": xs, "series": series, "history_turns": HISTORY_TURNS},
            plots=[os.path.basename(png)],
        )
    ]


def _plot(series: dict[str, list[dict[str, int]]], png: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 7), dpi=110, sharex=True)
    for window, points in series.items():
        xs = [p["index_chars"] / 1000 for p in points]
        label = f"{int(window):,}-token window"
        (line,) = top.plot(xs, [p["turns_kept"] for p in points], "-o", markersize=3, label=label)
        bottom.plot(xs, [p["tool_outputs_intact"] for p in points], "-o", markersize=3,
                    label=label, color=line.get_color())  # fmt: skip
        lost = [p["index_chars"] / 1000 for p in points if not p["task_kept"]]
        if lost:
            top.axvspan(min(lost), max(xs), alpha=0.07, color=line.get_color())
    for ax in (top, bottom):
        ax.axvline(SEED_INDEX_CHARS / 1000, color="grey", linestyle=":", linewidth=1)
        ax.grid(alpha=0.3)
    top.text(
        SEED_INDEX_CHARS / 1000, 2, " real store's index\n (17.6k chars)", fontsize=8, color="grey"
    )
    top.set_ylabel(f"history turns kept (of {HISTORY_TURNS})")
    top.set_ylim(-1, HISTORY_TURNS + 2)
    top.set_title(
        "The index crowds out the conversation (shaded: the first message, the task, is gone)",
        fontsize=10,
    )
    top.legend(loc="center right")
    bottom.set_ylabel(f"tool outputs still intact (of {HISTORY_TURNS})")
    bottom.set_xlabel("MEMORY.md size (thousand characters)")
    bottom.legend(loc="upper right")
    fig.tight_layout()
    fig.savefig(png)
    plt.close(fig)
