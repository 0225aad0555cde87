"""The Anthropic SDK's own memory-tool tests, run against MemFSMemoryTool.

``tests/fixtures/anthropic_sdk/test_filesystem.py.txt`` is the SDK's suite for its reference
tool (``BetaLocalFilesystemMemoryTool``), vendored byte for byte from the sdist ``uv.lock``
pins. This module loads it, points its two tool names at the thin adapters below and lets pytest
collect its test classes: every test in it runs against MemFS, sync and async, except those
:data:`EXCLUDED` lists with the reason.

The adapters only translate the reference's constructor contract: ``base_path`` is the
workspace (a :class:`~memfs.LocalFileStore`), ``memories/`` in it is the memory area, and
``_validate_path`` is the seam the suite uses to act between a command's path check and its
file access. The tool's behaviour is MemFSMemoryTool's own.
"""

from __future__ import annotations

import hashlib
import re
import types
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("anthropic")

from anthropic.types.beta import (
    BetaMemoryTool20250818CreateCommand,
    BetaMemoryTool20250818DeleteCommand,
    BetaMemoryTool20250818InsertCommand,
    BetaMemoryTool20250818RenameCommand,
    BetaMemoryTool20250818StrReplaceCommand,
    BetaMemoryTool20250818ViewCommand,
)
from anyio import Path as AsyncPath
from anyio.to_thread import run_sync
from memfs import LocalFileStore, MemFS
from memfs.layout import Layout

from memfs_anthropic import MemFSAsyncMemoryTool, MemFSMemoryTool
from memfs_anthropic.memory_tool import _Target

SDK_VERSION = "2.14.0"
SUITE = Path(__file__).parent / "fixtures" / "anthropic_sdk" / "test_filesystem.py.txt"
SUITE_SHA256 = "74156357bf942f054e8e791094288316bbc63d74a47ab1d968943f5b12dcfa10"
MEMORY_DIR = "memories"
"""The reference keeps ``/memories`` in ``<base_path>/memories``; so does the adapter."""

_REPLACED_ON_OPEN = (
    "replaces os.open with a stand-in taking (path, flags) that asserts its first call opens "
    "the resolved leaf path, as the reference's private open_regular_file(rel, Path) does; "
    "MemFS's local store opens the root and each directory on the way relative to a descriptor "
    "(os.open(name, flags, dir_fd=...)), which the stand-in cannot be called with. The same "
    "swap, the file replaced by a symlink as it is opened, runs against MemFS in "
    "tests/test_anthropic_memory_tool.py::test_a_file_swapped_for_a_symlink_as_it_is_opened"
)
EXCLUDED: dict[str, str] = {
    f"{cls}::test_read_rejects_file_replaced_with_symlink_before_open": _REPLACED_ON_OPEN
    for cls in ("TestBetaLocalFilesystemMemoryTool", "TestBetaAsyncLocalFilesystemMemoryTool")
}
"""Tests of the SDK suite not run against MemFS, each with the reason."""


def _layout() -> Layout:
    return Layout.claude_code(MEMORY_DIR)


class SdkMemoryTool(MemFSMemoryTool):
    """MemFSMemoryTool behind ``BetaLocalFilesystemMemoryTool``'s constructor."""

    def __init__(self, base_path: str = "./memory") -> None:
        self.base_path = Path(base_path)
        store = LocalFileStore(base_path)
        # The SDK's tests snapshot the whole directory and expect the memory files alone;
        # memfs's version history (.memfs/, tests/test_history.py) is off for them.
        super().__init__(MemFS(store, layout=_layout(), history=False))
        self.host_root = Path(store.root)
        self.memory_root = self.base_path / MEMORY_DIR
        self.fs.makedirs(MEMORY_DIR, exist_ok=True)  # the reference creates it here too

    def _validate_path(self, path: str) -> Path:
        """The host path the command will touch (the suite's seam after a path check)."""
        return self.host_root / MemFSMemoryTool.resolve(self, path).rel

    def resolve(self, path: str) -> _Target:
        target = super().resolve(path)
        self._validate_path(path)  # after the check, before the file is touched
        return target


class _Checked(MemFSMemoryTool):
    """The sync tool the async adapter runs: paths it was handed already checked are taken as
    checked, so the check happens before the suite's seam and the file access after it."""

    def __init__(self, fs: MemFS) -> None:
        super().__init__(fs)
        self.checked: dict[str, _Target] = {}

    def resolve(self, path: str) -> _Target:
        found = self.checked.pop(path, None)
        return found if found is not None else super().resolve(path)


class SdkAsyncMemoryTool(MemFSAsyncMemoryTool):
    """MemFSAsyncMemoryTool behind ``BetaAsyncLocalFilesystemMemoryTool``'s constructor."""

    def __init__(self, base_path: str = "./memory") -> None:
        self.base_path = AsyncPath(base_path)
        store = LocalFileStore(base_path)
        # The SDK's tests snapshot the whole directory and expect the memory files alone;
        # memfs's version history (.memfs/, tests/test_history.py) is off for them.
        super().__init__(MemFS(store, layout=_layout(), history=False))
        self.checking = _Checked(self.sync.fs)
        self.sync = self.checking
        self.host_root = Path(store.root)
        self.memory_root = self.base_path / MEMORY_DIR

    async def _ensure_memory_root(self) -> None:
        await run_sync(lambda: self.sync.fs.makedirs(MEMORY_DIR, exist_ok=True))

    async def _validate_path(self, path: str) -> AsyncPath:
        target = MemFSMemoryTool.resolve(self.checking, path)
        self.checking.checked[path] = target
        return AsyncPath(self.host_root / target.rel)

    async def _checked(self, *paths: str) -> None:
        await self._ensure_memory_root()
        for p in paths:
            await self._validate_path(p)

    async def view(self, command: BetaMemoryTool20250818ViewCommand) -> Any:
        await self._checked(command.path)
        return await super().view(command)

    async def create(self, command: BetaMemoryTool20250818CreateCommand) -> Any:
        await self._checked(command.path)
        return await super().create(command)

    async def str_replace(self, command: BetaMemoryTool20250818StrReplaceCommand) -> Any:
        await self._checked(command.path)
        return await super().str_replace(command)

    async def insert(self, command: BetaMemoryTool20250818InsertCommand) -> Any:
        await self._checked(command.path)
        return await super().insert(command)

    async def delete(self, command: BetaMemoryTool20250818DeleteCommand) -> Any:
        await self._checked(command.path)
        return await super().delete(command)

    async def rename(self, command: BetaMemoryTool20250818RenameCommand) -> Any:
        await self._checked(command.old_path, command.new_path)
        return await super().rename(command)


def _load_suite() -> types.ModuleType:
    source = SUITE.read_bytes()
    digest = hashlib.sha256(source).hexdigest()
    assert digest == SUITE_SHA256, (
        f"{SUITE.name} is not the SDK {SDK_VERSION} file (sha256 {digest}); restore it from the "
        "sdist as tests/fixtures/anthropic_sdk/README.md says"
    )
    module = types.ModuleType("anthropic_sdk_memory_tool_suite")
    module.__file__ = str(SUITE)
    exec(compile(source, str(SUITE), "exec", dont_inherit=True), module.__dict__)
    module.BetaLocalFilesystemMemoryTool = SdkMemoryTool  # type: ignore[attr-defined]
    module.BetaAsyncLocalFilesystemMemoryTool = SdkAsyncMemoryTool  # type: ignore[attr-defined]
    for test_id, reason in EXCLUDED.items():
        cls_name, name = test_id.split("::")
        cls = getattr(module, cls_name)
        setattr(cls, name, pytest.mark.skip(reason=f"excluded: {reason}")(getattr(cls, name)))
    pytest.mark.anyio(module.TestBetaAsyncLocalFilesystemMemoryTool)
    return module


_installed = version("anthropic")
if _installed != SDK_VERSION:
    pytest.skip(
        f"the vendored SDK suite is anthropic {SDK_VERSION}'s, {_installed} is installed; "
        "refresh it as tests/fixtures/anthropic_sdk/README.md says",
        allow_module_level=True,
    )

_suite = _load_suite()
TestBetaLocalFilesystemMemoryTool = _suite.TestBetaLocalFilesystemMemoryTool
TestBetaAsyncLocalFilesystemMemoryTool = _suite.TestBetaAsyncLocalFilesystemMemoryTool
temp_directory = _suite.temp_directory
sync_local_filesystem_tool = _suite.sync_local_filesystem_tool
async_local_filesystem_tool = _suite.async_local_filesystem_tool


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def test_the_vendored_suite_is_the_locked_sdk_version() -> None:
    lock = (Path(__file__).parent.parent / "uv.lock").read_text(encoding="utf-8")
    pinned = re.search(r'name = "anthropic"\nversion = "([^"]+)"', lock)
    assert pinned is not None and pinned.group(1) == SDK_VERSION


def test_the_suite_holds_every_test_of_the_sdk_file() -> None:
    """Nothing of the SDK file is left out silently: 99 test cases, 6 of them excluded."""
    ids = []
    for cls in (TestBetaLocalFilesystemMemoryTool, TestBetaAsyncLocalFilesystemMemoryTool):
        for name in dir(cls):
            if name.startswith("test_"):
                marks = getattr(getattr(cls, name), "pytestmark", [])
                n = 1
                for m in marks:
                    if m.name == "parametrize":
                        n *= len(m.args[1])
                ids.append((cls.__name__, name, n))
    assert sum(n for *_, n in ids) == 99
    assert all(any(f"{c}::{name}" == e for c, name, _ in ids) for e in EXCLUDED), (
        "an exclusion names a test the SDK file does not have"
    )
