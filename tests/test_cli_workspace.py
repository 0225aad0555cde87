"""Opening a workspace from a command-line argument means the same thing in every command."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from memfs import InMemoryFileStore, LocalFileStore
from memfs.cli_workspace import open_store, open_workspace
from memfs.stores import FsspecFileStore, ProcessLockedStore


def test_a_missing_directory_is_an_error_unless_create(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="add --create"):
        open_workspace(str(tmp_path / "ws"), offer_create=True)
    with pytest.raises(FileNotFoundError) as info:
        open_workspace(str(tmp_path / "ws"))
    assert str(info.value.strerror).endswith("s3://bucket/items/42.")  # no --create offered
    assert not (tmp_path / "ws").exists()
    fs, _ = open_workspace(str(tmp_path / "ws"), create=True)
    assert (tmp_path / "ws").is_dir() and isinstance(fs.store, LocalFileStore)
    assert not fs.is_read_only


def test_a_read_only_open_never_creates(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        open_workspace(str(tmp_path / "ws"), read_only=True)
    with pytest.raises(ValueError, match="never created"):
        open_workspace(str(tmp_path / "ws"), read_only=True, create=True)
    assert not (tmp_path / "ws").exists()
    (tmp_path / "ws").mkdir()
    fs, _ = open_workspace(str(tmp_path / "ws"), read_only=True)
    with pytest.raises(PermissionError):
        fs.pipe_file("memory/x.md", b"x")
    assert list((tmp_path / "ws").iterdir()) == []


def test_a_file_is_not_a_workspace(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    with pytest.raises(NotADirectoryError, match="is a file"):
        open_workspace(str(tmp_path / "f"), create=True)


def test_urls_pick_the_backend(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    assert isinstance(open_store(f"file://{tmp_path / 'ws'}"), LocalFileStore)
    with pytest.raises(FileNotFoundError):
        open_store(f"file://{tmp_path / 'missing'}")
    fs, _ = open_workspace(f"memory://{tmp_path.name}/ws")
    # a generic fsspec filesystem has no native preconditions: wrapped once by MemFS
    assert isinstance(fs.store, ProcessLockedStore)
    assert isinstance(fs.store.inner, FsspecFileStore)
    assert not isinstance(InMemoryFileStore(), FsspecFileStore)


@pytest.mark.parametrize(
    "argv",
    [
        ["stats", "{ws}"],
        ["cat", "{ws}", "MEMORY.md"],
        ["context", "{ws}"],
        ["mcp", "{ws}"],
        ["mcp", "{ws}", "--read-only"],
    ],
)
def test_every_command_refuses_a_missing_workspace_in_one_line(tmp_path: Path, argv) -> None:
    ws = tmp_path / "nowhere"
    cmd = [sys.executable, "-m", "memfs.cli", *(a.format(ws=ws) for a in argv)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "No workspace directory" in lines[0] and "Traceback" not in done.stderr
    assert not ws.exists()


def _claude_code_dir(root: Path) -> Path:
    d = root / "cc"
    d.mkdir()
    (d / "MEMORY.md").write_text("- [Role](user_role.md) — who\n")
    (d / "user_role.md").write_text(
        "---\nname: user_role\ndescription: who\nmetadata:\n  type: user\n---\nX.\n"
    )
    return d


def test_the_layout_is_detected_unless_given(tmp_path: Path) -> None:
    d = _claude_code_dir(tmp_path)
    fs, found = open_workspace(str(d), read_only=True)
    assert found.layout.kind == "claude-code" and fs.layout == found.layout
    assert fs.is_memory_file("user_role.md") and not fs.is_memory_file("MEMORY.md")
    fs, found = open_workspace(str(d), read_only=True, layout="platform")
    assert fs.layout.kind == "platform" and "--layout platform" in found.reason


@pytest.mark.parametrize("command", ["stats", "context", "cat"])
def test_every_command_says_which_layout_it_used(tmp_path: Path, command: str) -> None:
    d = _claude_code_dir(tmp_path)
    argv = [command, str(d)] + (["user_role.md"] if command == "cat" else [])
    done = subprocess.run(
        [sys.executable, "-m", "memfs.cli", *argv], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    said = done.stdout + done.stderr  # stats in its table, cat and context on stderr
    assert re.search(
        r"claude-code( layout)?: index MEMORY\.md, memory files in the workspace root", said
    )
