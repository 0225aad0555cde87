"""One storage failure reads the same on every surface: the line after ``memfs COMMAND:`` on the
command line is the text after ``Error:`` in the MCP server's tool result, per backend.

The CLI runs as a real subprocess; the MCP side is the server's ``call_tool`` handler (over
stdio for the local disk; in-process on S3, where ``memfs mcp`` itself would refuse to start).
"""

from __future__ import annotations

import argparse
import copy
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")
pytest.importorskip("s3fs")
pytest.importorskip("moto")

import mcp_types as types
from mcp import Client, StdioServerParameters
from memfs import FsspecFileStore, InMemoryFileStore, MemFS

from memfs_mcp.server import ServerState, call_tool
from tests.test_s3 import BUCKET, KEY, SECRET, S3Server, s3_server  # noqa: F401

CLI = [sys.executable, "-m", "memfs.cli"]


def cli_line(done: subprocess.CompletedProcess[str], command: str) -> str:
    """What the command said after ``memfs COMMAND: ``, checked to be one line, exit 2."""
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr and done.stdout == ""
    (line,) = done.stderr.strip().splitlines()
    prefix = f"memfs {command}: "
    assert line.startswith(prefix), line
    return line[len(prefix) :]


def mcp_text(result: types.CallToolResult) -> str:
    """What the tool result said after ``Error: ``, checked to be an error."""
    assert result.is_error
    (block,) = result.content
    assert isinstance(block, types.TextContent) and block.text.startswith("Error: ")
    return block.text[len("Error: ") :]


# -- the local disk: permission denied -------------------------------------------------------------

NOBODY = 65534


def _as_unprivileged() -> list[str]:
    """A command prefix that runs as a user the file permissions apply to (root ignores them)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: permissions cannot be denied")
    return [setpriv, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]


@pytest.fixture
def unreadable_memory() -> Iterator[Path]:
    """A workspace whose memory/user-role.md its reader may not read (outside pytest's 0700
    tmp_path, so an unprivileged reader reaches it)."""
    root = Path(tempfile.mkdtemp(prefix="memfs-perm-"))
    try:
        root.chmod(0o755)
        ws = root / "ws"
        (ws / "memory").mkdir(parents=True)
        ws.chmod(0o755)
        (ws / "memory").chmod(0o755)
        secret = ws / "memory" / "user-role.md"
        secret.write_text("---\nname: user-role\n---\nx\n")
        secret.chmod(0)
        yield ws
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def unprivileged_env() -> Iterator[dict[str, str]]:
    """The environment for a child run as another user. When this run is measured, that
    user may not write the run's coverage directory (root's), so the child's measurements go
    to one it may write and are moved into the run's own afterwards."""
    env = dict(os.environ)
    current = None
    if os.geteuid() == 0 and "COVERAGE_PROCESS_CONFIG" in env:
        import coverage

        current = coverage.Coverage.current()
    if current is None:
        yield env
        return
    target = Path(current.config.data_file).resolve().parent
    outbox = Path(tempfile.mkdtemp(prefix="memfs-cov-"))
    try:
        outbox.chmod(0o777)
        # what coverage's own subprocess patch passes on, with the data file moved
        config = copy.copy(current.config)
        config.data_file = str(outbox / ".coverage")
        env["COVERAGE_PROCESS_CONFIG"] = config.serialize()
        yield env
        for measured in outbox.glob(".coverage.*"):
            shutil.move(measured, target / measured.name)
    finally:
        shutil.rmtree(outbox, ignore_errors=True)


def test_local_permission_denied_reads_the_same(
    unreadable_memory: Path, unprivileged_env: dict[str, str]
) -> None:
    prefix = _as_unprivileged()
    ws = str(unreadable_memory)
    done = subprocess.run(
        [*prefix, *CLI, "cat", ws, "memory/user-role.md"],
        capture_output=True, text=True, timeout=120, cwd="/", env=unprivileged_env,
    )  # fmt: skip
    line = cli_line(done, "cat")
    assert line == (
        "Cannot read 'memory/user-role.md': Permission denied. The workspace's file permissions "
        "do not allow it; nothing was changed."
    )
    argv = [*prefix, *CLI, "mcp", ws]
    server = StdioServerParameters(command=argv[0], args=argv[1:], cwd="/", env=unprivileged_env)

    async def go() -> str:
        async with Client(server, read_timeout_seconds=60) as client:
            result = await client.call_tool("read_file", {"path": "memory/user-role.md"})
            return mcp_text(result)

    assert anyio.run(go) == line


# -- S3: credentials, endpoint, bucket ------------------------------------------------------------


def _s3_env(endpoint: str, *, credentials: bool, home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(
        HOME=str(home),
        AWS_EC2_METADATA_DISABLED="true",
        AWS_CONFIG_FILE=str(home / "none"),
        AWS_SHARED_CREDENTIALS_FILE=str(home / "none"),
        AWS_DEFAULT_REGION="us-east-1",
        AWS_ENDPOINT_URL=endpoint,
        AWS_MAX_ATTEMPTS="1",
    )
    if credentials:
        env.update(AWS_ACCESS_KEY_ID=KEY, AWS_SECRET_ACCESS_KEY=SECRET)
    return env


def _mcp_read_index(url: str, env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> str:
    """read_file MEMORY.md through the MCP handler, over a store opened as the CLI opens it."""
    for key in [k for k in os.environ if k.startswith("AWS_")]:
        monkeypatch.delenv(key)
    for key, value in env.items():
        if key.startswith("AWS_") or key == "HOME":
            monkeypatch.setenv(key, value)
    state = ServerState.of(MemFS(FsspecFileStore(url, skip_instance_cache=True)))
    context: Any = SimpleNamespace(session=SimpleNamespace(client_params=None))
    params = types.CallToolRequestParams(name="read_file", arguments={"path": "MEMORY.md"})

    async def go() -> types.CallToolResult:
        return await call_tool(state, context, params)

    return mcp_text(anyio.run(go))


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


S3_CASES = {
    "missing credentials": (
        "no usable S3 credentials for {url} (Unable to locate credentials). Set "
        "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE) in the environment, then "
        "run the command again."
    ),
    "unreachable endpoint": (
        "cannot reach the storage endpoint {endpoint} for {url}; check AWS_ENDPOINT_URL and the "
        "network."
    ),
    "missing bucket": (
        "No bucket 'no-such-bucket' for '{url}', or none these credentials can see. Check the "
        "bucket name (memfs does not create buckets)."
    ),
}


@pytest.mark.parametrize("case", list(S3_CASES))
def test_an_s3_failure_reads_the_same_on_the_cli_and_over_mcp(
    case: str,
    s3_server: S3Server,  # noqa: F811 (the fixture, imported from test_s3)
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    endpoint = s3_server.endpoint
    url = f"s3://{BUCKET}/items/1"
    if case == "unreachable endpoint":
        endpoint = f"http://127.0.0.1:{_closed_port()}"
    if case == "missing bucket":
        url = "s3://no-such-bucket/items/1"
    env = _s3_env(endpoint, credentials=case != "missing credentials", home=tmp_path)
    expected = S3_CASES[case].format(url=url, endpoint=endpoint)
    for command in (["cat", url, "MEMORY.md"], ["stats", url]):
        done = subprocess.run([*CLI, *command], capture_output=True, text=True, env=env,
                              timeout=120)  # fmt: skip
        assert cli_line(done, command[0]) == expected
    assert _mcp_read_index(url, env, monkeypatch) == expected


# -- one failure, every surface -------------------------------------------------------------------


def _no_credentials(*_args: Any, **_kwargs: Any) -> Any:
    from botocore.exceptions import NoCredentialsError

    raise NoCredentialsError()


class _NoCredentialsStore(InMemoryFileStore):
    """An S3-like store (it has a URL) whose every call fails as botocore does without
    credentials: botocore's own class, which s3fs lets through untranslated."""

    url = "s3://bucket/items/42"
    read = write = ls = exists = is_dir = listdir = delete = mkdir = rmdir = _no_credentials


def test_every_surface_says_a_backend_failure_in_the_same_words() -> None:
    from anthropic.tools import ToolError
    from botocore.exceptions import NoCredentialsError
    from memfs import FileToolExecutor, describe_storage_failure
    from memfs.cli import failure_line

    from memfs_anthropic import MemFSMemoryTool

    said = describe_storage_failure(NoCredentialsError(), _NoCredentialsStore.url)
    assert said.startswith("no usable S3 credentials for s3://bucket/items/42 (")
    fs = MemFS(_NoCredentialsStore())
    args = argparse.Namespace(workspace=_NoCredentialsStore.url)
    assert failure_line(NoCredentialsError(), args) == said  # memfs COMMAND: …
    tools = FileToolExecutor(fs)
    assert tools.execute("read_file", {"path": "memory/x.md"}) == f"Error: {said}"
    assert tools.execute("write_file", {"path": "x.md", "content": "x"}) == f"Error: {said}"
    with pytest.raises(ToolError) as e:
        MemFSMemoryTool(fs).call({"command": "view", "path": "/memories/x.md"})
    assert str(e.value) == said
    state = ServerState.of(fs)
    context: Any = SimpleNamespace(session=SimpleNamespace(client_params=None))
    params = types.CallToolRequestParams(name="list_files", arguments={"path": ""})

    async def go() -> types.CallToolResult:
        return await call_tool(state, context, params)

    assert mcp_text(anyio.run(go)) == said


def test_a_bug_is_not_worded_as_a_storage_failure() -> None:
    from memfs import FileToolExecutor, is_expected_failure

    class Broken(InMemoryFileStore):
        def read(self, path: str) -> bytes:
            raise RuntimeError("a bug")

    assert not is_expected_failure(RuntimeError("a bug"))
    with pytest.raises(RuntimeError, match="a bug"):
        FileToolExecutor(MemFS(Broken())).execute("read_file", {"path": "x.md"})
