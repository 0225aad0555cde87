"""``memfs serve`` in a real browser: Debian's Chromium, driven by Playwright.

A real ``memfs serve`` process over a local workspace; a person's session: create → edit →
a conflict made from a second tab → restore an earlier version → redact; then the read-only
server. Every control is reached by keyboard, every form field has a label. Screenshots of each
page go to ``docs/assets/serve/`` (shown on docs/serve.md) when ``MEMFS_SCREENSHOTS`` names that
folder, and to the test's temporary folder otherwise.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
if not Path(CHROMIUM).exists():
    pytest.skip(
        "Debian's chromium is not installed (apt-get install chromium)", allow_module_level=True
    )
sync_api = pytest.importorskip("playwright.sync_api")

ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
OLD = b"""---
name: user-role
description: The user is a process engineer
metadata:
  type: user
  recorded: 2026-09-01
---
The user is a process engineer; do not explain Cpk.
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    out = Path(os.environ.get("MEMFS_SCREENSHOTS") or tmp_path / "shots")
    out.mkdir(parents=True, exist_ok=True)
    return out


def _serve(workspace: Path, *extra: str) -> Iterator[str]:
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "memfs.cli", "serve", str(workspace), "--port", str(port), *extra],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()  # printed once the socket listens
        assert "memfs serve:" in line, line
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    # The server's clock is the real one: the memory is 91 days old by today's UTC date.
    recorded = dt.datetime.now(dt.UTC).date() - dt.timedelta(days=91)
    (ws / "memory" / "user-role.md").write_bytes(
        OLD.replace(b"2026-09-01", recorded.isoformat().encode())
    )
    (ws / "MEMORY.md").write_bytes(b"- [Process engineer](memory/user-role.md) - skip SPC\n")
    return ws


@pytest.fixture
def browser() -> Iterator[object]:
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


def _keyboard_reaches_every_control(page: object) -> None:
    """Tab through the page: every link, button and field gets the focus, in order."""
    controls = page.eval_on_selector_all(  # type: ignore[attr-defined]
        "a[href], button, input:not([type=hidden]), select, textarea",
        "els => els.length",
    )
    seen = set()
    for _ in range(controls + 2):
        page.keyboard.press("Tab")  # type: ignore[attr-defined]
        seen.add(page.evaluate("() => document.activeElement.outerHTML"))  # type: ignore[attr-defined]
    assert len(seen) >= controls, (len(seen), controls)


def _every_field_has_a_label(page: object) -> None:
    unlabeled = page.evaluate(  # type: ignore[attr-defined]
        """() => [...document.querySelectorAll('input:not([type=hidden]), select, textarea')]
            .filter(el => !(el.labels && el.labels.length) && !el.getAttribute('aria-label'))
            .map(el => el.outerHTML)"""
    )
    assert unlabeled == []


def _check(page: object, shots: Path, name: str) -> None:
    page.screenshot(path=str(shots / f"{name}.png"), full_page=True)  # type: ignore[attr-defined]
    _every_field_has_a_label(page)
    _keyboard_reaches_every_control(page)


def test_a_person_creates_edits_meets_a_conflict_restores_and_redacts(
    workspace: Path, browser: object, shots: Path
) -> None:
    for base in _serve(workspace):
        page = browser.new_page(viewport={"width": 1200, "height": 900})  # type: ignore[attr-defined]
        page.goto(base + "/")
        assert "91 days" in page.inner_text("main")
        _check(page, shots, "overview")

        page.click("text=New memory")
        page.fill("#path", "memory/plant.md")
        page.fill(
            "#content",
            "---\nname: plant\ndescription: which plant\nmetadata:\n  type: project\n---\n"
            "The item tracks plant A, line 3.\n",
        )
        _check(page, shots, "new")
        page.click("button:has-text('Save')")
        assert "The item tracks plant A, line 3." in page.inner_text("main")
        _check(page, shots, "memory")

        page.click("text=Edit")
        other = browser.new_page()  # type: ignore[attr-defined]
        other.goto(base + "/edit?path=memory/plant.md")
        other.fill("#content", other.input_value("#content").replace("line 3", "line 4"))
        other.click("button:has-text('Save')")  # the second tab saves first
        page.fill("#content", page.input_value("#content").replace("plant A", "plant B"))
        page.click("button:has-text('Save')")
        text = page.inner_text("main")
        assert "changed while you edited it" in text and "line 4" in text
        assert "plant B" in page.input_value("#content")  # what the person wrote is kept
        _check(page, shots, "conflict")
        stored = (workspace / "memory" / "plant.md").read_text()
        assert "line 4" in stored and "plant B" not in stored  # nothing silently overwritten

        page.goto(base + "/history?path=memory/plant.md")
        _check(page, shots, "history")
        page.click("text=Restore… >> nth=0")  # the first version, as created
        _check(page, shots, "confirm-restore")
        page.click("button:has-text('Restore this version')")
        assert "line 3" in (workspace / "memory" / "plant.md").read_text()
        page.click("text=Diff with now >> nth=1")
        assert "line 4" in page.inner_text("main")
        _check(page, shots, "diff")

        page.goto(base + "/history?path=memory/plant.md")
        page.click("text=Redact… >> nth=1")  # the edit made in the second tab
        page.click("button:has-text('Redact this version')")
        assert "redacted" in page.inner_text("main")

        page.goto(base + "/search?q=plant")
        assert "memory/plant.md" in page.inner_text("main")
        _check(page, shots, "search")


def test_the_read_only_server_shows_and_refuses(
    workspace: Path, browser: object, shots: Path
) -> None:
    before = {p: p.read_bytes() for p in workspace.rglob("*") if p.is_file()}
    for base in _serve(workspace, "--read-only"):
        page = browser.new_page()  # type: ignore[attr-defined]
        page.goto(base + "/memory?path=memory/user-role.md")
        assert "Read-only" in page.inner_text("body")
        assert page.locator("form[method=post]").count() == 0
        assert page.locator("text=Edit").count() == 0
        _check(page, shots, "read-only")
        response = page.request.post(
            base + "/save",
            form={"path": "memory/user-role.md", "content": "x"},
            headers={"Origin": base},
        )
        assert response.status == 403
    assert {p: p.read_bytes() for p in workspace.rglob("*") if p.is_file()} == before
