"""The documentation site works opened from disk, in a real browser (headless Chromium).

The site is built (mkdocs, into a temporary directory) and read through ``file://``: every
internal link must name an HTML page (a link ending in ``/`` shows a directory listing
there), each page a link reaches must load as that page in the browser, no table shows a
literal ``\\|``, and screenshots of the home page and a table-heavy page are written beside the
build (``MEMFS_DOCS_SCREENSHOTS`` keeps them in a directory of your choice, to look at).
Skipped, saying why, when mkdocs (the ``docs`` group) or Chromium (Debian's ``chromium``) is
absent; CI installs both.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

pytestmark = [
    pytest.mark.skipif(CHROMIUM is None, reason="no chromium (apt-get install -y chromium)"),
    pytest.mark.skipif(
        shutil.which("mkdocs", path=str(Path(sys.executable).parent)) is None,
        reason="no mkdocs (the docs group: uv sync --group docs)",
    ),
]


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        href = dict(attrs).get("href")
        if tag == "a" and href:
            self.hrefs.append(href)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    mkdocs = Path(sys.executable).with_name("mkdocs")
    done = subprocess.run(
        [str(mkdocs), "build", "--strict", "-q", "-d", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert done.returncode == 0, done.stderr
    return out


def chromium(tmp_path: Path, *args: str) -> str:
    profile = tmp_path / f"profile-{len(list(tmp_path.iterdir()))}"
    done = subprocess.run(
        [str(CHROMIUM), *FLAGS, f"--user-data-dir={profile}", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def internal_links(site: Path) -> dict[Path, set[str]]:
    """Each page's links that stay inside the site, without their #fragment."""
    found: dict[Path, set[str]] = {}
    for page in site.rglob("*.html"):
        if page.name == "404.html":  # a web server's error page; its links are absolute
            continue
        parser = _Links()
        parser.feed(page.read_text(encoding="utf-8"))
        found[page] = {
            h.split("#")[0]
            for h in parser.hrefs
            if not urlsplit(h).scheme and not h.startswith("#") and h.split("#")[0]
        }
    return found


def test_every_internal_link_names_an_html_page(site: Path) -> None:
    bad = []
    total = 0
    for page, hrefs in internal_links(site).items():
        for href in hrefs:
            total += 1
            target = (page.parent / unquote(href)).resolve()
            if href.endswith("/") or not target.is_file():
                bad.append(f"{page.relative_to(site)} -> {href}")
    assert total > 100 and not bad, bad[:20]


def test_each_page_a_link_reaches_loads_as_that_page_in_chromium(
    site: Path, tmp_path: Path
) -> None:
    index = site / "index.html"
    hrefs = internal_links(site)[index]
    pages = sorted({(site / unquote(h)).resolve() for h in hrefs if h.endswith(".html")})
    assert len(pages) >= 15, pages
    for page in [index, *pages]:
        dom = chromium(tmp_path, "--dump-dom", page.as_uri())
        assert "Index of " not in dom, f"{page} opened as a directory listing"
        title = re.search(r"<title>(.*?)</title>", dom, re.S)
        assert title and "memfs" in title.group(1), (page, title)
        assert 'class="md-content"' in dom, page  # the page itself, rendered by the theme


def test_no_table_shows_a_literal_escaped_bar(site: Path) -> None:
    shown = [p.name for p in site.rglob("*.html") if "\\|" in p.read_text(encoding="utf-8")]
    assert not shown, shown


def test_screenshots_of_the_home_page_and_a_wide_page(site: Path, tmp_path: Path) -> None:
    keep = Path(os.environ.get("MEMFS_DOCS_SCREENSHOTS", tmp_path / "shots"))
    keep.mkdir(parents=True, exist_ok=True)
    for name in ("index", "cli", "filesystem"):
        shot = keep / f"{name}.png"
        chromium(
            tmp_path,
            "--window-size=1280,900",
            "--hide-scrollbars",
            f"--screenshot={shot}",
            (site / f"{name}.html").as_uri(),
        )
        assert shot.stat().st_size > 10_000, shot  # a rendered page, not a blank one
