"""Shared fixtures: a MemFS over each backend, and a fixed clock."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Iterator
from typing import Any

import fsspec
import pytest
from memfs import FsspecFileStore, InMemoryFileStore, LocalFileStore, MemFS
from memfs.stores import FileStore

TODAY = dt.date(2026, 12, 1)

BACKENDS = ["local", "memory", "fsspec-memory", "fsspec-file"]


def make_store(kind: str, tmp_path) -> FileStore:
    if kind == "local":
        return LocalFileStore(tmp_path / "ws")
    if kind == "memory":
        return InMemoryFileStore()
    if kind == "fsspec-memory":
        fs = fsspec.filesystem("memory", skip_instance_cache=True)
        fs.store.clear()
        fs.pseudo_dirs.clear()
        fs.pseudo_dirs.append("")
        return FsspecFileStore(fs, root=f"/ws-{tmp_path.name}")
    if kind == "fsspec-file":
        return FsspecFileStore(f"file://{tmp_path / 'fws'}")
    raise ValueError(kind)


@pytest.fixture(params=BACKENDS)
def store(request, tmp_path) -> Iterator[FileStore]:
    yield make_store(request.param, tmp_path)


@pytest.fixture
def clock() -> Callable[[], dt.date]:
    return lambda: TODAY


@pytest.fixture
def memfs(store, clock) -> MemFS:
    return MemFS(store, clock=clock)


class CallingModel:
    """A scripted completion: step ``k`` of a turn makes the ``k``-th of ``calls`` as a native
    tool call (``(name, arguments)``), then ``final`` is the reply; every request is kept, so a
    test can read what each one offered and forced."""

    def __init__(self, calls: list[tuple[str, dict[str, Any]]], final: str = "Saved.") -> None:
        self.calls = calls
        self.final = final
        self.requests: list[dict[str, Any]] = []

    def __call__(self, **kwargs: Any) -> dict[str, Any]:
        self.requests.append(kwargs)
        done = sum(m["role"] == "tool" for m in kwargs["messages"])
        message: dict[str, Any] = {"role": "assistant", "content": self.final}
        if done < len(self.calls):
            name, args = self.calls[done]
            fn = {"name": name, "arguments": json.dumps(args)}
            message = {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": f"c{done}", "type": "function", "function": fn}],
            }
        return {"choices": [{"message": message, "finish_reason": "stop"}]}
