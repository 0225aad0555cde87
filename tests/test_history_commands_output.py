"""The history commands' text output (memfs.commands.history): a workspace with no versions,
moves named both ways in ``memfs log``, ``memfs gc``'s one line with blobs waiting, and the
actor a command records where the environment has no login name."""

from __future__ import annotations

import getpass
from pathlib import Path

import pytest
from memfs import LocalFileStore, MemFS
from memfs.cli import main
from memfs.commands.history import cli_actor
from memfs.versions import GC_GRACE, HistoryOptions

from tests.conftest import TODAY


def memory(name: str, body: str) -> bytes:
    head = f"---\nname: {name}\nmetadata:\n  type: user\n  recorded: {TODAY}\n---\n"
    return f"{head}{body}\n".encode()


@pytest.fixture
def wide(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "240")  # the log's table on one line per version


def test_log_of_a_workspace_with_no_versions_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], wide: None
) -> None:
    (tmp_path / "ws").mkdir()
    assert main(["log", str(tmp_path / "ws")]) == 0
    assert capsys.readouterr().out.strip() == "no versions recorded"


def test_log_names_a_move_on_both_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], wide: None
) -> None:
    fs = MemFS(LocalFileStore(tmp_path / "ws"), clock=lambda: TODAY)
    fs.pipe_file("memory/a.md", memory("a", "Moved."))
    fs.mv("memory/a.md", "memory/b.md")
    capsys.readouterr()
    assert main(["log", str(tmp_path / "ws"), "memory/b.md"]) == 0
    assert "created (moved from memory/a.md)" in capsys.readouterr().out
    assert main(["log", str(tmp_path / "ws"), "memory/a.md"]) == 0
    assert "deleted (moved to memory/b.md)" in capsys.readouterr().out


def test_gc_says_what_it_deleted_and_what_waits_for_a_later_gc(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blobs = HistoryOptions(inline_limit=0)  # every version's content in a blob
    fs = MemFS(LocalFileStore(tmp_path / "ws"), clock=lambda: TODAY, history=blobs)
    fs.pipe_file("memory/a.md", memory("a", "First."))
    fs.pipe_file("memory/a.md", memory("a", "Second."))
    capsys.readouterr()
    assert main(["gc", str(tmp_path / "ws"), "--keep", "1"]) == 0
    minutes = int(GC_GRACE.total_seconds() // 60)
    assert capsys.readouterr().out.strip() == (
        "gc: 1 versions and 0 blobs deleted, 0 unrecorded files recorded, 1 unreferenced blobs "
        f"kept until a gc after {minutes} minutes finds them still unreferenced"
    )


def test_a_command_without_a_login_name_records_the_actor_cli(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_login() -> str:
        raise KeyError("getpwuid(): uid not found: 4242")

    monkeypatch.setattr(getpass, "getuser", no_login)
    assert cli_actor() == "cli"
