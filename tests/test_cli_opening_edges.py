"""Opening a workspace for a command (memfs.cli_workspace, memfs.extras) and ``memfs stats``'
table: a layout given rather than detected, a root index gone before its links are read, a
missing extra found without importing, and a memory dated after today counted as not trusted."""

from __future__ import annotations

from pathlib import Path

import pytest
from memfs.cli import main
from memfs.cli_workspace import open_store_in_layout
from memfs.errors import MissingExtraError
from memfs.extras import require_installed
from memfs.layout import Layout


def test_a_layout_given_is_used_as_given(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    layout = Layout.claude_code("")
    store, found = open_store_in_layout(str(tmp_path / "ws"), layout=layout)
    assert (found.layout, found.reason) == (layout, "given")
    assert store.ls("") == []


def test_a_module_under_a_missing_package_is_a_missing_extra() -> None:
    with pytest.raises(MissingExtraError) as caught:
        require_installed("mcp", "no_such_package_for_memfs.server")
    assert caught.value.extra == "mcp"


def test_stats_counts_a_memory_dated_after_today_as_not_trusted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    memory = tmp_path / "ws" / "memory"
    memory.mkdir(parents=True)
    (memory / "a.md").write_text(
        "---\nname: a\ndescription: d\nmetadata:\n  type: user\n  recorded: 2999-01-01\n---\nx\n"
    )
    assert main(["stats", str(tmp_path / "ws")]) == 0
    row = [ln for ln in capsys.readouterr().out.splitlines() if "future-dated" in ln]
    assert [ln.split() for ln in row] == [["future-dated", "(not", "trusted)", "1"]]


def test_a_root_index_removed_before_its_links_are_read_leaves_the_default_layout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.test_local_store_edges import before

    ws = tmp_path / "ws"
    (ws / "topics").mkdir(parents=True)
    (ws / "topics" / "a.md").write_text("---\nname: a\n---\nx\n")
    (ws / "MEMORY.md").write_text("- [A](topics/a.md) — a\n")
    assert open_store_in_layout(str(ws))[1].layout == Layout.claude_code("")  # its links decide
    # another process removes it between the listing and the read of its links
    before(monkeypatch, "stat", "MEMORY.md", lambda: (ws / "MEMORY.md").unlink())
    _, found = open_store_in_layout(str(ws))
    assert found.layout == Layout.platform()
