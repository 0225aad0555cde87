"""A Claude Code store that keeps its memories in sub-folders is detected as one, and a layout
that finds no memory file the index links says so in the figures."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from memfs.layout import detect_layout

INDEX = (
    "- [Standup](episodic/standup.md)\n- [Stack](semantic/stack.md)\n"
    "- [Deploy](procedural/deploy.md)\n"
)
OLD = (
    "---\nname: x\ndescription: y\nmetadata:\n  type: project\n"
    "  modified: 2026-03-02T10:00:00Z\n---\nbody\n"
)
FILES = ["MEMORY.md", "episodic/standup.md", "semantic/stack.md", "procedural/deploy.md"]


def _links() -> list[str]:
    return ["episodic/standup.md", "semantic/stack.md", "procedural/deploy.md"]


def test_an_index_linking_only_into_its_sub_folders_is_a_claude_code_store() -> None:
    found = detect_layout(FILES, _links)
    assert found.layout.kind == "claude-code" and found.layout.memory_dir == ""
    assert "all in its sub-folders (episodic/, procedural/, semantic/)" in found.reason
    # Without the links, or with one link elsewhere, the file list alone cannot tell.
    assert detect_layout(FILES).layout.kind == "platform"
    assert detect_layout(FILES, lambda: [*_links(), "notes.md"]).layout.kind == "platform"
    assert detect_layout(FILES, lambda: ["memory/a.md"]).layout.kind == "platform"


def _store(root: Path) -> Path:
    for path in FILES:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(INDEX if path == "MEMORY.md" else OLD)
    return root


def _memfs(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "memfs.cli", *args], capture_output=True, text=True, check=True
    )
    return done.stdout


def test_the_cli_reads_such_a_store_with_its_reminder_and_stats_flags_a_wrong_layout(
    tmp_path: Path,
) -> None:
    root = _store(tmp_path)
    assert _memfs("cat", str(root), "semantic/stack.md").startswith(
        "<system-reminder>This memory is "
    )
    stats = _memfs("stats", str(root))
    assert "  files                                              3\n" in stats
    assert "layout check" not in stats
    wrong = _memfs("stats", str(root), "--layout", "platform")
    (line,) = [ln for ln in wrong.splitlines() if "layout check" in ln]
    assert "0 memory files, but MEMORY.md links 3 markdown files" in line
