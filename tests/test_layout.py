"""Layout detection: which layout a workspace's files are in, and why; ``--layout`` choices."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from memfs import InMemoryFileStore, MemFS
from memfs.generator import generate_workspace
from memfs.layout import PLATFORM, Layout, detect_layout, resolve_layout

from tests.conftest import TODAY

FIXTURES = Path(__file__).parent / "fixtures" / "claude_code"


def _files(root: Path) -> list[str]:
    return [p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()]


@pytest.mark.parametrize(
    ("paths", "layout", "reason"),
    [
        (["MEMORY.md", "memory/a.md"], PLATFORM, "MEMORY.md at the root and 1 markdown file under"),
        (["MEMORY.md", "a.md", "b.md"], Layout.claude_code(""), "beside 2 markdown files"),
        (["MEMORY.md"], PLATFORM, "no memory files yet"),
        (
            [".claude/memory/MEMORY.md", ".claude/memory/a.md", "README.md", "docs/MEMORY.md"],
            Layout.claude_code(".claude/memory"),
            ".claude/memory/MEMORY.md beside 1 markdown file",
        ),
        # A store moved under memory/ with its index: Claude Code's layout there, not an
        # index-less platform workspace.
        (["memory/MEMORY.md", "memory/a.md"], Layout.claude_code("memory"), "no MEMORY.md at"),
        (["x/y/MEMORY.md", "a/MEMORY.md"], Layout.claude_code("a"), "a/MEMORY.md"),
        ([".claude/memory/a.md", "src/x.py"], Layout.claude_code(".claude/memory"), "no index"),
        (["memory/a.md"], PLATFORM, "no MEMORY.md yet"),
        (["README.md", "notes.md"], PLATFORM, "the default"),
        ([], PLATFORM, "the default"),
    ],
)
def test_detection_rules(paths: list[str], layout: Layout, reason: str) -> None:
    found = detect_layout(paths)
    assert found.layout == layout
    assert reason in found.reason
    assert found.layout.describe() in found.describe() and found.reason in found.describe()


def test_the_three_fixture_layouts_are_told_apart() -> None:
    assert detect_layout(_files(FIXTURES / "platform")).layout == PLATFORM
    assert detect_layout(_files(FIXTURES / "flat")).layout == Layout.claude_code("")
    nested = detect_layout(_files(FIXTURES / "nested"))
    assert nested.layout == Layout.claude_code(".claude/memory")
    assert nested.layout.index_path == ".claude/memory/MEMORY.md"


def test_resolve_layout_choices() -> None:
    platform_ws = ["MEMORY.md", "memory/a.md"]
    assert resolve_layout("auto", platform_ws).layout == PLATFORM
    forced = resolve_layout("claude-code", platform_ws)
    assert forced.layout == Layout.claude_code("") and "--layout claude-code" in forced.reason
    nested = resolve_layout("claude-code", ["README.md", ".claude/memory/MEMORY.md"])
    assert nested.layout == Layout.claude_code(".claude/memory")
    assert resolve_layout("claude-code", ["a.md"]).layout == Layout.claude_code("")
    assert resolve_layout("platform", ["MEMORY.md", "a.md"]).layout == PLATFORM
    with pytest.raises(ValueError, match="Unknown layout 'flat'"):
        resolve_layout("flat", [])


@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(min_value=2, max_value=12),
    seed=st.integers(min_value=0, max_value=50),
    layout=st.sampled_from(
        [PLATFORM, Layout.claude_code(""), Layout.claude_code(".claude/memory")]
    ),
)
def test_a_generated_store_is_detected_in_the_layout_it_was_written_in(
    n: int, seed: int, layout: Layout
) -> None:
    fs = MemFS(InMemoryFileStore(), clock=lambda: TODAY, layout=layout, credential_guard=False)
    generate_workspace(fs, n, seed=seed)
    extra = ["README.md", "src/app.py"] if layout.memory_dir else []
    assert detect_layout([*fs.raw.find(""), *extra]).layout == layout


def test_memory_path_and_links_follow_the_layout() -> None:
    nested = Layout.claude_code(".claude/memory")
    assert nested.memory_path("user-role") == ".claude/memory/user-role.md"
    assert nested.link_for(".claude/memory/user-role.md") == "user-role.md"
    assert PLATFORM.link_for(PLATFORM.memory_path("x.md")) == "memory/x.md"
    assert not nested.is_memory_file(".claude/memory/MEMORY.md")
    assert nested.is_memory_file(".claude/memory/sub/a.md")
    assert not nested.is_memory_file("README.md")
