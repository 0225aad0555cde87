"""``memfs export`` / the transfer plan (memfs.commands.transfer): a destination that is a file,
a plan with conflicts applied anyway, the summary of other files in the memory area, and a
refusal that carries no findings."""

from __future__ import annotations

from pathlib import Path

import pytest
from memfs import LocalFileStore, MemFS
from memfs.cli import main
from memfs.commands.transfer import _why_refused, apply_transfer, plan_transfer

MEMORY = "---\nname: a\ndescription: d\nmetadata:\n  type: user\n---\nx\n"


@pytest.fixture
def src(tmp_path: Path) -> Path:
    (tmp_path / "src" / "memory").mkdir(parents=True)
    (tmp_path / "src" / "memory" / "a.md").write_text(MEMORY)
    (tmp_path / "src" / "memory" / "notes.txt").write_text("other\n")
    return tmp_path / "src"


def test_export_into_a_file_is_refused_in_one_line(
    src: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "file").write_text("x")
    assert main(["export", str(src), str(tmp_path / "file")]) == 2
    assert capsys.readouterr().err.strip() == (
        f"memfs export: {str(tmp_path / 'file')!r} is not a directory."
    )
    assert (tmp_path / "file").read_text() == "x"


def test_the_summary_counts_other_files_in_the_memory_area(
    src: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["export", str(src), str(tmp_path / "dst"), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "found no index; 1 memory file, 1 other file in the memory area" in out
    assert not (tmp_path / "dst").exists()


def test_a_plan_with_conflicts_is_not_applied(src: Path, tmp_path: Path) -> None:
    dst = tmp_path / "dst"
    (dst / "memory").mkdir(parents=True)
    (dst / "memory" / "a.md").write_text("taken")
    target = MemFS(LocalFileStore(dst), history=False)
    plan = plan_transfer(MemFS(LocalFileStore(src), read_only=True), target)
    assert plan.conflicts == ["memory/a.md"] and not plan.writable
    with pytest.raises(FileExistsError) as caught:
        apply_transfer(plan, target)
    assert str(caught.value) == (
        "[Errno 17] The plan has conflicts; nothing was written.: 'memory/a.md'"
    )
    assert (dst / "memory" / "a.md").read_text() == "taken"


def test_a_refusal_without_findings_is_its_own_message() -> None:
    assert _why_refused(ValueError("too large to copy")) == "too large to copy"
