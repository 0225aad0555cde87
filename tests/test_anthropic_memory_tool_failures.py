"""The memory tool when the storage fails or changes under a command: an I/O error, a storage
backend's own error, a file deleted or a directory swapped for a link between the tool's check
and the store's act. Each ends in the error result the model reads (workspace paths only), or,
for a bug, in the exception itself."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("anthropic")

from anthropic.tools import ToolError
from memfs import InMemoryFileStore, LocalFileStore, MemFS

from memfs_anthropic import MemFSMemoryTool
from memfs_anthropic.memory_tool import _LocalLinks
from tests.conftest import TODAY


class FailingStore(InMemoryFileStore):
    """An in-memory store whose ``read`` / ``is_dir`` of chosen paths raise what it is given."""

    def __init__(self) -> None:
        super().__init__()
        self.failing: dict[tuple[str, str], BaseException] = {}

    def _check(self, method: str, path: str) -> None:
        if (method, path) in self.failing:
            raise self.failing[method, path]

    def read(self, path: str) -> bytes:
        self._check("read", path)
        return super().read(path)

    def is_dir(self, path: str) -> bool:
        self._check("is_dir", path)
        return super().is_dir(path)


def tool_on(store: Any) -> tuple[MemFSMemoryTool, MemFS]:
    fs = MemFS(store, clock=lambda: TODAY)
    fs.save("memory/a.md", b"alpha\n")
    fs.save("memory/b.md", b"beta\n")
    return MemFSMemoryTool(fs), fs


def outcome(call: Callable[[], Any]) -> tuple[str, str]:
    try:
        return "ok", str(call())
    except ToolError as e:
        return "error", str(e)


def view(tool: MemFSMemoryTool, path: str) -> tuple[str, str]:
    return outcome(lambda: tool.call({"command": "view", "path": path}))


EIO = OSError(errno.EIO, "Input/output error")


def test_an_io_error_is_the_operation_that_failed_with_its_reason() -> None:
    store = FailingStore()
    tool, _ = tool_on(store)
    store.failing["read", "memory/a.md"] = EIO
    assert view(tool, "/memories/a.md") == (
        "error",
        "The operation on /memories/a.md failed: Input/output error",
    )
    store.failing["read", "memory/a.md"] = ValueError("the stored bytes are damaged")
    assert view(tool, "/memories/a.md") == (
        "error",
        "The operation on /memories/a.md failed: the stored bytes are damaged",
    )


def test_a_storage_backend_error_reads_as_on_every_other_surface() -> None:
    botocore = pytest.importorskip("botocore.exceptions")
    store = FailingStore()
    tool, _ = tool_on(store)
    store.failing["read", "memory/a.md"] = botocore.NoCredentialsError()
    assert view(tool, "/memories/a.md") == (
        "error",
        "no usable S3 credentials (Unable to locate credentials). Set AWS_ACCESS_KEY_ID and "
        "AWS_SECRET_ACCESS_KEY (or AWS_PROFILE) in the environment, then run the command again.",
    )


def test_a_bug_in_the_store_keeps_its_exception() -> None:
    store = FailingStore()
    tool, _ = tool_on(store)
    store.failing["read", "memory/a.md"] = RuntimeError("a bug")
    with pytest.raises(RuntimeError, match="a bug"):
        tool.call({"command": "view", "path": "/memories/a.md"})


def test_a_listing_skips_what_cannot_be_read_and_counts_the_rest() -> None:
    store = FailingStore()
    tool, _ = tool_on(store)
    store.failing["read", "memory/a.md"] = EIO  # its size cannot be known
    kind, text = view(tool, "/memories")
    assert kind == "ok" and text.splitlines()[1:] == ["5B\t/memories", "5B\t/memories/b.md"]
    store.failing.clear()
    store.failing["is_dir", "memory/b.md"] = EIO  # what it is cannot be known
    kind, text = view(tool, "/memories")
    assert kind == "ok" and "/memories/b.md" not in text and "6B\t/memories/a.md" in text


@pytest.mark.parametrize(
    ("command", "said"),
    [
        (
            {"command": "view", "path": "/memories/a.md"},
            "The file /memories/a.md no longer exists (may have been deleted or renamed "
            "concurrently).",
        ),
        ({"command": "delete", "path": "/memories/a.md"}, "The path /memories/a.md does not exist"),
    ],
)
def test_a_file_deleted_between_the_check_and_the_act(command: dict[str, Any], said: str) -> None:
    """Deleted by another turn right after the tool saw it: the reference's words for it."""
    tool, fs = tool_on(InMemoryFileStore())
    real_exists = tool.fs.exists

    def exists_then_vanish(path: str, **kwargs: Any) -> bool:
        found = real_exists(path, **kwargs)
        if found and fs.raw.isfile(path):
            fs.raw.rm_file(path)
        return found

    tool.fs.exists = exists_then_vanish  # type: ignore[method-assign]  # the tool's mount
    assert outcome(lambda: tool.call(command)) == ("error", said)
    assert not fs.raw.exists("memory/a.md")


# -- a directory swapped for a link as the store opens it (local disk) -----------------------------


def swap_when_opened(
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    host: Path,
    target: Path,
    *,
    at: int = 1,
) -> list[str]:
    """The ``at``-th time the store opens ``name``, ``host`` (a directory) becomes a link to
    ``target``."""
    real_open = os.open
    opened: list[str] = []
    swapped: list[str] = []

    def open_swapped(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if os.fspath(path) == name:
            opened.append(name)
        if len(opened) == at and not swapped:
            swapped.append(name)
            host.rename(host.with_name(host.name + ".moved"))
            host.symlink_to(target, target_is_directory=True)
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", open_swapped)
    return swapped


@pytest.fixture
def local(tmp_path: Path) -> tuple[MemFSMemoryTool, MemFS, Path]:
    store = LocalFileStore(tmp_path / "ws")
    fs = MemFS(store, clock=lambda: TODAY)
    fs.save("memory/docs/a.md", b"alpha\n")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "a.md").write_text("outside\n")
    return MemFSMemoryTool(fs), fs, Path(store.root)


def test_a_directory_swapped_for_a_link_is_named_as_the_link(
    local: tuple[MemFSMemoryTool, MemFS, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tool, _, root = local
    swapped = swap_when_opened(monkeypatch, "docs", root / "memory" / "docs", tmp_path / "outside")
    said = view(tool, "/memories/docs/a.md")
    assert swapped
    assert said == (
        "error",
        "Path /memories/docs/a.md would escape /memories directory: /memories/docs is a symlink",
    )
    assert (tmp_path / "outside" / "a.md").read_text() == "outside\n"


def test_the_memory_directory_swapped_for_a_link_is_named_as_memories(
    local: tuple[MemFSMemoryTool, MemFS, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tool, _, root = local
    swap_when_opened(monkeypatch, "memory", root / "memory", tmp_path / "outside")
    assert view(tool, "/memories/docs/a.md") == (
        "error",
        "Path /memories/docs/a.md would escape /memories directory: /memories is a symlink",
    )


def test_a_link_gone_again_before_it_is_found_is_a_plain_refusal(
    local: tuple[MemFSMemoryTool, MemFS, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tool, _, root = local
    docs = root / "memory" / "docs"
    # The tool checks it (is_dir, exists: opens 1 and 2), the store's read meets the link (3).
    swapped = swap_when_opened(monkeypatch, "docs", docs, tmp_path / "outside", at=3)
    real_lstat = os.lstat

    def lstat_after_the_link_went(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        if os.fspath(path) == str(docs) and docs.is_symlink():
            docs.unlink()  # removed again by whoever made it, after the store refused it
        return real_lstat(path, *args, **kwargs)

    monkeypatch.setattr(os, "lstat", lstat_after_the_link_went)
    kind, said = view(tool, "/memories/docs/a.md")
    assert swapped and not docs.exists()
    assert kind == "error" and said.startswith("The operation on /memories/docs/a.md was refused: ")
    assert "symlink" in said and str(tmp_path) not in said


def test_a_directory_that_became_a_link_lists_no_links(tmp_path: Path) -> None:
    fs = MemFS(LocalFileStore(tmp_path / "ws"), clock=lambda: TODAY)
    fs.save("memory/docs/a.md", b"alpha\n")
    root = Path(fs.store.root)  # type: ignore[attr-defined]
    (root / "memory" / "docs" / "same.md").symlink_to("a.md")
    links = _LocalLinks.of(fs)
    assert links is not None
    assert links.linked_children("memory/docs") == [("same.md", "memory/docs/a.md")]
    (root / "memory" / "docs").rename(root / "memory" / "real")
    (root / "memory" / "docs").symlink_to("real", target_is_directory=True)
    assert links.linked_children("memory/docs") == []  # swapped since it was resolved


def test_a_hard_linked_memory_is_refused_with_the_store_s_reason(
    local: tuple[MemFSMemoryTool, MemFS, Path], tmp_path: Path
) -> None:
    """No link or special file on the way: the store's own reason is the whole story."""
    tool, _, root = local
    os.link(tmp_path / "outside" / "a.md", root / "memory" / "docs" / "h.md")
    kind, said = view(tool, "/memories/docs/h.md")
    assert kind == "error" and said.startswith("The operation on /memories/docs/h.md was refused: ")
    assert "hard link" in said and str(tmp_path) not in said
