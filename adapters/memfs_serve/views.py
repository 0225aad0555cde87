"""What the memory browser shows, computed from a :class:`~memfs.MemFS` with no web types.

Every figure comes from the owner the rest of memfs uses: the workspace figures from
:func:`memfs.collect_stats` (the numbers ``memfs stats`` prints), a memory's fields from
:func:`memfs.parse_memory`, its age and reminder from the decorated read (the view the agent
gets), the index lines from :func:`memfs.parse_index`, versions from :class:`memfs.History`.
The page functions here only select, filter and paginate.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from memfs import (
    FRESH_DAYS,
    MemFS,
    MemoryRecord,
    StatsReport,
    measure,
    memory_age,
    normalize,
    parse_index,
    parse_memory,
    split_view,
)

PER_PAGE = 50


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
    index_lines: list[IndexLine]


def _row(fs: MemFS, path: str, raw: bytes, record: MemoryRecord) -> MemoryRow:
    age = memory_age(raw, fs.today())
    return MemoryRow(
        path=path,
        name=record.name,
        type=record.type or "none",
        description=record.description or "",
        age_days=age,
        stale=age is not None and age > FRESH_DAYS,  # the reminder's own rule
        size=len(raw),
    )


def _index_lines(fs: MemFS, memory_paths: set[str]) -> tuple[list[IndexLine], set[str]]:
    raw = fs.raw
    index_path = fs.layout.index_path
    if not raw.exists(index_path):
        return [], set()
    text = raw.cat_file(index_path).decode("utf-8", "replace")
    parsed = parse_index(text, layout=fs.layout, memory_files=memory_paths)
    lines: dict[int, IndexLine] = {}
    linked: set[str] = set()
    for entry in parsed.entries:
        target = entry.memory_path or entry.path
        ok = target in memory_paths
        linked |= {target} if ok else set()
        state = "linked" if ok else "broken link"
        lines[entry.line] = IndexLine(
            number=entry.line, text=entry.text, state=state, targets=[target]
        )
    for packed in parsed.packed:
        targets = packed.memory_paths or packed.paths
        linked |= {t for t in targets if t in memory_paths}
        lines[packed.line] = IndexLine(
            number=packed.line, text=packed.text, state="packed", targets=list(targets)
        )
    for other in parsed.other:
        if other.text.strip():
            lines[other.line] = IndexLine(number=other.line, text=other.text, state="prose")
    return [lines[n] for n in sorted(lines)], linked


def _matches(row: MemoryRow, query: str, type_: str, stale_only: bool) -> bool:
    if type_ and row.type != type_:
        return False
    if stale_only and not row.stale:
        return False
    if not query:
        return True
    q = query.casefold()
    return any(q in s.casefold() for s in (row.path, row.name, row.description))


def overview(
    fs: MemFS,
    *,
    page: int = 1,
    per_page: int = PER_PAGE,
    query: str = "",
    type_: str = "",
    stale_only: bool = False,
) -> Overview:
    """The workspace figures, one page of memories (filtered) and the index line by line."""
    measured = measure(fs)  # one read and one parse of each file, for the figures and the rows
    report, paths = measured.report, [r.path for r in measured.records]
    rows = [_row(fs, r.path, measured.contents[r.path], r) for r in measured.records]
    kept = [r for r in rows if _matches(r, query, type_, stale_only)]
    pages = max(1, -(-len(kept) // per_page))
    page = min(max(1, page), pages)
    index_lines, linked = _index_lines(fs, set(paths))
    return Overview(
        report=report,
        rows=kept[(page - 1) * per_page : page * per_page],
        matched=len(kept),
        page=page,
        pages=pages,
        orphans=[p for p in paths if p not in linked],
        index_lines=index_lines,
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
