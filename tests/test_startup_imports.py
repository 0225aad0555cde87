"""A read-only command's process imports only what that command uses.

Each case runs ``memfs`` in a fresh interpreter and reads back the modules it ended with, so a
module-level import of fsspec, pydantic, YAML or the credential engine on a reader's path fails
here by name (no timing: the cost of those imports is measured in benchmarks/bench_startup.py).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import memfs
import pytest
from memfs.stores import InMemoryFileStore, LocalFileStore
from memfs.views import agent_view, read_stored, workspace_path

CHILD = """
import json, sys
from memfs.cli import main
code = main(sys.argv[2:])
with open(sys.argv[1], "w") as f:
    json.dump({"code": code, "modules": sorted(sys.modules)}, f)
"""

HEAVY = ("fsspec", "pydantic", "yaml", "memfs.credentials", "memfs.filesystem", "rich")


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    (ws / "MEMORY.md").write_text("- [Role](memory/role.md) — the user's role\n")
    (ws / "memory" / "role.md").write_text(
        "---\nname: role\ndescription: the user's role\ntype: user\n"
        "metadata:\n  recorded: 2020-01-01\n---\nData scientist.\n"
    )
    return ws


def loaded(tmp_path: Path, *argv: str) -> set[str]:
    out = tmp_path / "modules.json"
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(out), *argv],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text())
    assert report["code"] == 0
    return set(report["modules"])


def heavy_in(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == n or m.startswith(n + ".") for n in names))


@pytest.mark.parametrize(
    ("argv", "absent"),
    [
        (("cat", "{ws}", "MEMORY.md"), HEAVY),
        (("cat", "{ws}", "memory/role.md", "--raw"), HEAVY),
        # a memory file's reminder reads its date from the frontmatter, so YAML is used here
        (("cat", "{ws}", "memory/role.md"), tuple(n for n in HEAVY if n != "yaml")),
        # a whole-store pass reads frontmatter (YAML) and writes none back (python-frontmatter),
        # through no MemFS and so no fsspec
        (("grep", "{ws}", "Data"), (*(n for n in HEAVY if n != "yaml"), "frontmatter")),
        (("stats", "{ws}"), (*(n for n in HEAVY if n != "yaml"), "frontmatter")),
    ],
    ids=["cat-index", "cat-raw", "cat-memory", "grep", "stats"],
)
def test_a_read_only_command_imports_only_what_it_uses(
    tmp_path: Path, workspace: Path, argv: tuple[str, ...], absent: tuple[str, ...]
) -> None:
    modules = loaded(tmp_path, *(a.format(ws=workspace) for a in argv))
    assert f"memfs.commands.{argv[0]}" in modules  # the child really ran the command
    assert heavy_in(modules, absent) == []


def test_cat_prints_what_a_read_only_mount_reads(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The command reads without a MemFS; its output is the mount's view, byte for byte."""
    from memfs.cli import main

    fs = memfs.MemFS(LocalFileStore(str(workspace)), read_only=True)
    for path in ("memory/role.md", "MEMORY.md", "/memory/role.md"):
        assert main(["cat", str(workspace), path]) == 0
        assert capsys.readouterr().out == fs.cat_file(path).decode()
    assert "days old" in fs.cat_file("memory/role.md").decode()


def test_read_stored_gives_the_version_only_where_the_store_has_one(tmp_path: Path) -> None:
    plain = InMemoryFileStore()
    plain.write("MEMORY.md", b"index\n")
    assert read_stored(plain, "MEMORY.md") == (b"index\n", None)
    local = LocalFileStore(str(tmp_path))
    local.write("MEMORY.md", b"index\n")
    data, _version = read_stored(local, "MEMORY.md")
    assert data == b"index\n"
    assert workspace_path("memfs:///memory/a.md/") == "memory/a.md"
    layout = memfs.PLATFORM
    tag = b"<system-reminder>x</system-reminder>"
    assert agent_view(layout, "notes.txt", tag, memfs.utc_today()) != tag  # escaped


def test_the_fsspec_stores_load_when_named() -> None:
    import memfs.stores as stores

    assert stores.S3FileStore.__name__ == "S3FileStore"
    assert stores.FsspecFileStore.__name__ == "FsspecFileStore"
    with pytest.raises(AttributeError, match="no attribute 'Nothing'"):
        _ = stores.Nothing  # type: ignore[attr-defined]
    assert memfs.SearchArgs.model_validate({"pattern": "x"}).context >= 0
