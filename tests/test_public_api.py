"""The public API: what ``memfs`` exports, that it loads lazily, that integrations use only it."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import memfs
import pytest

ROOT = Path(__file__).resolve().parent.parent
ADAPTERS = ROOT / "adapters"

# Internal modules an adapter may import from, each an extension point for command modules that
# plug into the `memfs` command line (docs/design.md lists them with the reason).
EXTENSION_POINTS = {
    "memfs.cli": {"listening_socket", "tcp_port"},
    "memfs.cli_workspace": {
        "add_workspace_argument",
        "layout_notice",
        "load_manifest",
        "open_workspace",
    },
    "memfs.extras": {"require", "require_installed"},
}


def _memfs_imports(path: Path) -> list[tuple[str, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.module.split(".")[0] == "memfs"
        ):
            found += [(node.module, a.name) for a in node.names]
        elif isinstance(node, ast.Import):
            found += [(a.name, "") for a in node.names if a.name.split(".")[0] == "memfs"]
    return found


@pytest.mark.parametrize("name", memfs.__all__)
def test_every_exported_name_resolves(name: str) -> None:
    assert getattr(memfs, name) is not None
    assert name in dir(memfs)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        memfs.nope  # noqa: B018


def test_import_memfs_loads_no_submodule() -> None:
    code = "import memfs, sys; print(sorted(m for m in sys.modules if m.startswith('memfs')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['memfs']"


def test_adapters_import_memfs_only_through_the_public_api() -> None:
    stray = []
    for path in sorted(ADAPTERS.rglob("*.py")):
        for module, name in _memfs_imports(path):
            if module == "memfs" and name in memfs.__all__:
                continue
            if name in EXTENSION_POINTS.get(module, set()):
                continue
            stray.append(f"{path.relative_to(ROOT)}: from {module} import {name or '*'}")
    assert not stray, "adapters import internal memfs names:\n" + "\n".join(stray)


def test_extension_points_stay_few() -> None:
    assert sum(len(v) for v in EXTENSION_POINTS.values()) <= 10


def test_the_api_page_documents_exactly_the_exports() -> None:
    page = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    documented = re.findall(r"^::: ([\w.]+)$", page, flags=re.M)
    renamed = dict(memfs._RENAMED)
    expected = [f"{memfs._EXPORTS[n]}.{renamed.get(n, n)}" for n in memfs._EXPORTS]
    assert sorted(documented) == sorted(expected)
    for alias, real in renamed.items():
        assert f"### `{alias}`\n::: {memfs._EXPORTS[alias]}.{real}" in page
