"""``memfs serve``: what each page answers to a request it cannot honour, and the index view.

Every refusal is a status and one sentence a person can act on; nothing on disk changes.
"""

from __future__ import annotations

import datetime as dt
import re
import socket
import threading
import urllib.request
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("jinja2")
from memfs import History, InMemoryFileStore, LocalFileStore, MemFS
from starlette.testclient import TestClient

from memfs_serve.app import STALE_FORM, build_app

TODAY = dt.date(2026, 12, 1)
PORT = 8767
BASE = f"http://127.0.0.1:{PORT}"
PLANT = b"---\nname: plant\ndescription: the plant\nmetadata:\n  type: project\n---\nPlant A.\n"
ROLE = b"---\nname: role\ndescription: the user\nmetadata:\n  type: user\n---\nEngineer.\n"


@pytest.fixture
def fs() -> MemFS:
    fs = MemFS(InMemoryFileStore(), clock=lambda: TODAY)
    fs.save("memory/plant.md", PLANT)
    fs.save("memory/plant.md", PLANT.replace(b"Plant A.", b"Plant B."))
    fs.save("memory/role.md", ROLE)
    return fs


def client(fs: MemFS) -> TestClient:
    return TestClient(build_app(fs, port=PORT), base_url=BASE)


def token(page: str) -> str:
    found = re.search(r'name="token" value="([^"]+)"', page)
    assert found, "no token in the page"
    return found.group(1)


def post(c: TestClient, url: str, data: dict[str, str]) -> Any:
    return c.post(url, data=data, headers={"Origin": BASE}, follow_redirects=False)


def problem(page: str) -> str:
    found = re.search(r'<p class="problem" role="alert">(.*?)</p>', page, re.S)
    assert found, "no problem on the page"
    return found.group(1).replace("&#39;", "'").replace("&quot;", '"').replace("&amp;", "&")


def versions(fs: MemFS, path: str) -> list[str]:
    return [v.id for v in History(fs).log(path).versions]


# -- reading a version -----------------------------------------------------------------------------


def test_a_version_page_is_that_version_s_bytes(fs: MemFS) -> None:
    first, second = versions(fs, "memory/plant.md")
    c = client(fs)
    old = c.get("/version", params={"path": "memory/plant.md", "version": first})
    assert old.status_code == 200 and old.headers["content-type"].startswith("text/plain")
    assert old.text.endswith("Plant A.\n") and "recorded: 2026-12-01" in old.text
    assert c.get("/version", params={"path": "memory/plant.md", "version": second}).text.endswith(
        "Plant B.\n"
    )


@pytest.mark.parametrize("url", ["/version", "/diff", "/confirm"])
def test_an_unknown_version_is_a_404_naming_it(fs: MemFS, url: str) -> None:
    params = {"path": "memory/plant.md", "version": "v-nope", "old": "v-nope", "action": "restore"}
    r = client(fs).get(url, params=params)
    assert r.status_code == 404
    said = r.text if url == "/version" else problem(r.text)
    assert "v-nope" in said and "memory/plant.md" in said


def test_confirm_only_restores_or_redacts(fs: MemFS) -> None:
    r = client(fs).get("/confirm", params={"action": "delete", "path": "memory/plant.md"})
    assert r.status_code == 404
    assert problem(r.text) == "Nothing to confirm: the action is restore or redact."


# -- changing: stale forms, missing files, unknown versions ----------------------------------------


@pytest.mark.parametrize("url", ["/delete", "/restore", "/redact"])
def test_a_change_without_this_server_s_token_changes_nothing(fs: MemFS, url: str) -> None:
    before = {p: fs.raw.cat_file(p) for p in fs.raw.find("")}
    first = versions(fs, "memory/plant.md")[0]
    r = post(client(fs), url, {"token": "forged", "path": "memory/plant.md", "version": first})
    assert r.status_code == 403 and problem(r.text) == STALE_FORM
    assert {p: fs.raw.cat_file(p) for p in fs.raw.find("")} == before


def test_deleting_a_memory_that_is_gone_is_a_400_saying_so(fs: MemFS) -> None:
    c = client(fs)
    r = post(c, "/delete", {"token": token(c.get("/new").text), "path": "memory/gone.md"})
    assert r.status_code == 400 and "memory/gone.md" in problem(r.text)


@pytest.mark.parametrize("url", ["/restore", "/redact"])
def test_restoring_or_redacting_an_unknown_version_is_a_400(fs: MemFS, url: str) -> None:
    c = client(fs)
    tok = token(c.get("/new").text)
    r = post(c, url, {"token": tok, "path": "memory/plant.md", "version": "v-nope"})
    assert r.status_code == 400 and "v-nope" in problem(r.text)
    assert fs.raw.cat_file("memory/plant.md").endswith(b"Plant B.\n")


def test_saving_a_memory_deleted_since_it_was_opened_is_a_conflict(fs: MemFS) -> None:
    c = client(fs)
    page = c.get("/edit", params={"path": "memory/role.md"}).text
    sha = re.search(r'name="sha256" value="([0-9a-f]+)"', page)
    assert sha, "no sha256 in the edit form"
    fs.rm_file("memory/role.md")  # someone else deletes it meanwhile
    r = post(
        c,
        "/save",
        {"token": token(page), "path": "memory/role.md", "content": "edited", "sha256": sha[1]},
    )
    assert r.status_code == 409 and "memory/role.md" in problem(r.text)
    assert "edited" in r.text  # the text typed is still in the form
    assert not fs.raw.exists("memory/role.md")
    again = post(  # saving the form again creates the file with the text typed
        c, "/save", {"token": token(r.text), "path": "memory/role.md", "content": "edited"}
    )
    assert again.status_code == 303 and fs.raw.cat_file("memory/role.md").startswith(b"edited")


# -- the overview ----------------------------------------------------------------------------------


def test_a_page_number_that_is_not_a_number_shows_the_first_page(fs: MemFS) -> None:
    c = client(fs)
    r = c.get("/", params={"page": "two"})
    assert r.status_code == 200 and r.text == c.get("/").text


def test_the_type_filter_keeps_only_that_type(fs: MemFS) -> None:
    page = client(fs).get("/", params={"type": "user"}).text
    assert "1 of 2 memories" in page and "memory/role.md" in page
    assert "memory/plant.md" not in page.split('id="index"')[0]


def test_the_index_view_marks_packed_and_prose_lines(fs: MemFS) -> None:
    fs.save(
        "MEMORY.md",
        b"# Memory\n\n- [Role](memory/role.md) - the user\n"
        b"- Cold: [plant](memory/plant.md), [old](memory/old.md)\n",
    )
    page = client(fs).get("/").text
    rows = re.findall(r'<tr class="state-([a-z-]+)"><td>(\d+)</td>', page)
    assert rows == [("prose", "1"), ("linked", "3"), ("packed", "4")]
    assert "<dt>Orphan files</dt><dd>0</dd>" in page  # the packed line links plant.md


def test_without_an_index_there_are_no_index_lines(fs: MemFS) -> None:
    page = client(fs).get("/").text
    assert "state-" not in page
    assert "memory/plant.md" in page and "memory/role.md" in page


# -- the command -----------------------------------------------------------------------------------


def test_the_command_serves_the_workspace_until_the_server_stops(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    import uvicorn
    from memfs.cli import build_parser

    from memfs_serve import command

    workspace = tmp_path / "ws"
    (workspace / "memory").mkdir(parents=True)
    (workspace / "memory" / "role.md").write_bytes(ROLE)
    MemFS(LocalFileStore(str(workspace))).save("MEMORY.md", b"- [Role](memory/role.md) - u\n")
    servers: list[uvicorn.Server] = []

    class Recorded(uvicorn.Server):
        def __init__(self, config: uvicorn.Config) -> None:
            super().__init__(config)
            servers.append(self)

    with socket.socket() as probe:  # a port free a moment ago: the command binds it itself
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    argv = ["serve", str(workspace), "--read-only", "--port", str(port)]
    args = build_parser(argv).parse_args(argv)
    assert args.func is command.run
    codes: list[int] = []
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(uvicorn, "Server", Recorded)
        thread = threading.Thread(target=lambda: codes.append(command.run(args)), daemon=True)
        thread.start()
        page = ""
        for _attempt in range(600):  # until the server answers (it is up within a few tries)
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as r:
                    page = r.read().decode()
                break
            except OSError:
                thread.join(timeout=0.1)
        assert "memory/role.md" in page and "Read-only" in page
        (server,) = servers
        server.should_exit = True
        thread.join(timeout=60)
    assert codes == [0]
    said = capsys.readouterr().err
    assert said.startswith(f"memfs serve: {workspace} (") and "read-only" in said
    assert said.rstrip().endswith(f"on http://127.0.0.1:{port}/")
