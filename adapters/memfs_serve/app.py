"""The memory browser as a Starlette application over one workspace.

Every change goes through :class:`~memfs.MemFS` (the credential guard, the date stamp, the
conditional write, the version history) and every read through its views, so the page obeys the
rules the agent does. This module adds only what a web page needs on top:

* **Host and Origin**: a request whose ``Host`` is not this server's own address, or a change
  whose ``Origin`` (or, without one, ``Referer``) is another site, is refused (403): a page on
  another site, or a DNS-rebinding name, cannot read or change memory.
* **CSRF**: every change is a POST carrying the server's token, a random value made at start
  and shown only in this server's own pages.
* **Read-only**: ``read_only=True`` serves ``fs.read_only()``; no page renders a change control
  and every POST is refused (403), before MemFS would refuse it too.
* **Paths**: only the memory area and the index are shown (:func:`views.memory_area_path`);
  confinement itself is MemFS's.
* **Start-up**: the server reads and parses every memory once before it answers (the
  application's lifespan), so no page request pays for the first read of 10,000 files.
"""

from __future__ import annotations

import contextlib
import hmac
import secrets
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

import anyio.to_thread
import jinja2
from markdown_it import MarkdownIt
from memfs import (
    FRESH_DAYS,
    CredentialRefusedError,
    History,
    MemFS,
    PathConflictError,
    PreconditionFailedError,
    SearchPatternError,
    UnsafePathError,
    VersionError,
    message,
    search_memory,
)
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from memfs_serve import views

HERE = Path(__file__).resolve().parent
ACTOR = "memfs serve"
_MARKDOWN = MarkdownIt("commonmark", {"html": False})  # raw HTML in a memory is shown as text


class Browser:
    """The state one server holds: the mount, its token, its own origins, the templates."""

    def __init__(self, fs: MemFS, *, read_only: bool, host: str, port: int) -> None:
        self.read_only = read_only
        self.fs = (fs.read_only() if read_only else fs).acting_as(ACTOR, unless_set=True)
        self.token = secrets.token_urlsafe(32)
        self.summaries = views.Summaries()  # each memory's parse, kept between requests
        names = {host, "127.0.0.1", "localhost"}
        self.hosts = {f"{h}:{port}" for h in names}
        self.origins = {f"http://{h}" for h in self.hosts}
        self.env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(HERE / "templates"),
            autoescape=True,
            undefined=jinja2.StrictUndefined,
        )
        self.env.globals.update(read_only=read_only, token=self.token, urlencode=urlencode)
        self.env.filters["markdown"] = lambda text: _MARKDOWN.render(text)

    def page(self, name: str, status: int = 200, **context: Any) -> HTMLResponse:
        context.setdefault("layout", self.fs.layout)
        return HTMLResponse(self.env.get_template(name).render(**context), status_code=status)

    def problem(self, status: int, text: str) -> HTMLResponse:
        return self.page("problem.html", status, problem=text)


def _allowed(browser: Browser, request: Request) -> str | None:
    """Why ``request`` is refused, or None."""
    if request.headers.get("host", "") not in browser.hosts:
        return "This server answers only at its own address (127.0.0.1)."
    if request.method == "POST":
        origin = request.headers.get("origin") or request.headers.get("referer") or ""
        parts = urlsplit(origin)
        if f"{parts.scheme}://{parts.netloc}" not in browser.origins:
            return "A change must come from this server's own page."
    return None


STALE_FORM = "The form is out of date or not from this server; reload the page and try again."


async def _form(browser: Browser, request: Request) -> dict[str, str] | None:
    """The POSTed form, or None unless it carries this server's token."""
    form = await request.form()
    got = str(form.get("token", ""))
    if not hmac.compare_digest(got.encode(), browser.token.encode()):
        return None
    return {k: str(v) for k, v in form.items()}


def _go(url: str, **query: str) -> RedirectResponse:
    return RedirectResponse(f"{url}?{urlencode(query)}" if query else url, status_code=303)


# -- reading -----------------------------------------------------------------------------------


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        return 1  # a page number that is not one shows the first page


async def overview(request: Request) -> Response:
    b: Browser = request.app.state.browser
    q = request.query_params
    where = views.Filter(
        query=q.get("q", ""),
        type_=q.get("type", ""),
        stale_only=q.get("stale") == "1",
        orphan_only=q.get("orphan") == "1",
    )
    data = views.overview(
        b.fs,
        page=_int(q.get("page", "1")),
        index_page=_int(q.get("ipage", "1")),
        where=where,
        summaries=b.summaries,
    )
    return b.page("overview.html", data=data, where=where, fresh_days=FRESH_DAYS)


async def memory(request: Request) -> Response:
    b: Browser = request.app.state.browser
    path = request.query_params.get("path", "")
    try:
        shown = views.memory_page(b.fs, path)
    except (FileNotFoundError, UnsafePathError, IsADirectoryError) as e:
        return b.problem(404, message(e))
    if request.query_params.get("raw") == "1":
        return PlainTextResponse(shown.text)
    return b.page("memory.html", m=shown)


async def new(request: Request) -> Response:
    b: Browser = request.app.state.browser
    if b.read_only:
        return b.problem(403, "This server is read-only: nothing can be created.")
    return b.page("edit.html", path=f"{b.fs.layout.memory_dir}/", text=_TEMPLATE, sha256="")


async def edit(request: Request) -> Response:
    b: Browser = request.app.state.browser
    if b.read_only:
        return b.problem(403, "This server is read-only: nothing can be edited.")
    try:
        shown = views.memory_page(b.fs, request.query_params.get("path", ""))
    except (FileNotFoundError, UnsafePathError, IsADirectoryError) as e:
        return b.problem(404, message(e))
    return b.page("edit.html", path=shown.path, text=shown.text, sha256=shown.sha256)


async def history(request: Request) -> Response:
    b: Browser = request.app.state.browser
    path = request.query_params.get("path", "")
    try:
        rel = views.memory_area_path(b.fs, path)
        log = History(b.fs).log(rel)
    except (FileNotFoundError, UnsafePathError, VersionError) as e:
        return b.problem(404, message(e))
    return b.page("history.html", log=log, path=rel)


async def diff(request: Request) -> Response:
    b: Browser = request.app.state.browser
    q = request.query_params
    try:
        rel = views.memory_area_path(b.fs, q.get("path", ""))
        new = q.get("new") or None
        text = History(b.fs).diff(rel, q.get("old", ""), new)
    except (FileNotFoundError, UnsafePathError, VersionError) as e:
        return b.problem(404, message(e))
    return b.page("diff.html", path=rel, old=q.get("old", ""), new=new or "current", diff=text)


async def version(request: Request) -> Response:
    b: Browser = request.app.state.browser
    q = request.query_params
    try:
        rel = views.memory_area_path(b.fs, q.get("path", ""))
        data = History(b.fs).show(rel, q.get("version", ""))
    except (FileNotFoundError, UnsafePathError, VersionError) as e:
        return b.problem(404, message(e))
    return PlainTextResponse(data.decode("utf-8", "replace"))


async def search(request: Request) -> Response:
    b: Browser = request.app.state.browser
    q = request.query_params
    pattern, regex = q.get("q", ""), q.get("regex") == "1"
    result, problem = None, None
    if pattern:
        try:
            result = search_memory(b.fs, pattern, regex=regex, ignore_case=True)
        except (SearchPatternError, ValueError) as e:
            problem = message(e)
    return b.page("search.html", q=pattern, regex=regex, result=result, problem=problem)


# -- changing ----------------------------------------------------------------------------------

_TEMPLATE = """---
name: new-memory
description: one line saying what this memory is for
metadata:
  type: user
---
"""


async def save(request: Request) -> Response:
    b: Browser = request.app.state.browser
    form = await _form(b, request)
    if form is None:
        return b.problem(403, STALE_FORM)
    path, text, sha = form.get("path", ""), form.get("content", ""), form.get("sha256", "")
    data = text.replace("\r\n", "\n").encode("utf-8")  # browsers send CRLF in a textarea
    try:
        rel = views.memory_area_path(b.fs, path)
        if sha:
            b.fs.save(rel, data, expected_sha256=sha)
        else:
            b.fs.save(rel, data, create=True)
    except PreconditionFailedError:
        try:
            theirs = views.memory_page(b.fs, rel)
        except FileNotFoundError:  # deleted since the page was opened: nothing to compare
            gone = f"{rel} was deleted since this page was opened; save again to create it anew."
            return b.page("edit.html", 409, path=rel, text=text, sha256="", problem=gone)
        return b.page("conflict.html", 409, path=rel, mine=text, theirs=theirs)
    except PathConflictError as e:
        return b.page("edit.html", 409, path=path, text=text, sha256="", problem=message(e))
    except FileNotFoundError as e:
        return b.page("edit.html", 400, path=path, text=text, sha256="", problem=message(e))
    except (CredentialRefusedError, UnsafePathError, ValueError, OSError) as e:
        return b.page("edit.html", 400, path=path, text=text, sha256=sha, problem=message(e))
    return _go("/memory", path=rel)


async def delete(request: Request) -> Response:
    b: Browser = request.app.state.browser
    form = await _form(b, request)
    if form is None:
        return b.problem(403, STALE_FORM)
    try:
        rel = views.memory_area_path(b.fs, form.get("path", ""))
        b.fs.rm_file(rel)
    except (FileNotFoundError, UnsafePathError, OSError) as e:
        return b.problem(400, message(e))
    return _go("/history", path=rel)


async def confirm(request: Request) -> Response:
    """Restore and redact ask first: this page names what will happen."""
    b: Browser = request.app.state.browser
    q = request.query_params
    action = q.get("action", "")
    if b.read_only:
        return b.problem(403, "This server is read-only: nothing can be restored or redacted.")
    if action not in ("restore", "redact"):
        return b.problem(404, "Nothing to confirm: the action is restore or redact.")
    try:
        rel = views.memory_area_path(b.fs, q.get("path", ""))
        target = History(b.fs).resolve(rel, q.get("version", ""))
    except (FileNotFoundError, UnsafePathError, VersionError) as e:
        return b.problem(404, message(e))
    return b.page("confirm.html", action=action, path=rel, v=target)


async def restore(request: Request) -> Response:
    return await _change_version(request, "restore")


async def redact(request: Request) -> Response:
    return await _change_version(request, "redact")


async def _change_version(request: Request, action: str) -> Response:
    b: Browser = request.app.state.browser
    form = await _form(b, request)
    if form is None:
        return b.problem(403, STALE_FORM)
    try:
        rel = views.memory_area_path(b.fs, form.get("path", ""))
        hist = History(b.fs)
        if action == "restore":
            hist.restore(rel, form.get("version", ""))
        else:
            hist.redact(rel, form.get("version", ""))
    except (FileNotFoundError, UnsafePathError, VersionError, ValueError, OSError) as e:
        return b.problem(400, message(e))
    return _go("/history", path=rel)


async def _store_failed(request: Request, exc: Exception) -> Response:
    """A page the store could not serve (permission, credentials, an unreachable endpoint):
    the storage failure in the words the CLI and MCP use, not a bare 500."""
    b: Browser = request.app.state.browser
    return b.problem(503, message(exc))


@contextlib.asynccontextmanager
async def _read_every_memory(app: Starlette) -> AsyncIterator[None]:
    """Read and parse every memory before the first request, off the event loop. A store that
    fails here fails again on the first page, which says so; the server starts either way."""
    browser: Browser = app.state.browser
    with contextlib.suppress(OSError, ValueError):
        await anyio.to_thread.run_sync(browser.summaries.measured, browser.fs)
    yield


def build_app(fs: MemFS, *, read_only: bool = False, host: str = "127.0.0.1", port: int = 8767):
    """The browser for the workspace behind ``fs``, answering at ``host:port`` only."""
    browser = Browser(fs, read_only=read_only, host=host, port=port)

    async def guard(request: Request, call_next: Any) -> Response:
        why = _allowed(browser, request)
        if why is not None:
            return PlainTextResponse(why, status_code=403)
        if request.method == "POST" and browser.read_only:
            return PlainTextResponse("This server is read-only: changes are refused.", 403)
        return await call_next(request)

    routes = [
        Route("/", overview),
        Route("/memory", memory),
        Route("/new", new),
        Route("/edit", edit),
        Route("/history", history),
        Route("/diff", diff),
        Route("/version", version),
        Route("/search", search),
        Route("/confirm", confirm),
        Route("/save", save, methods=["POST"]),
        Route("/delete", delete, methods=["POST"]),
        Route("/restore", restore, methods=["POST"]),
        Route("/redact", redact, methods=["POST"]),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    app = Starlette(
        routes=routes,
        middleware=[Middleware(BaseHTTPMiddleware, dispatch=guard)],
        lifespan=_read_every_memory,
        exception_handlers={OSError: _store_failed},
    )
    app.state.browser = browser
    return app
