"""What the memory browser shows, computed from a :class:`~memfs.MemFS` with no web types.

Every figure comes from the owner the rest of memfs uses: the workspace figures from
:func:`memfs.report_over` (the numbers ``memfs stats`` prints), a memory's fields from
:func:`memfs.parse_memory`, its age from :func:`memfs.memory_age` and its reminder from the
decorated read (the view the agent gets), the index lines from the index as the figures parsed
it, versions from :class:`memfs.History`. The page functions here only select, filter and
paginate; :class:`Summaries` keeps what each file's parse gave between requests.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import threading
from collections.abc import Hashable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any

from memfs import (
    FRESH_DAYS,
    MemFS,
    MemoryIndex,
    MemoryRecord,
    StatsReport,
    UnsafePathError,
    memory_age,
    normalize,
    parse_memory,
    report_over,
    split_view,
    supports_versioned_listing,
)

PER_PAGE = 50
INDEX_PER_PAGE = 200
"""index lines a page shows: a 10,000-line index is read in pages, like the memories"""
ORPHANS_SHOWN = 20
"""orphan files named on the overview; the memory table lists all of them (``orphan=1``)"""


@dataclass(kw_only=True)
class MemoryRow:
    path: str
    name: str
    type: str
    description: str
    age_days: int | None
    """the age the staleness reminder states; None when the memory carries no date"""
    stale: bool
    """the agent's read of this file carries the staleness reminder"""
    size: int


@dataclass(kw_only=True)
class IndexLine:
    number: int
    text: str
    state: str
    """linked · broken link · packed · prose"""
    targets: list[str] = field(default_factory=list)


@dataclass(kw_only=True)
class Overview:
    report: StatsReport
    rows: list[MemoryRow]
    """the rows of this page, after the filter"""
    matched: int
    """rows the filter kept, on every page"""
    page: int
    pages: int
    orphans: list[str]
    """the first :data:`ORPHANS_SHOWN` memory files no index line links"""
    orphan_count: int
    index_lines: list[IndexLine]
    """the index lines of this index page"""
    index_page: int
    index_pages: int


def _row(record: MemoryRecord, raw: bytes, today: dt.date) -> MemoryRow:
    age = memory_age(raw, today)
    return MemoryRow(
        path=record.path,
        name=record.name,
        type=record.type or "none",
        description=record.description or "",
        age_days=age,
        stale=age is not None and age > FRESH_DAYS,  # the reminder's own rule
        size=len(raw),
    )


def _index_lines(parsed: MemoryIndex | None, memory_paths: AbstractSet[str]) -> list[IndexLine]:
    """Each line of the index as :func:`memfs.report_over` parsed it, with its state."""
    if parsed is None:
        return []
    lines: dict[int, IndexLine] = {}
    for entry in parsed.entries:
        target = entry.memory_path or entry.path
        state = "linked" if target in memory_paths else "broken link"
        lines[entry.line] = IndexLine(
            number=entry.line, text=entry.text, state=state, targets=[target]
        )
    for packed in parsed.packed:
        targets = packed.memory_paths or packed.paths
        lines[packed.line] = IndexLine(
            number=packed.line, text=packed.text, state="packed", targets=list(targets)
        )
    for other in parsed.other:
        if other.text.strip():
            lines[other.line] = IndexLine(number=other.line, text=other.text, state="prose")
    return [lines[n] for n in sorted(lines)]


@dataclass(kw_only=True)
class Measured:
    """The figures and every row of the overview, and the listing they were computed from."""

    listing: dict[str, Hashable] | None
    """each file's version when the store lists them (None: not reusable)"""
    report: StatsReport
    rows: list[MemoryRow]
    index_lines: list[IndexLine]
    orphans: frozenset[str]


class Summaries:
    """What one server keeps between requests so that a page of 10,000 memories costs one store
    listing, not a read and a parse of every file.

    Each memory file's record and row are kept under the version its read returned. A request
    lists the store once; a store that lists versions (:func:`memfs.supports_versioned_listing`)
    says which files changed since, and only those are read and parsed again; an unchanged
    listing reuses the figures too. Any change, through MemFS or straight on disk, gives the
    file a new version (a new inode, or new modification and change times) and is read on the
    next request. A store without versioned listings has every file read on each request, and
    a file whose bytes are unchanged is not parsed again. The figures always come from
    :func:`memfs.report_over`, the owner of ``memfs stats``; a new day starts afresh (ages move).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._today: dt.date | None = None
        self._files: dict[str, tuple[Hashable, MemoryRecord, MemoryRow]] = {}
        self._last: Measured | None = None

    def measured(self, fs: MemFS) -> Measured:
        with self._lock:
            return self._measure(fs)

    def _measure(self, fs: MemFS) -> Measured:
        today = fs.today()
        if today != self._today:
            self._today, self._files, self._last = today, {}, None
        store: Any = fs.store
        listing: dict[str, Hashable] | None = None
        if supports_versioned_listing(store):
            listing = store.ls_versioned("")
            if self._last is not None and self._last.listing == listing:
                return self._last
            files = set(listing)
        else:
            files = set(fs.raw.find(""))
        kept: dict[str, tuple[Hashable, MemoryRecord, MemoryRow]] = {}
        complete = True
        for path in sorted(p for p in files if fs.layout.is_memory_file(p)):
            hit = self._files.get(path)
            if listing is not None and hit is not None and hit[0] == listing[path]:
                kept[path] = hit
                continue
            try:
                raw, version = _read(fs, path, listed=listing is not None)
            except (FileNotFoundError, UnsafePathError):
                files.discard(path)  # removed, or swapped for a link, since it was listed
                complete = False  # the listing is not what was shown: list again next time
                continue
            if hit is not None and version is not None and hit[0] == version:
                kept[path] = hit
                continue
            record = parse_memory(raw, path)
            kept[path] = (version, record, _row(record, raw, today))
        self._files = kept
        records = [r for _, r, _ in kept.values()]
        index_data = _read_index(fs, files)
        report, parsed = report_over(
            fs, files, records, [row.size for *_, row in kept.values()], index_data
        )
        measured = Measured(
            listing=listing if complete else None,
            report=report,
            rows=[row for *_, row in kept.values()],
            index_lines=_index_lines(parsed, kept.keys()),
            orphans=frozenset(report.index.orphan_paths),
        )
        self._last = measured if measured.listing is not None else None
        return measured


def _read(fs: MemFS, path: str, *, listed: bool) -> tuple[bytes, Hashable | None]:
    """The stored bytes of ``path`` and what a later request compares to reuse their parse:
    the version the store read (a store that lists versions), else the bytes themselves."""
    if listed:
        store: Any = fs.store
        return store.read_versioned(path)  # type: ignore[no-any-return]
    raw = fs.raw.cat_file(path)
    return raw, raw


def _read_index(fs: MemFS, files: AbstractSet[str]) -> bytes | None:
    index_path = fs.layout.index_path
    if index_path not in files:
        return None
    try:
        return fs.raw.cat_file(index_path)
    except FileNotFoundError:
        return None  # removed since it was listed


@dataclass(kw_only=True)
class Filter:
    """What the memory table keeps: every field must match."""

    query: str = ""
    """text in the path, name or description (case-folded)"""
    type_: str = ""
    stale_only: bool = False
    orphan_only: bool = False
    """only memory files no index line links"""

    def keeps(self, row: MemoryRow, orphans: AbstractSet[str]) -> bool:
        if self.type_ and row.type != self.type_:
            return False
        if self.stale_only and not row.stale:
            return False
        if self.orphan_only and row.path not in orphans:
            return False
        if not self.query:
            return True
        q = self.query.casefold()
        return any(q in s.casefold() for s in (row.path, row.name, row.description))


def _pages(total: int, per_page: int, page: int) -> tuple[int, int, slice]:
    """The page shown (clamped), the page count and the slice of the items it shows."""
    pages = max(1, -(-total // per_page))
    page = min(max(1, page), pages)
    return page, pages, slice((page - 1) * per_page, page * per_page)


def overview(
    fs: MemFS,
    *,
    page: int = 1,
    per_page: int = PER_PAGE,
    index_page: int = 1,
    where: Filter | None = None,
    summaries: Summaries | None = None,
) -> Overview:
    """The workspace figures, one page of memories (``where`` filters them) and one page of
    the index, line by line.

    ``summaries`` is what a server keeps between requests (:class:`Summaries`); without it
    every file is read and parsed. Only the page's rows are returned: the page renders those."""
    measured = (summaries or Summaries()).measured(fs)
    where = where or Filter()
    if where == Filter():
        kept = measured.rows  # the unfiltered table: nothing to test 10,000 times
    else:
        kept = [r for r in measured.rows if where.keeps(r, measured.orphans)]
    page, pages, rows = _pages(len(kept), per_page, page)
    index_page, index_pages, lines = _pages(len(measured.index_lines), INDEX_PER_PAGE, index_page)
    orphans = measured.report.index.orphan_paths
    return Overview(
        report=measured.report,
        rows=kept[rows],
        matched=len(kept),
        page=page,
        pages=pages,
        orphans=orphans[:ORPHANS_SHOWN],
        orphan_count=len(orphans),
        index_lines=measured.index_lines[lines],
        index_page=index_page,
        index_pages=index_pages,
    )


@dataclass(kw_only=True)
class MemoryPage:
    path: str
    exists: bool
    text: str
    """the stored bytes as text (what an edit starts from)"""
    sha256: str
    """of the stored bytes: an edit is conditional on it"""
    record: MemoryRecord | None
    reminder: str | None
    """the staleness reminder the agent's read carries, exactly"""
    body: str
    """the rest of the agent's view (tags in it escaped)"""
    is_index: bool


def memory_area_path(fs: MemFS, path: str) -> str:
    """``path`` as the workspace names it, refused unless it is in the memory area or the index:
    the browser shows memory, not the rest of the workspace. Confinement is MemFS's
    (:func:`memfs.normalize` raises :class:`memfs.UnsafePathError` for any escape)."""
    rel = normalize(path)
    if not (fs.layout.in_memory_area(rel) or fs.layout.is_index(rel)) or rel.endswith("/"):
        raise FileNotFoundError(
            f"{rel or '/'} is not a memory file; the browser shows {fs.layout.memory_dir}/ "
            f"and {fs.layout.index_path}."
        )
    return rel


def memory_page(fs: MemFS, path: str) -> MemoryPage:
    """One file of the memory area as stored and as the agent reads it."""
    rel = memory_area_path(fs, path)
    raw = fs.raw.cat_file(rel)
    reminder, body = split_view(fs.cat_file(rel))
    is_index = fs.layout.is_index(rel)
    return MemoryPage(
        path=rel,
        exists=True,
        text=raw.decode("utf-8", "replace"),
        sha256=hashlib.sha256(raw).hexdigest(),
        record=None if is_index else parse_memory(raw, rel),
        reminder=reminder,
        body=body.decode("utf-8", "replace"),
        is_index=is_index,
    )
