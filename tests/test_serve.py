"""``memfs serve``: the memory browser, through HTTP (Starlette's test client, in process).

The real-browser flow (create → edit → conflict → restore → redact, the read-only server,
keyboard and labels) is ``tests/test_serve_browser.py``.
"""

from __future__ import annotations

import datetime as dt
import re
import subprocess
import sys

import pytest

pytest.importorskip("starlette")
pytest.importorskip("jinja2")
from memfs import History, InMemoryFileStore, LocalFileStore, MemFS, collect_stats
from starlette.testclient import TestClient

from memfs_serve.app import build_app

TODAY = dt.date(2026, 12, 1)
PORT = 8767
BASE = f"http://127.0.0.1:{PORT}"
MEMORY = b"""---
name: user-role
description: The user is a process engineer
metadata:
  type: user
  recorded: 2026-09-01
---
The user is a process engineer; do not explain Cpk.
"""
INDEX = b"- [Process engineer](memory/user-role.md) - skip SPC\n- [Gone](memory/gone.md) - lost\n"


@pytest.fixture
def fs() -> MemFS:
    fs = MemFS(InMemoryFileStore(), clock=lambda: TODAY)
    fs.store.write("memory/user-role.md", MEMORY)  # an old memory, as an import leaves it
    fs.store.write("memory/orphan.md", MEMORY.replace(b"user-role", b"orphan"))
    fs.save("MEMORY.md", INDEX)
    return fs


def client(fs: MemFS, *, read_only: bool = False) -> TestClient:
    return TestClient(build_app(fs, read_only=read_only, port=PORT), base_url=BASE)


def token(page: str) -> str:
    m = re.search(r'name="token" value="([^"]+)"', page)
    assert m, "no token in the page"
    return m.group(1)


def post(c: TestClient, url: str, data: dict[str, str], **kw):  # type: ignore[no-untyped-def]
    return c.post(url, data=data, headers={"Origin": BASE}, follow_redirects=False, **kw)


def test_overview_shows_the_figures_of_memfs_stats(fs: MemFS) -> None:
    page = client(fs).get("/").text
    report = collect_stats(fs)
    assert f"<dd>{report.memory_files}</dd>" in page
    assert f"<dd>{report.index.broken_links}</dd>" in page
    assert f"<dd>{report.index.estimated_tokens} (about;" in page
    assert "91 days" in page and "stale" in page  # the reminder's own age
    assert "broken link" in page and "memory/gone.md" in page
    assert "Orphan files" in page and "memory/orphan.md" in page


def test_overview_filters_and_pages(fs: MemFS) -> None:
    fresh = MEMORY.replace(b"2026-09-01", b"2026-12-01")
    for i in range(60):
        fs.store.write(f"memory/n{i:02}.md", fresh.replace(b"user-role", f"note-{i:02}".encode()))
    c = client(fs)
    first = c.get("/").text
    assert "page 1 of 2" in first and "Next page" in first
    second = c.get("/?page=2").text
    assert "note-59" in second and "note-00" not in second
    only = c.get("/?q=note-07").text
    assert "1 of 62 memories" in only and "note-07" in only
    stale = c.get("/?stale=1").text
    assert "2 of 62 memories" in stale  # the two dated three months ago


def test_a_memory_page_shows_the_reminder_the_agent_reads(fs: MemFS) -> None:
    c = client(fs)
    page = c.get("/memory", params={"path": "memory/user-role.md"}).text
    view = fs.cat_file("memory/user-role.md").decode()
    reminder = view.split("\n", 1)[0]
    assert reminder.startswith("<system-reminder>This memory is 91 days old.")
    assert reminder.replace("<", "&lt;").replace(">", "&gt;") in page
    assert "<p>The user is a process engineer; do not explain Cpk.</p>" in page  # rendered
    raw = c.get("/memory", params={"path": "memory/user-role.md", "raw": "1"})
    assert raw.content == MEMORY


def test_markup_in_a_memory_is_shown_as_text(fs: MemFS) -> None:
    fs.save("memory/x.md", b"---\nname: x\n---\n<script>alert(1)</script>\n")
    page = client(fs).get("/memory", params={"path": "memory/x.md"}).text
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;" in page


@pytest.mark.parametrize(
    "path",
    [
        "../outside.md",
        "memory/../../outside.md",
        "/etc/passwd",
        "memory/%2e%2e/%2e%2e/x.md",
        "..\\outside.md",
        "memory/\x00.md",
        ".memfs/history/x",
        "notes/elsewhere.md",
        "",
    ],
)
def test_no_path_outside_the_memory_area_is_reachable(fs: MemFS, path: str) -> None:
    c = client(fs)
    for url in ("/memory", "/history", "/edit"):
        r = c.get(url, params={"path": path})
        assert r.status_code == 404, (url, path)
    tok = token(c.get("/new").text)
    r = post(c, "/save", {"token": tok, "path": path, "content": "x", "sha256": ""})
    assert r.status_code == 400
    assert not any(".." in p for p in fs.raw.find(""))


def test_an_edit_goes_through_the_rules_and_a_concurrent_change_is_a_conflict(fs: MemFS) -> None:
    c = client(fs)
    page = c.get("/edit", params={"path": "memory/user-role.md"}).text
    sha = re.search(r'name="sha256" value="([0-9a-f]{64})"', page)
    assert sha
    fs.save("memory/user-role.md", MEMORY.replace(b"Cpk", b"Cpk or Ppk"))  # the agent, meanwhile
    mine = MEMORY.decode().replace("Cpk", "Cmk")
    r = post(
        c,
        "/save",
        {
            "token": token(page),
            "path": "memory/user-role.md",
            "content": mine,
            "sha256": sha.group(1),
        },
    )
    assert r.status_code == 409
    assert "changed while you edited it" in r.text and "Cpk or Ppk" in r.text and "Cmk" in r.text
    assert b"Cpk or Ppk" in fs.raw.cat_file("memory/user-role.md")  # nothing overwritten


def test_a_secret_is_refused_with_the_guard_s_words(fs: MemFS) -> None:
    c = client(fs)
    key = "sk-ant-api03-Xq7pR2vT9wLm4Zk8Jd3Hs6Fb1Nc5Gy0Ue2Wr7Ta9Qo4Pi8Vx3Mz6Lk1Jh5Gf2Dd"
    content = f"---\nname: k\n---\nThe key is {key}\n"
    r = post(
        c,
        "/save",
        {
            "token": token(c.get("/new").text),
            "path": "memory/k.md",
            "content": content,
            "sha256": "",
        },
    )
    assert r.status_code == 400 and "credential" in r.text.lower()
    assert not fs.raw.exists("memory/k.md")


def test_create_delete_restore_redact(fs: MemFS) -> None:
    c = client(fs)
    tok = token(c.get("/new").text)
    body = "---\nname: plant\ndescription: the plant\nmetadata:\n  type: project\n---\nPlant A.\n"
    assert (
        post(
            c, "/save", {"token": tok, "path": "memory/plant.md", "content": body, "sha256": ""}
        ).status_code
        == 303
    )
    stored = fs.raw.cat_file("memory/plant.md")
    assert b"recorded: 2026-12-01" in stored  # the filesystem stamped the date
    again = post(
        c, "/save", {"token": tok, "path": "memory/plant.md", "content": body, "sha256": ""}
    )
    assert again.status_code == 409  # create never overwrites
    assert post(c, "/delete", {"token": tok, "path": "memory/plant.md"}).status_code == 303
    assert not fs.raw.exists("memory/plant.md")
    log = History(fs).log("memory/plant.md")
    created = log.versions[0].id
    confirm = c.get(
        "/confirm", params={"action": "restore", "path": "memory/plant.md", "version": created}
    ).text
    assert "Restore version" in confirm
    assert (
        post(
            c, "/restore", {"token": tok, "path": "memory/plant.md", "version": created}
        ).status_code
        == 303
    )
    assert fs.raw.cat_file("memory/plant.md") == stored
    assert (
        post(
            c, "/redact", {"token": tok, "path": "memory/plant.md", "version": created}
        ).status_code
        == 303
    )
    page = c.get("/history", params={"path": "memory/plant.md"}).text
    assert "redacted" in page


def test_a_diff_between_versions_and_against_the_file(fs: MemFS) -> None:
    fs.save("memory/a.md", MEMORY)
    fs.save("memory/a.md", MEMORY.replace(b"Cpk", b"Ppk"))
    versions = History(fs).log("memory/a.md").versions
    c = client(fs)
    d = c.get("/diff", params={"path": "memory/a.md", "old": versions[0].id}).text
    assert "-The user is a process engineer; do not explain Cpk." in d.replace("&#39;", "'")
    assert "+The user is a process engineer; do not explain Ppk." in d
    between = c.get(
        "/diff", params={"path": "memory/a.md", "old": versions[0].id, "new": versions[1].id}
    ).text
    assert "+The user is a process engineer; do not explain Ppk." in between


def test_search_uses_the_memory_search_and_its_limits(fs: MemFS) -> None:
    c = client(fs)
    page = c.get("/search", params={"q": "process engineer"}).text
    assert "memory/user-role.md" in page and "files searched" not in page
    bad = c.get("/search", params={"q": "(", "regex": "1"}).text
    assert 'role="alert"' in bad


@pytest.mark.parametrize(
    "headers",
    [
        {"Host": "evil.example:8767"},
        {"Host": "127.0.0.1:9999"},
        {"Host": "localhost.evil.example:8767"},
    ],
)
def test_a_foreign_host_is_refused(fs: MemFS, headers: dict[str, str]) -> None:
    assert client(fs).get("/", headers=headers).status_code == 403


@pytest.mark.parametrize("origin", ["http://evil.example", "http://localhost:3000", "null", ""])
def test_a_change_from_another_origin_or_without_the_token_is_refused(
    fs: MemFS, origin: str
) -> None:
    c = client(fs)
    tok = token(c.get("/new").text)
    data = {"token": tok, "path": "memory/a.md", "content": "---\nname: a\n---\nA\n", "sha256": ""}
    r = c.post("/save", data=data, headers={"Origin": origin} if origin else {})
    assert r.status_code == 403
    r = post(c, "/save", {**data, "token": "forged"})
    assert r.status_code == 403
    assert not fs.raw.exists("memory/a.md")


def test_a_read_only_server_renders_no_change_control_and_refuses_every_change(fs: MemFS) -> None:
    c = client(fs, read_only=True)
    before = {p: fs.raw.cat_file(p) for p in fs.raw.find("")}
    pages = [
        c.get("/").text,
        c.get("/memory", params={"path": "memory/user-role.md"}).text,
        c.get("/history", params={"path": "MEMORY.md"}).text,
    ]
    for page in pages:
        assert '<form method="post"' not in page and "Edit</a>" not in page
        assert "Read-only" in page
    for url in ("/new", "/edit?path=memory/user-role.md", "/confirm?action=restore&path=MEMORY.md"):
        assert c.get(url).status_code == 403
    for url in ("/save", "/delete", "/restore", "/redact"):
        r = c.post(
            url, data={"path": "memory/user-role.md", "content": "x"}, headers={"Origin": BASE}
        )
        assert r.status_code == 403
    assert {p: fs.raw.cat_file(p) for p in fs.raw.find("")} == before


def test_the_command_without_the_workspace_is_one_line(tmp_path) -> None:  # type: ignore[no-untyped-def]
    r = subprocess.run(
        [sys.executable, "-m", "memfs.cli", "serve", str(tmp_path / "nope")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1 and "nope" in r.stderr


def test_local_store_round_trip(tmp_path) -> None:  # type: ignore[no-untyped-def]
    fs = MemFS(LocalFileStore(str(tmp_path)), clock=lambda: TODAY)
    c = client(fs)
    tok = token(c.get("/new").text)
    r = post(
        c,
        "/save",
        {
            "token": tok,
            "path": "memory/a.md",
            "content": "---\nname: a\n---\r\nA\r\n",
            "sha256": "",
        },
    )
    assert r.status_code == 303
    assert (tmp_path / "memory" / "a.md").read_bytes().endswith(b"---\nA\n")  # no CRLF stored


def test_the_stale_mark_is_exactly_where_the_agent_s_read_has_a_reminder(fs: MemFS) -> None:
    """The overview derives the mark from the reminder's own rule; every row agrees with a read."""
    from memfs import split_view

    from memfs_serve.views import overview

    for days in (0, 1, 2, 30):
        date = (TODAY - dt.timedelta(days=days)).isoformat().encode()
        fs.store.write(f"memory/d{days}.md", MEMORY.replace(b"2026-09-01", date))
    fs.store.write("memory/undated.md", b"---\nname: undated\n---\nno date\n")
    rows = overview(fs, per_page=100).rows
    assert len(rows) == 7
    for row in rows:
        reminder, _ = split_view(fs.cat_file(row.path))
        assert row.stale == (reminder is not None), row.path
        if reminder is not None:
            assert f"This memory is {row.age_days} days old." in reminder


def test_the_history_page_shows_a_damaged_record_as_damaged_without_links(fs: MemFS) -> None:
    fs.pipe_file("memory/plant.md", b"---\nname: plant\nmetadata:\n  type: project\n---\nA.\n")
    fs.pipe_file("memory/plant.md", b"---\nname: plant\nmetadata:\n  type: project\n---\nB.\n")
    first = History(fs).log("memory/plant.md").versions[0]
    whole = fs.store.read(first.key)
    fs.store.write(first.key, whole[: len(whole) // 2])  # a record cut in half
    page = client(fs).get("/history", params={"path": "memory/plant.md"}).text
    row = re.search(r'<tr class="status-damaged">(.*?)</tr>', page, re.S)
    assert row, "no damaged row"
    assert first.key in row.group(1) and "damaged" in row.group(1) and "not JSON" in row.group(1)
    assert "<a " not in row.group(1)
    assert first.id not in page.replace(first.key, "")  # no link names the damaged version
    assert page.count("Restore…") == 1  # the one intact version
