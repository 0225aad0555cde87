"""A search of a workspace whose directory was removed after it was opened.

Today the search answers "no matches" (``memory_paths`` reads the store's workspace-gone error
as an empty memory directory). That is wrong: the error says nothing could be read, and an
agent told "no matches" concludes the memory holds nothing on the subject. The test states the
behaviour wanted, and is expected to fail until the search lets that error through."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from memfs import LocalFileStore, MemFS
from memfs.search import memory_paths, search_memory

from tests.conftest import TODAY
from tests.test_history import memory


@pytest.mark.xfail(
    strict=True,
    raises=AssertionError,
    reason="memory_paths reads a vanished workspace as one with no memory files",
)
def test_searching_a_workspace_whose_directory_was_removed_is_an_error(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    fs = MemFS(LocalFileStore(root), clock=lambda: TODAY)
    fs.pipe_file("memory/a.md", memory("a", "the answer"))
    assert memory_paths(fs) == ["memory/a.md"]
    shutil.rmtree(root)  # another process removes the workspace after it was opened
    with pytest.raises(FileNotFoundError, match="workspace directory no longer exists"):
        found = search_memory(fs, "answer")
        raise AssertionError(f"a vanished workspace searched as an empty one: {found!r}")
