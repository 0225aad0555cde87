"""The MCP server at its edges: a source tree never installed, many clients, a memory file that
vanishes or is a link when read, and the stdio server ending with its input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.metadata import PackageNotFoundError
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

pytest.importorskip("mcp")

from mcp.shared.exceptions import MCPError
from memfs import InMemoryFileStore, LocalFileStore, MemFS

from memfs_mcp import server
from memfs_mcp.server import ServerState
from tests.conftest import TODAY

ROLE = b"---\nname: role\ndescription: the user\nmetadata:\n  type: user\n---\nEngineer.\n"


def ctx(name: str) -> Any:
    info = SimpleNamespace(name=name, version="1")
    return SimpleNamespace(session=SimpleNamespace(client_params=SimpleNamespace(client_info=info)))


def test_a_source_tree_never_installed_has_an_unknown_version(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def not_installed(name: str) -> str:
        raise PackageNotFoundError(name)

    monkeypatch.setattr(server, "package_version", not_installed)
    assert server.server_version() == "0+unknown"


def test_the_executors_of_many_clients_stay_bounded() -> None:
    state = ServerState.of(MemFS(InMemoryFileStore(), clock=lambda: TODAY))
    clients = [f"client-{i}" for i in range(server._MAX_EXECUTORS + 5)]
    for name in clients:
        executor = state.executor_for(ctx(name))
        assert executor.fs.actor == f"mcp client {name} 1"
        assert len(state.executors) <= server._MAX_EXECUTORS + 1
    assert state.executor_for(ctx(clients[-1])) is executor  # the newest is kept


class Vanishing(InMemoryFileStore):
    """Lists ``memory/gone.md`` but finds it deleted when it is read (another writer)."""

    def read(self, path: str) -> bytes:
        if path == "memory/gone.md":
            raise FileNotFoundError(2, "No such file", path)
        return super().read(path)


def test_a_memory_file_removed_since_it_was_listed_is_left_out() -> None:
    fs = MemFS(Vanishing(), clock=lambda: TODAY)
    fs.save("memory/gone.md", ROLE.replace(b"role", b"gone"))
    fs.save("memory/role.md", ROLE)
    assert server.memory_files(ServerState.of(fs)) == [("memory/role.md", "role", "the user")]


def test_a_link_where_a_memory_file_should_be_is_an_invalid_resource(tmp_path: Path) -> None:
    fs = MemFS(LocalFileStore(tmp_path / "ws"), clock=lambda: TODAY)
    fs.save("memory/role.md", ROLE)
    (tmp_path / "secret.md").write_text("the secret itself\n")
    os.symlink(tmp_path / "secret.md", tmp_path / "ws" / "memory" / "link.md")
    with pytest.raises(MCPError) as info:
        server.read_memory_resource(ServerState.of(fs), "memfs:///memory/link.md")
    said = str(info.value)
    assert "memory/link.md" in said and "symlink" in said
    assert str(tmp_path) not in said and "the secret itself" not in said


def test_the_stdio_server_answers_then_ends_with_its_input(tmp_path: Path) -> None:
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"},
        },
    }
    done = subprocess.run(
        [sys.executable, "-m", "memfs.cli", "mcp", str(tmp_path)],
        input=json.dumps(initialize) + "\n",
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr
    (line,) = done.stdout.splitlines()  # stdout carries the protocol only
    answer = json.loads(line)
    assert answer["id"] == 1 and answer["result"]["serverInfo"]["name"] == "memfs"
