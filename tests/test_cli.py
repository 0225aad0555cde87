"""The ``memfs`` command as a person meets it: through a subprocess, exact one-line messages, exit
codes, and never a traceback for a failure the command expects."""

from __future__ import annotations

import http.server
import io
import json
import os
import re
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from importlib.metadata import version
from pathlib import Path
from types import SimpleNamespace

import pytest
from memfs.cli import EXIT_CODES

CLI = [sys.executable, "-m", "memfs.cli"]
ROOT = Path(__file__).resolve().parent.parent


def memfs(
    *args: str, env: dict[str, str] | None = None, stdin: str = "", timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "COLUMNS": "200", **(env or {})}
    return subprocess.run(
        [*CLI, *args], capture_output=True, text=True, input=stdin, env=full, timeout=timeout
    )


def blocked(*modules: str) -> list[str]:
    """``python -c`` that makes ``modules`` unimportable (an extra not installed), then runs the
    CLI on the arguments after it."""
    names = ", ".join(repr(m) for m in modules)
    code = (
        f"import sys\nfor m in ({names},):\n    sys.modules[m] = None\n"
        "from memfs.cli import main\nsys.exit(main(sys.argv[1:]))"
    )
    return [sys.executable, "-c", code]


def one_line(done: subprocess.CompletedProcess[str], code: int = 2) -> str:
    """The single stderr line of an expected failure, after checking the exit code."""
    assert done.returncode == code, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# -- 1. demo -------------------------------------------------------------------------------------


def test_demo_refuses_a_directory_that_is_not_empty(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "MEMORY.md").write_text("mine\n")
    line = one_line(memfs("demo", str(ws)))
    assert line == (
        f"memfs demo: {str(ws)!r} is not empty, and the demo would overwrite its MEMORY.md and "
        "memory files. Give a new or empty directory, leave DIR out to use a temporary one, or "
        "pass --force to write into it anyway."
    )
    assert (ws / "MEMORY.md").read_text() == "mine\n"
    forced = memfs("demo", str(ws), "--force")
    assert forced.returncode == 0, forced.stderr
    assert (ws / "memory" / "user-role.md").exists()


def test_demo_in_a_new_directory_creates_it(tmp_path: Path) -> None:
    done = memfs("demo", str(tmp_path / "new"))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "new" / "MEMORY.md").exists()


def _workspace_line(out: str) -> Path:
    found = re.search(r"Workspace: (\S+)", out)
    assert found, out
    return Path(found.group(1))


def test_demo_removes_its_temporary_directory_unless_keep() -> None:
    done = memfs("demo")
    assert done.returncode == 0, done.stderr
    assert "(a temporary directory, removed at the end)" in done.stdout
    assert not _workspace_line(done.stdout).exists()
    kept = memfs("demo", "--keep")
    assert kept.returncode == 0, kept.stderr
    root = _workspace_line(kept.stdout)
    try:
        assert kept.stdout.rstrip().endswith(f"demo workspace kept at {root}")
        assert (root / "MEMORY.md").exists()
    finally:
        import shutil

        shutil.rmtree(root, ignore_errors=True)


def test_demo_refuses_a_url_and_creates_nothing(tmp_path: Path) -> None:
    done = subprocess.run(
        [*CLI, "demo", "s3://bucket/items/42"], capture_output=True, text=True, cwd=tmp_path
    )
    assert one_line(done) == (
        "memfs demo: 's3://bucket/items/42' is a URL; the demo writes a local directory. Give a "
        "directory path (or none, for a temporary one); `memfs stats` and the other commands "
        "take URLs."
    )
    assert list(tmp_path.iterdir()) == []  # no local "s3:" directory


def test_demo_keep_is_only_for_the_temporary_directory(tmp_path: Path) -> None:
    line = one_line(memfs("demo", str(tmp_path / "ws"), "--keep"))
    assert line == (
        "memfs demo: --keep is for the temporary directory; a DIR you give is always kept."
    )
    assert not (tmp_path / "ws").exists()


# -- 2. one line per expected failure --------------------------------------------------------------


def test_s3_without_credentials_is_one_line(tmp_path: Path) -> None:
    pytest.importorskip("s3fs")
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(
        HOME=str(tmp_path),
        AWS_EC2_METADATA_DISABLED="true",
        AWS_CONFIG_FILE=str(tmp_path / "none"),
        AWS_SHARED_CREDENTIALS_FILE=str(tmp_path / "none"),
    )
    done = subprocess.run(
        [*CLI, "stats", "s3://bucket/items/42"], capture_output=True, text=True, env=env,
        timeout=120,
    )  # fmt: skip
    assert one_line(done) == (
        "memfs stats: no usable S3 credentials for s3://bucket/items/42 (Unable to locate "
        "credentials). Set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE) in the "
        "environment, then run the command again."
    )


@pytest.mark.parametrize("port", ["99999", "0", "http"])
def test_a_port_out_of_range_is_a_usage_error(tmp_path: Path, port: str) -> None:
    done = memfs("mcp", str(tmp_path), "--http", "--port", port)
    assert one_line(done) == (
        f"memfs mcp: argument --port: {port!r} is not a TCP port; give a number from 1 "
        "to 65535; see `memfs mcp --help`."
    )


def test_a_port_without_http_is_a_usage_error_not_a_stdio_server(tmp_path: Path) -> None:
    done = memfs("mcp", str(tmp_path), "--port", "9999", stdin="")
    assert one_line(done) == (
        "memfs mcp: --port 9999 is the HTTP port, and without --http the server speaks stdio; "
        "add --http to serve HTTP on that port, or drop --port."
    )
    assert list(tmp_path.iterdir()) == []  # nothing opened, nothing served


def test_memfs_mcp_refuses_a_missing_workspace_before_importing_the_sdk(tmp_path: Path) -> None:
    missing = str(tmp_path / "nope-ws")
    assert one_line(memfs("mcp", missing)) == (
        f"memfs mcp: No workspace directory at {missing!r}. Pass an existing directory or an "
        "fsspec URL such as s3://bucket/items/42, or add --create to make a new workspace."
    )
    code = "import sys\nfrom memfs.cli import main\nmain(sys.argv[1:])"
    for flags in ([], ["--http"], ["--port", "9999"]):
        loaded = _modules_after(code, "mcp", missing, *flags)
        assert "memfs_mcp.command" in loaded
        assert not {m for m in loaded if m.split(".")[0] in ("mcp", "mcp_types", "uvicorn")}


@pytest.mark.parametrize(
    ("url", "package"),
    [("gs://bucket/items/42", "gcsfs"), ("az://container/items/42", "adlfs")],
)
def test_an_object_store_without_its_fsspec_backend_is_one_line(url: str, package: str) -> None:
    protocol = url.split("://")[0]
    for command in (["stats", url], ["cat", url, "MEMORY.md"]):
        done = subprocess.run(
            [*blocked(package), *command], capture_output=True, text=True, timeout=120
        )
        assert one_line(done) == (
            f"memfs {command[0]}: {protocol}:// URLs (fsspec's {package} backend) need the "
            f"package {package!r}, which is not installed. Install it with `pip install "
            f"{package}`, then run the command again."
        )


def test_s3_without_s3fs_names_the_extra() -> None:
    done = subprocess.run(
        [*blocked("s3fs"), "stats", "s3://bucket/items/42"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert one_line(done) == (
        "memfs stats: this needs the 's3' extra, and 's3fs' is not installed. Install it with "
        "`pip install 'memfs-workspace[s3]'` (in a checkout: `make sync`, which installs every "
        "extra)."
    )


@pytest.mark.parametrize("url", ["http://127.0.0.1:9/x", "https://example.invalid/items/42"])
def test_a_web_address_is_not_a_workspace(url: str) -> None:
    assert one_line(memfs("stats", url)) == (
        f"memfs stats: {url!r} is a web address, and a workspace cannot live behind one: HTTP "
        "gives memfs no directory listing or writes to rely on. Give a local directory or an "
        "object store URL such as s3://bucket/items/42."
    )


def test_a_port_in_use_is_refused_before_it_says_serving(tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = memfs("mcp", str(tmp_path), "--http", "--port", str(port))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "serving" not in done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        f"memfs mcp: port {port} on 127.0.0.1 is already in use (another `memfs mcp --http`?); "
        "stop that process or pass --port with a free port."
    )


def test_output_closed_early_is_no_traceback(tmp_path: Path) -> None:
    """``memfs … | head``: the reader is gone before the command writes, or in the middle."""
    before = subprocess.Popen([*CLI, "stats", str(tmp_path)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)  # fmt: skip
    assert before.stdout is not None
    before.stdout.close()  # long before the interpreter has started
    _, err = before.communicate(timeout=120)
    assert (before.returncode, err) == (1, b"")

    (tmp_path / "big.md").write_text("line\n" * 400_000)
    during = subprocess.Popen([*CLI, "cat", str(tmp_path), "big.md", "--raw"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    assert during.stdout is not None and during.stderr is not None
    assert during.stdout.read(10) == b"line\nline\n"  # then go away, like `| head -c 10`
    during.stdout.close()
    err_text = during.stderr.read().decode()
    assert during.wait(timeout=60) == 1
    assert err_text == "", err_text  # closed early: quiet (the platform layout is not announced)


def test_a_bug_still_shows_its_traceback(tmp_path: Path) -> None:
    code = (
        "import sys\nimport memfs.commands.stats as s\n"
        "def boom(fs, **kw):\n    raise RuntimeError('a bug')\n"
        "s.collect_stats = boom\nfrom memfs.cli import main\nsys.exit(main(sys.argv[1:]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, "stats", str(tmp_path)], capture_output=True, text=True
    )
    assert done.returncode == 1
    assert "Traceback" in done.stderr and "RuntimeError: a bug" in done.stderr


def test_the_exit_codes_are_documented() -> None:
    cli_doc = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    for code in EXIT_CODES:
        assert f"| {code} |" in cli_doc


# -- 3. mcp and chat never create a workspace without --create -------------------------------------


@pytest.mark.parametrize("command", ["mcp", "chat"])
def test_mcp_and_chat_refuse_a_missing_directory(tmp_path: Path, command: str) -> None:
    pytest.importorskip("mcp" if command == "mcp" else "litellm")
    ws = tmp_path / "nowhere"
    extra = ["--model", "openai/gpt-x"] if command == "chat" else []
    done = memfs(command, str(ws), *extra)
    assert one_line(done) == (
        f"memfs {command}: No workspace directory at {str(ws)!r}. Pass an existing directory or "
        "an fsspec URL such as s3://bucket/items/42, or add --create to make a new workspace."
    )
    assert not ws.exists()


# -- 4. missing extras -----------------------------------------------------------------------------


def test_mcp_without_its_extra_says_which_to_install(tmp_path: Path) -> None:
    done = subprocess.run(
        [*blocked("mcp"), "mcp", str(tmp_path), "--read-only"], capture_output=True, text=True
    )
    assert one_line(done) == (
        "memfs mcp: this needs the 'mcp' extra, and 'mcp' is not installed. Install it with "
        "`pip install 'memfs-workspace[mcp]'` (in a checkout: `make sync`, which installs every "
        "extra)."
    )
    usage = subprocess.run([*blocked("mcp"), "mcp"], capture_output=True, text=True)
    assert usage.returncode == 2
    assert "the following arguments are required: workspace" in usage.stderr


def test_chat_without_litellm_says_so_before_the_chat_opens(tmp_path: Path) -> None:
    done = subprocess.run(
        [*blocked("litellm"), "chat", str(tmp_path), "--model", "openai/x"],
        capture_output=True,
        text=True,
        input="hello\n",
    )
    assert one_line(done) == (
        "memfs chat: this needs the 'litellm' extra, and 'litellm' is not installed. Install it "
        "with `pip install 'memfs-workspace[litellm]'` (in a checkout: `make sync`, which "
        "installs every extra)."
    )
    assert done.stdout == ""


def test_help_lists_a_command_whose_extra_is_missing() -> None:
    done = subprocess.run([*blocked("mcp"), "--help"], capture_output=True, text=True)
    assert done.returncode == 0
    assert re.search(r"^\s+mcp\s+serve an item workspace over MCP", done.stdout, re.M)


# -- 5. --version, cat -----------------------------------------------------------------------------


def test_version() -> None:
    done = memfs("--version")
    assert (done.returncode, done.stdout) == (0, f"memfs {version('memfs-workspace')}\n")


def test_version_loads_no_command_and_no_terminal_library() -> None:
    code = "import sys\nfrom memfs.cli import main\nassert main(sys.argv[1:]) == 0"
    loaded = _modules_after(code, "--version")
    assert not {m for m in loaded if m.startswith("memfs.commands")}
    assert not {m for m in loaded if m.split(".")[0] in (*HEAVY, "rich", "pydantic")}


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["stats"], "memfs stats: the following arguments are required: workspace; see "
         "`memfs stats --help`."),
        (["cat", "ws", "x", "--layout", "zz"], "memfs cat: argument --layout: invalid choice: "
         "'zz' (choose from 'auto', 'platform', 'claude-code'); see `memfs cat --help`."),
        (["grep", "ws", "x", "-C", "many"], "memfs grep: argument -C/--context: invalid int "
         "value: 'many'; see `memfs grep --help`."),
        (["stats", "ws", "--bogus"], "memfs: unrecognized arguments: --bogus; see "
         "`memfs --help`."),
    ],
)  # fmt: skip
def test_a_usage_error_is_one_line_exit_2(args: list[str], line: str) -> None:
    done = memfs(*args)
    assert one_line(done) == line
    assert done.stdout == ""


def test_cat_refuses_a_binary_file_unless_binary(tmp_path: Path) -> None:
    (tmp_path / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    done = memfs("cat", str(tmp_path), "logo.png")
    assert one_line(done) == (
        "memfs cat: 'logo.png' is a binary file (16 bytes), not text; nothing was printed. "
        "Pass --binary to write its bytes anyway, redirected to a file."
    )
    assert done.stdout == ""
    raw = subprocess.run([*CLI, "cat", str(tmp_path), "logo.png", "--binary"], capture_output=True)
    assert raw.returncode == 0 and raw.stdout == (tmp_path / "logo.png").read_bytes()


def test_cat_errors_say_it_once_and_exit_like_stats(tmp_path: Path) -> None:
    done = memfs("cat", str(tmp_path), "memory/none.md")
    assert one_line(done) == (
        f"memfs cat: No file 'memory/none.md' in the workspace {tmp_path}. Give a path relative "
        "to the workspace root, such as MEMORY.md or memory/user-role.md."
    )
    (tmp_path / "memory").mkdir()
    assert one_line(memfs("cat", str(tmp_path), "memory")) == (
        f"memfs cat: 'memory' is a directory in the workspace {tmp_path}; name a file inside it."
    )
    assert memfs("stats", str(tmp_path / "none")).returncode == 2


def test_layout_is_said_once_and_only_when_detection_picked_claude_codes(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "a.md").write_text("---\nname: a\n---\nA.\n")
    (tmp_path / "MEMORY.md").write_text("- [A](memory/a.md) — a\n")
    for args in (["cat", str(tmp_path), "MEMORY.md"], ["context", str(tmp_path)]):
        done = memfs(*args)
        assert done.returncode == 0 and "layout" not in done.stderr, done.stderr
    stats = memfs("stats", str(tmp_path)).stdout
    rows = [ln for ln in stats.splitlines() if "layout" in ln and "pytest" not in ln]
    assert len(rows) == 1 and re.match(r"  layout +platform: index MEMORY.md", rows[0]), rows
    flat = tmp_path / "flat"
    flat.mkdir()
    (flat / "a.md").write_text("---\nname: a\n---\nA.\n")
    (flat / "MEMORY.md").write_text("- [A](a.md) — a\n")
    done = memfs("cat", str(flat), "MEMORY.md")
    assert done.stderr.splitlines() == [
        "memfs cat: claude-code layout: index MEMORY.md, memory files in the workspace root "
        "(MEMORY.md beside 1 markdown file at the root and no memory/ folder)"
    ]
    given = memfs("cat", str(flat), "MEMORY.md", "--layout", "claude-code")
    assert given.returncode == 0 and given.stderr == ""


# -- 6. chat ---------------------------------------------------------------------------------------


def test_chat_on_the_local_model_with_its_server_down(tmp_path: Path) -> None:
    pytest.importorskip("litellm")
    code = (
        "import sys\nfrom memfs_litellm import local_model\n"
        "local_model.endpoint_responds = lambda base, timeout=2.0: False\n"
        "from memfs.cli import main\nsys.exit(main(sys.argv[1:]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, "chat", str(tmp_path), "--model", "openai/local"],
        capture_output=True,
        text=True,
        input="hello\n",
    )
    assert one_line(done) == (
        "memfs chat: no model server at http://127.0.0.1:8765/v1 — run `memfs model start`."
    )


def test_chat_names_a_server_that_went_away_without_litellms_banner(tmp_path: Path) -> None:
    pytest.importorskip("litellm")
    base = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there
    done = memfs(
        "chat", str(tmp_path), "--model", "openai/x", "--api-base", base, "--api-key", "k",
        stdin="hello\n/exit\n", timeout=180,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (
        f"(model call failed: no model server at {base} — start it, or pass another --api-base)"
        in done.stdout
    )
    assert "Give Feedback" not in done.stdout + done.stderr
    assert "Traceback" not in done.stderr


def test_chat_help_and_unknown_commands_never_reach_the_model(tmp_path: Path) -> None:
    from memfs import LocalFileStore, MemFS
    from memfs.manifest import AgentManifest

    from memfs_litellm.chat_command import chat_loop, help_text

    sent: list[str] = []

    def run(**kw: object) -> SimpleNamespace:
        sent.append(str(kw["user_message"]))
        usage = SimpleNamespace(prompt_tokens=1, completion_tokens=1)
        return SimpleNamespace(
            tool_calls=[], truncated=False, final_text="ok", persist=[], usage=usage, elapsed_s=0
        )

    lines = iter(["/help", "/frobnicate now", "//etc is a path", "/etc/hosts is a file", "/exit"])
    out = io.StringIO()
    turns = chat_loop(
        MemFS(LocalFileStore(tmp_path)),
        AgentManifest(),
        "m",
        read_line=lambda _p: next(lines),
        out=out,
        run=run,
    )
    assert sent == ["/etc is a path", "/etc/hosts is a file"] and turns == 2
    text = out.getvalue()
    assert "memfs chat — model m; /help lists the commands" in text
    assert help_text() in text
    for name in ("/help", "/new", "/memory", "/exit"):
        assert re.search(rf"^  {name}\s+\S", help_text(), re.M)
    assert "(unknown command /frobnicate; /help lists the commands)" in text


# -- 7. model status -------------------------------------------------------------------------------


class _Models(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b'{"object": "list", "data": []}'
        self.send_response(200 if self.path == "/v1/models" else 404)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_args: object) -> None:
        pass


@pytest.fixture
def foreign_server() -> Iterator[int]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Models)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield int(server.server_address[1])
    finally:
        server.shutdown()
        server.server_close()


def test_model_status_names_a_foreign_process_on_the_port(
    tmp_path: Path, foreign_server: int
) -> None:
    env = {"MEMFS_CACHE_DIR": str(tmp_path)}
    done = memfs("model", "status", "--port", str(foreign_server), env=env)
    assert done.returncode == 3, done.stderr
    assert done.stdout.splitlines() == [
        f"server:    another program answers as a model server at "
        f"http://127.0.0.1:{foreign_server}/v1: `memfs model start` did not start it (no running "
        "pid in its pid file), so it may not be this model. Stop that program, or start the "
        "model on another port (`memfs model start --port N`).",
        f"installed: no (under {tmp_path}) — run `memfs model install`",
    ]
    machine = json.loads(memfs("model", "status", "--port", str(foreign_server), "--json",
                               env=env).stdout)  # fmt: skip
    assert machine["foreign"] is True and machine["installed"] is False


def test_model_status_when_nothing_answers(tmp_path: Path) -> None:
    port = free_port()
    done = memfs("model", "status", "--port", str(port), env={"MEMFS_CACHE_DIR": str(tmp_path)})
    assert done.returncode == 3
    assert done.stdout.splitlines()[0] == (
        f"server:    not running; nothing answers at http://127.0.0.1:{port}/v1"
    )


# -- 8. Makefile -----------------------------------------------------------------------------------


def _make(target: str) -> str:
    done = subprocess.run(
        ["make", "-n", "-C", str(ROOT), target], capture_output=True, text=True, check=True
    )
    return done.stdout


@pytest.mark.skipif(not (ROOT / "Makefile").exists(), reason="no Makefile")
def test_make_demo_installs_only_what_the_demo_runs_and_removes_nothing() -> None:
    demo = [ln for ln in _make("demo").splitlines() if "memfs demo" in ln]
    assert len(demo) == 1 and "run --frozen --no-dev memfs demo" in demo[0]
    assert "--extra" not in demo[0] and " sync" not in _make("demo")
    sync = [ln for ln in _make("sync").splitlines() if " sync " in ln]
    assert sync and all("--inexact" in ln for ln in sync)


# -- 9. start-up -----------------------------------------------------------------------------------

HEAVY = ("memfs_mcp", "memfs_litellm", "memfs_eval", "mcp", "litellm", "s3fs", "anthropic")


def _modules_after(code: str, *args: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", code + "\nprint('\\n'.join(sys.modules), file=sys.stderr)", *args],
        capture_output=True,
        text=True,
        check=True,
    )
    return set(done.stderr.split())


def test_stats_imports_only_its_own_command(tmp_path: Path) -> None:
    code = "import sys\nfrom memfs.cli import main\nmain(sys.argv[1:])"
    loaded = _modules_after(code, "stats", str(tmp_path))
    assert "memfs.commands.stats" in loaded
    assert not {m for m in loaded if m.split(".")[0] in HEAVY}
    assert not {m for m in loaded if m.startswith("memfs.commands.") and m.endswith("demo")}


def test_stats_loads_neither_pydantic_nor_rich(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "user-role.md").write_text(
        "---\nname: user-role\ndescription: the user's role\nmetadata:\n  type: user\n"
        "  recorded: 2026-01-05\n---\nData engineer.\n"
    )
    (tmp_path / "MEMORY.md").write_text("- [user role](memory/user-role.md) — data engineer\n")
    code = "import sys\nfrom memfs.cli import main\nassert main(sys.argv[1:]) == 0"
    for args in ([], ["--json"], ["--list"]):
        loaded = _modules_after(code, "stats", str(tmp_path), *args)
        assert "memfs.stats" in loaded
        assert not {m for m in loaded if m.split(".")[0] in ("pydantic", "pydantic_core", "rich")}


def test_import_memfs_loads_neither_s3fs_nor_the_guards_models() -> None:
    loaded = _modules_after("import sys; from memfs import MemFS")  # MemFS loads on first use
    assert "memfs.filesystem" in loaded
    assert not {"s3fs", "memfs.credentials.guard", "pydantic.main"} & loaded


def test_a_command_from_another_distribution_still_loads(tmp_path: Path) -> None:
    (tmp_path / "hello_cmd.py").write_text(
        "def register(sub):\n"
        "    p = sub.add_parser('hello', help='say hello')\n"
        "    p.add_argument('who')\n"
        "    p.set_defaults(func=lambda a: print(f'hello {a.who}') or 0)\n"
    )
    info = tmp_path / "hello_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: hello-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[memfs.commands]\nhello = hello_cmd\n")
    env = {"PYTHONPATH": str(tmp_path)}
    assert memfs("hello", "world", env=env).stdout == "hello world\n"
    assert re.search(r"^\s+hello\s+say hello", memfs("--help", env=env).stdout, re.M)
