"""The small ``memfs`` commands in process (``memfs.cli.main``): the paths the subprocess tests
in tests/test_cli.py do not reach."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from memfs import MemFS
from memfs.cli import main
from memfs.commands.cat import is_binary


def test_cat_writes_to_a_text_stream_when_stdout_has_no_buffer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    MemFS(path=str(tmp_path)).pipe_file("MEMORY.md", "- [a](memory/a.md) — café\n".encode())
    out = io.StringIO()  # a notebook's or a test's captured stream: text only
    monkeypatch.setattr("sys.stdout", out)
    assert main(["cat", str(tmp_path), "MEMORY.md", "--raw"]) == 0
    assert out.getvalue() == "- [a](memory/a.md) — café\n"


@pytest.mark.parametrize(
    ("data", "binary"),
    [(b"plain text\n", False), (b"a\0b", True), ("é".encode(), False), (b"\xff\xfe", True)],
)
def test_is_binary_means_a_nul_byte_or_not_utf8(data: bytes, binary: bool) -> None:
    assert is_binary(data) is binary


def test_context_with_the_prompt_and_nothing_to_inject_says_both(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "ws").mkdir()
    app = tmp_path / "app.json"
    app.write_text(json.dumps({"agent": {"memory": False}}))
    assert main(["context", str(tmp_path / "ws"), "--app", str(app), "--prompt"]) == 0
    out, err = capsys.readouterr()
    assert out == (
        "(no memory prompt: memory is off or the app has no workspace)\n" + "-" * 72 + "\n"
    )
    assert err.splitlines()[-1] == "chat turn: nothing injected — 0 tokens"


def test_context_prints_the_memory_prompt_above_the_block(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    MemFS(path=str(tmp_path)).pipe_file("MEMORY.md", b"- [a](memory/a.md) - the a memory\n")
    assert main(["context", str(tmp_path), "--prompt"]) == 0
    out, err = capsys.readouterr()
    prompt, sep, block = out.partition("-" * 72 + "\n")
    assert sep and prompt.strip() and "the a memory" in block
    assert "chat turn: " in err and "tokens" in err


def test_demo_refuses_a_file_as_its_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "file.txt"
    target.write_text("not a directory")
    assert main(["demo", str(target)]) == 2
    err = capsys.readouterr().err.strip()
    assert f"{str(target)!r} is a file, not a directory; give a new directory." in err
    assert len(err.splitlines()) == 1
    assert target.read_text() == "not a directory"
