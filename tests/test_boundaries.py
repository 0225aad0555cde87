"""The import graph: dependencies point one way (stores ← filesystem ← the rest ← adapters)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "memfs"
ADAPTERS = ROOT / "adapters"

BELOW_THE_FILESYSTEM = (
    "memfs.conflicts",
    "memfs.credentials",
    "memfs.errors",
    "memfs.extras",
    "memfs.frontmatter_block",
    "memfs.layout",
    "memfs.memo",
    "memfs.moves",
    "memfs.paths",
    "memfs.recorder",
    "memfs.records",
    "memfs.staleness",
    "memfs.stores",
    "memfs.tags",
    "memfs.versions",
    "memfs.views",
    "memfs.write_rules",
)
"""Modules the filesystem is built on: none of them may import it, not even for type checking."""


def _module_name(path: Path, base: Path) -> str:
    parts = list(path.relative_to(base).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path, package: str) -> set[str]:
    """Every module ``path`` imports, at any depth (functions and TYPE_CHECKING blocks too)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                mod = ".".join([*base, node.module] if node.module else base)
            else:
                mod = node.module or ""
            out.add(mod)
            out.update(f"{mod}.{a.name}" for a in node.names)  # `from memfs import stores`
    return out


def _graph() -> dict[str, set[str]]:
    modules = {_module_name(p, ROOT): p for p in CORE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        # Importing any submodule runs the package's __init__ first: that is not an edge.
        graph[name] = {
            m for m in _imports(path, package) if m in modules and m not in (name, "memfs")
        }
    return graph


def test_the_core_never_imports_an_adapter() -> None:
    adapters = {p.name for p in ADAPTERS.iterdir() if p.is_dir() and p.name.startswith("memfs_")}
    assert adapters, "no adapters found"
    for path in CORE.rglob("*.py"):
        imported = {m.split(".")[0] for m in _imports(path, "memfs")}
        assert not imported & adapters, f"{path.relative_to(ROOT)} imports {imported & adapters}"


def _reach(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    stack = [start]
    while stack:
        for nxt in graph.get(stack.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return seen


@pytest.mark.parametrize("below", BELOW_THE_FILESYSTEM)
def test_modules_below_the_filesystem_never_reach_it(below: str) -> None:
    graph = _graph()
    mine = [m for m in graph if m == below or m.startswith(below + ".")]
    assert mine, f"{below} not found"
    for module in mine:
        reached = _reach(graph, module)
        assert "memfs.filesystem" not in reached, f"{module} reaches memfs.filesystem"
        assert not any(r.startswith("memfs.commands") for r in reached), module


def test_no_import_cycle_in_the_core() -> None:
    graph = _graph()
    for module in graph:
        assert module not in _reach(graph, module), f"{module} imports itself through a cycle"


def _top(module: str) -> str:
    """The entry of BELOW_THE_FILESYSTEM a module belongs to (a package counts as one)."""
    return next(
        (b for b in BELOW_THE_FILESYSTEM if module == b or module.startswith(b + ".")), module
    )


def test_the_list_below_the_filesystem_is_what_it_stands_on() -> None:
    """The list above is neither short of a module the filesystem imports nor padded."""
    reached = {_top(m) for m in _reach(_graph(), "memfs.filesystem")}
    assert reached == set(BELOW_THE_FILESYSTEM)


def test_the_core_imports_its_own_modules_not_the_public_api() -> None:
    """``from memfs import X`` inside the core would hide an edge from the graph above (the
    package's ``__init__`` loads X lazily): the core names the module that owns X. The commands
    sit on top of everything, like the adapters, and may use the public API."""
    modules = {_module_name(p, ROOT) for p in CORE.rglob("*.py")}
    for path in CORE.rglob("*.py"):
        if path.parent.name == "commands":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "memfs" and not node.level:
                names = [a.name for a in node.names if f"memfs.{a.name}" not in modules]
                assert not names, f"{path.relative_to(ROOT)}: from memfs import {names}"


def test_errors_is_the_bottom_of_the_import_graph() -> None:
    """memfs.errors imports no other memfs module, so any module can raise its errors."""
    assert _graph()["memfs.errors"] == set()


_EXCEPTION_BASES = {"Exception", "ValueError", "OSError", "ImportError", "RuntimeError"}


def test_every_public_error_class_of_the_core_lives_in_errors() -> None:
    """A class deriving from an exception, anywhere in memfs/ but errors.py, is private (a
    signal inside one module) or it belongs in memfs.errors."""
    for path in CORE.rglob("*.py"):
        if path == CORE / "errors.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ClassDef) or node.name.startswith("_"):
                continue
            bases = {b.id for b in node.bases if isinstance(b, ast.Name)}
            bases |= {b.attr for b in node.bases if isinstance(b, ast.Attribute)}
            is_error = bases & _EXCEPTION_BASES or any(b.endswith("Error") for b in bases)
            assert not is_error, f"{path.relative_to(ROOT)}: {node.name} belongs in memfs.errors"


def test_moved_errors_are_still_importable_from_their_old_modules() -> None:
    import memfs
    from memfs import errors, extras, frontmatter_block, history, search, tools

    for module, name in (
        (history, "VersionError"),
        (search, "SearchPatternError"),
        (frontmatter_block, "FrontmatterStampError"),
        (tools, "ToolCallError"),
        (extras, "MissingExtraError"),
    ):
        assert getattr(module, name) is getattr(errors, name) is getattr(memfs, name)
        assert memfs._EXPORTS[name] == "memfs.errors"
