"""`memfs demo` end to end on the local store, through the installed CLI entry point."""

from __future__ import annotations

from memfs import MemFS
from memfs.cli import main


def test_demo_writes_a_workspace_and_shows_each_rule(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "250")  # keep rich from wrapping the phrases checked below
    assert main(["demo", str(tmp_path / "ws")]) == 0
    out = capsys.readouterr().out
    assert "This memory is 64 days old" in out
    assert "mounted read-only" in out
    fs = MemFS(path=str(tmp_path / "ws"))
    assert fs.exists("MEMORY.md") and fs.exists("memory/user-role.md")
    stamped = fs.raw.cat_file("memory/yield-source.md").decode()
    assert f"recorded: {fs.today().isoformat()}" in stamped
    assert "system-reminder" not in fs.raw.cat_file("memory/user-role.md").decode()


def test_unknown_command_prints_help(capsys) -> None:
    assert main([]) == 2
    assert "demo" in capsys.readouterr().out
