"""``memfs chat`` once it is open: the /memory command on a new workspace, a reply the endpoint
cut, a Claude Code store read as it is, and --no-memory. The model is scripted (plumbing only)."""

from __future__ import annotations

import io
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from memfs import LocalFileStore, MemFS
from memfs.cli import main
from memfs.manifest import AgentManifest

from memfs_litellm import runner
from memfs_litellm.chat_command import chat_loop


def reply(text: str, **fields: Any) -> SimpleNamespace:
    usage = SimpleNamespace(prompt_tokens=3, completion_tokens=2)
    base = {"tool_calls": [], "truncated": False, "persist": [], "usage": usage, "elapsed_s": 0.0}
    return SimpleNamespace(**{**base, **fields, "final_text": text})


def test_memory_on_a_workspace_without_an_index_says_there_is_none(tmp_path: Path) -> None:
    lines = iter(["/memory", "/exit"])
    out = io.StringIO()
    chat_loop(
        MemFS(LocalFileStore(tmp_path)),
        AgentManifest(),
        "m",
        read_line=lambda _p: next(lines),
        out=out,
        run=lambda **kw: pytest.fail("no turn runs for /memory"),
    )
    assert out.getvalue().splitlines()[1:] == ["(no MEMORY.md yet)"]


def _eof() -> str:
    raise EOFError  # the end of the input, as input() reports it


def test_a_reply_cut_by_the_endpoint_is_marked_before_it(tmp_path: Path) -> None:
    note = "the endpoint cut the prompt: 9,000 tokens sent, 4,096 read"
    lines = iter(["hello"])
    out = io.StringIO()
    turns = chat_loop(
        MemFS(LocalFileStore(tmp_path)),
        AgentManifest(),
        "m",
        read_line=lambda _p: next(lines, None) or _eof(),
        out=out,
        run=lambda **kw: reply("partial answer", truncated=True, truncation_note=note),
    )
    assert turns == 1
    assert out.getvalue().splitlines()[1:4] == [
        f"  ! {note}",
        "assistant> partial answer",
        "  (3 prompt + 2 completion tokens, 0.0 s)",
    ]


def test_the_command_says_a_claude_code_layout_and_honours_no_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("litellm")
    (tmp_path / "MEMORY.md").write_text("- [Role](role.md) — the user\n")
    (tmp_path / "role.md").write_text("---\nname: role\n---\nEngineer.\n")
    seen: list[AgentManifest] = []

    def scripted(**kw: Any) -> SimpleNamespace:
        seen.append(kw["manifest"])
        return reply("hi")

    monkeypatch.setattr(runner, "run_turn", scripted)
    monkeypatch.setattr(sys, "stdin", io.StringIO("hello\n/exit\n"))
    argv = ["chat", str(tmp_path), "--model", "openai/x", "--api-base", "http://h:1/v1"]
    assert main([*argv, "--api-key", "k", "--no-memory"]) == 0
    err = capsys.readouterr().err  # the replies go to the stdout chat_loop was defined with
    assert err.splitlines() == [
        "memfs chat: claude-code layout: index MEMORY.md, memory files in the workspace root "
        "(MEMORY.md beside 1 markdown file at the root and no memory/ folder)"
    ]
    assert [m.memory for m in seen] == [False]  # one turn ran, without memory


@pytest.mark.parametrize(
    ("model", "flag", "tools", "forced"),
    [
        ("openai/local", [], "facts", ["remember_facts", None]),  # the local model: measured
        ("openai/x", [], "files", [None, None]),
        ("openai/local", ["--memory-tool", "files"], "files", [None, None]),
        ("openai/x", ["--memory-tool", "remember"], "remember", ["remember", None]),
        ("openai/local", ["--memory-tool", "remember"], "remember", ["remember", None]),
        ("openai/x", ["--memory-tool", "facts"], "facts", ["remember_facts", None]),
    ],
)
def test_the_memory_tool_follows_the_model_unless_chosen(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    model: str,
    flag: list[str],
    tools: str,
    forced: list[str | None],
) -> None:
    pytest.importorskip("litellm")
    seen: list[tuple[str, str | None]] = []

    def scripted(**kw: Any) -> SimpleNamespace:
        seen.append((kw["memory_tools"], kw["first_tool"]))
        return reply("ok")

    monkeypatch.setattr(runner, "run_turn", scripted)
    # one message asks to remember, the next does not
    monkeypatch.setattr(sys, "stdin", io.StringIO("Remember: MES is the source\nhello\n/exit\n"))
    argv = ["chat", str(tmp_path), "--model", model, "--api-base", "http://h:1/v1"]
    assert main([*argv, "--api-key", "k", *flag]) == 0
    assert seen == [(tools, f) for f in forced]
