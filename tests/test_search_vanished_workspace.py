"""A search of a workspace whose directory was removed after it was opened.

An answer of "no matches" would be wrong: the store's error says nothing could be read, and an
agent told "no matches" concludes the memory holds nothing on the subject. The search lets that
error through; a workspace with no memory directory still has no matches."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from memfs import LocalFileStore, MemFS
from memfs.search import memory_paths, search_memory

from tests.conftest import TODAY
from tests.test_history import memory


def test_searching_a_workspace_whose_directory_was_removed_is_an_error(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    fs = MemFS(LocalFileStore(root), clock=lambda: TODAY)
    fs.pipe_file("memory/a.md", memory("a", "the answer"))
    assert memory_paths(fs) == ["memory/a.md"]
    shutil.rmtree(root)  # another process removes the workspace after it was opened
    with pytest.raises(FileNotFoundError, match="workspace directory no longer exists"):
        search_memory(fs, "answer")


def test_searching_a_workspace_with_no_memory_directory_finds_nothing(tmp_path: Path) -> None:
    fs = MemFS(LocalFileStore(tmp_path / "ws"), clock=lambda: TODAY)
    fs.pipe_file("notes.md", b"the answer\n")
    assert memory_paths(fs) == [] and search_memory(fs, "answer").matches == 0
