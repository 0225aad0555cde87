"""The README stays a newcomer's page that tells the truth: its example runs, its links and
commands exist, and the docs site lists every page (what `make docs` then builds strictly)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
MAX_README_LINES = 200

USAGE = re.compile(r"## Usage\n\n```python\n(.*?)```", re.S)


def _usage(text: str) -> str:
    match = USAGE.search(text)
    assert match, "README lost its usage example (a '## Usage' heading, then a python block)"
    return match.group(1)


def test_usage_example_runs_verbatim_as_a_script(tmp_path) -> None:
    """The block as a newcomer pastes it: no traceback, the refusal printed as one line, and
    nothing written outside a temporary directory (the example makes its own)."""
    script = tmp_path / "usage.py"
    script.write_text(_usage(README.read_text(encoding="utf-8")), encoding="utf-8")
    env = {**os.environ, "TMPDIR": str(tmp_path / "tmp")}
    (tmp_path / "tmp").mkdir()
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120
    )
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    out = done.stdout
    assert "This memory is 30 days old" in out and "recorded:" in out
    refusal = out.strip().splitlines()[-1]
    assert refusal.startswith("[Errno 30] Cannot write 'MEMORY.md': this workspace is mounted")
    assert refusal.endswith("as an explicit workflow step that writes memory.")  # no path after
    assert list((tmp_path / "tmp").iterdir()), "the workspace is made in the temp directory"
    assert "/data/items" not in _usage(README.read_text(encoding="utf-8"))


def test_a_cache_chain_takes_the_workspace_as_the_readme_shows(tmp_path) -> None:
    text = README.read_text(encoding="utf-8")
    assert 'fsspec.open("blockcache::memfs://MEMORY.md", memfs={"path": ...})' in text
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "MEMORY.md").write_text("- [Role](memory/user-role.md) — engineer\n")
    code = (
        "import sys, fsspec\n"
        "with fsspec.open('blockcache::memfs://MEMORY.md', 'rb', memfs={'path': sys.argv[1]},"
        " blockcache={'cache_storage': sys.argv[2]}) as f:\n"
        "    print(f.read().decode(), end='')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(ws), str(tmp_path / "cache")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (done.returncode, done.stdout) == (0, "- [Role](memory/user-role.md) — engineer\n")


def test_readme_is_short() -> None:
    lines = README.read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_README_LINES, (
        f"README.md has {lines} lines; keep it under {MAX_README_LINES} and move detail to docs/"
    )


def test_quickstart_page_shows_the_same_example() -> None:
    """docs/quickstart.md repeats the README's example; this keeps the copy identical."""
    block = re.search(
        r"```python\n(.*?)```", (DOCS / "quickstart.md").read_text(encoding="utf-8"), re.S
    )
    assert block, "docs/quickstart.md lost its python example"
    assert block.group(1) == _usage(README.read_text(encoding="utf-8"))


def test_anthropic_page_shows_the_same_example() -> None:
    """The README's Anthropic example (run by test_anthropic_memory_tool.py) matches the docs."""
    readme = README.read_text(encoding="utf-8")
    section = readme.split("## Anthropic memory tool", 1)[1].split("\n## ", 1)[0]
    page = (DOCS / "anthropic-tool.md").read_text(encoding="utf-8")
    first = re.compile(r"```python\n(.*?)```", re.S)
    readme_block, page_block = first.search(section), first.search(page)
    assert readme_block and page_block
    assert readme_block.group(1) == page_block.group(1)


def test_readme_links_resolve() -> None:
    """Relative links in the README (mkdocs checks the docs' own links, not the README's)."""
    text = re.sub(r"```.*?```|`[^`\n]*`", "", README.read_text(encoding="utf-8"), flags=re.S)
    targets = re.findall(r"\]\(([^)\s]+)\)", text)
    relative = [t.split("#")[0] for t in targets if not re.match(r"[a-z]+:", t)]
    assert relative, "README links into docs/"
    missing = [t for t in relative if t and not (ROOT / t).exists()]
    assert not missing, f"README links to files that do not exist: {missing}"


def test_readme_cli_table_names_real_commands() -> None:
    text = README.read_text(encoding="utf-8")
    table = text[text.index("## CLI") :]
    named = set(re.findall(r"^\| `memfs ([a-z]+)", table, re.M))
    registered = {ep.name for ep in entry_points(group="memfs.commands")}
    assert named, "README's CLI table lost its rows"
    assert named <= registered, f"README lists commands that do not exist: {named - registered}"


def _nav_pages(node: object) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, list):
        return [p for item in node for p in _nav_pages(item)]
    if isinstance(node, dict):
        return [p for value in node.values() for p in _nav_pages(value)]
    return []


def test_docs_nav_lists_every_page() -> None:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    nav = _nav_pages(config["nav"])
    pages = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md"))
    assert sorted(nav) == pages, (
        f"mkdocs.yml nav and docs/ differ: not in nav {sorted(set(pages) - set(nav))}, "
        f"no such page {sorted(set(nav) - set(pages))}"
    )
