"""``memfs chat`` before the chat opens, through a real subprocess: it checks the workspace, then
the model and its endpoint, and only then imports litellm, so a mistake is one line at once."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SERVER_DOWN = (
    "from memfs_litellm import local_model\n"
    "local_model.endpoint_responds = lambda base, timeout=2.0: False\n"
)


def chat(tmp_path: Path, *args: str, setup: str = "") -> tuple[int, list[str], list[str]]:
    """Run ``memfs chat ARGS`` under ``-X importtime``: exit code, the modules it imported, and
    its other stderr lines."""
    code = f"import sys\n{setup}from memfs.cli import main\nsys.exit(main(sys.argv[1:]))"
    env = {k: v for k, v in os.environ.items() if k != "MEMFS_MODEL"}
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code, "chat", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    lines = done.stderr.splitlines()
    imported = [ln.rsplit("|", 1)[-1].strip() for ln in lines if ln.startswith("import time:")]
    said = [ln for ln in lines if not ln.startswith("import time:") and ln.strip()]
    assert done.stdout == ""
    return done.returncode, imported, said


def litellm_modules(imported: list[str]) -> list[str]:
    return [m for m in imported if m == "litellm" or m.startswith("litellm.")]


def test_a_missing_workspace_is_named_before_the_model_and_before_litellm(tmp_path: Path) -> None:
    ws = tmp_path / "nonexistent" / "ws"
    code, imported, said = chat(tmp_path, str(ws), setup=SERVER_DOWN)  # and no model either
    assert code == 2
    assert said == [
        f"memfs chat: No workspace directory at {str(ws)!r}. Pass an existing directory or an "
        "fsspec URL such as s3://bucket/items/42, or add --create to make a new workspace."
    ]
    assert "memfs.cli" in imported  # the import log is read (an empty one proves nothing)
    assert litellm_modules(imported) == []
    assert not ws.exists()


def test_no_model_is_said_before_litellm_loads(tmp_path: Path) -> None:
    code, imported, said = chat(tmp_path, str(tmp_path), setup=SERVER_DOWN)
    assert code == 2
    assert len(said) == 1 and said[0].startswith("memfs chat: No model: pass --model")
    assert litellm_modules(imported) == []


def test_a_local_server_that_is_down_is_said_before_litellm_loads(tmp_path: Path) -> None:
    code, imported, said = chat(
        tmp_path, str(tmp_path), "--model", "openai/local", setup=SERVER_DOWN
    )
    assert code == 2
    assert said == [
        "memfs chat: no model server at http://127.0.0.1:8765/v1 — run `memfs model start`."
    ]
    assert litellm_modules(imported) == []
