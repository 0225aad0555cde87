"""The chat, model and eval adapters build on memfs's public API, as a third party would.

Every memfs name they use comes from ``from memfs import X`` with X exported; the only internal
imports are the documented extension points for CLI command modules.
"""

from __future__ import annotations

import ast
from pathlib import Path

import memfs
import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("memfs_litellm", "memfs_eval")
EXTENSION_POINTS = {
    "memfs.cli_workspace": {"add_workspace_argument", "load_manifest", "open_workspace"},
    "memfs.extras": {"require"},
    "memfs.cli": {"tcp_port"},
}


def _memfs_imports(path: Path) -> list[tuple[int, str, list[str]]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "memfs" or node.module.startswith("memfs."):
                found.append((node.lineno, node.module, [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "memfs" or alias.name.startswith("memfs."):
                    found.append((node.lineno, alias.name, []))
    return found


@pytest.mark.parametrize("package", PACKAGES)
def test_the_adapter_imports_only_exported_names(package: str) -> None:
    wrong = []
    for path in sorted((ROOT / "adapters" / package).rglob("*.py")):
        for line, module, names in _memfs_imports(path):
            where = f"{path.relative_to(ROOT)}:{line}"
            if module == "memfs":
                wrong += [f"{where} {n} (not exported)" for n in names if n not in memfs.__all__]
            elif not names or not set(names) <= EXTENSION_POINTS.get(module, set()):
                wrong.append(f"{where} from {module} import {', '.join(names)}")
    assert wrong == []
