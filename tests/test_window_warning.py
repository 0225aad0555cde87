"""An index that cannot fit the model's window is said before the request is sent: the
turn carries the warning, and `memfs context` / `memfs stats` print it given --window."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from memfs import InMemoryFileStore, MemFS
from memfs.budget import window_warning
from memfs.manifest import AgentManifest
from memfs.tokens import estimate_tokens, with_margin
from memfs.turns import build_chat_turn

from tests.conftest import TODAY

BIG_INDEX = "".join(
    f"- [Memory {i}](memory/m{i}.md) — a hook about topic {i}\n" for i in range(400)
)


def test_the_warning_is_one_line_and_only_when_the_block_cannot_fit() -> None:
    tokens = with_margin(estimate_tokens(BIG_INDEX))
    assert window_warning(BIG_INDEX, tokens) == ""  # exactly fits
    line = window_warning(BIG_INDEX, tokens - 1)
    assert "\n" not in line and line.startswith(
        f"Context window: the memory block is ~{tokens:,} tokens"
    )
    assert f"window of {tokens - 1:,}" in line
    assert window_warning(BIG_INDEX, None) == "" and window_warning("", 10) == ""


def test_the_turn_carries_the_warning_and_still_sends_the_whole_block() -> None:
    fs = MemFS(InMemoryFileStore(), clock=lambda: TODAY)
    fs.pipe_file("MEMORY.md", BIG_INDEX.encode())
    kw = {"transcript": [], "user_message": "hi", "manifest": AgentManifest(), "fs": fs}
    small = build_chat_turn(window_tokens=4096, **kw)
    assert small.window_warning.startswith("Context window: the memory block is ~")
    assert BIG_INDEX.strip() in small.messages[-1]["content"]  # no cut, no cap
    assert build_chat_turn(window_tokens=1_000_000, **kw).window_warning == ""
    assert build_chat_turn(**kw).window_warning == ""


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memfs.cli", *args], capture_output=True, text=True, timeout=120
    )


def test_context_and_stats_print_it_given_the_window(tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").write_text(BIG_INDEX)
    for command in ("context", "stats"):
        warned = _cli(command, str(tmp_path), "--window", "4096")
        assert warned.returncode == 0, warned.stderr
        lines = [ln for ln in warned.stderr.splitlines() if "Context window" in ln]
        assert len(lines) == 1 and lines[0].startswith(f"memfs {command}: Context window:")
        quiet = _cli(command, str(tmp_path), "--window", "1000000")
        assert "Context window" not in quiet.stderr
    data = json.loads(_cli("context", str(tmp_path), "--window", "4096", "--json").stdout)
    assert data["window_warning"].startswith("Context window:")
