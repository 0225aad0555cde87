"""The README's usage example runs as written (on a temp directory)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"


def test_usage_example_runs(tmp_path, capsys) -> None:
    match = re.search(r"## Usage\n\n```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert match, "README lost its usage example"
    code = match.group(1).replace("/data/items/42", str(tmp_path / "ws"))
    with pytest.raises(PermissionError, match="read-only"):  # the example ends on the refusal
        exec(compile(code, "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert "This memory is 30 days old" in out
    assert "recorded:" in out
