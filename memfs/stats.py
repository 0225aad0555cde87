"""Memory measurements as a report: ``collect_stats(fs) -> StatsReport``.

One pass, read-only: one ``ls`` of the workspace and one raw read per memory file and for the
index, all through ``fs.raw`` (exact bytes, no reminder). Which files are memory files and
where the index is come from ``fs.layout``, so a Claude Code memory directory and a platform
workspace holding the same notes report the same entries, orphans and broken links.

The report measures; it never rewrites the index or any file — automatic reconciliation was
rejected, and the cost of the rejected alternative (an index derived from every file's
description) is reported next to the curated index so the trade-off stays visible. It also
reports what Claude Code itself would cut from the index (it loads only the first
:data:`CLAUDE_CODE_MAX_LINES` lines and :data:`CLAUDE_CODE_MAX_CHARS` characters); memfs
injects the whole index, so that is a figure, not a limit.
"""

from __future__ import annotations

import copy
import datetime as dt
import json
import posixpath
import statistics
from collections import Counter
from collections.abc import Callable, Hashable, Iterable
from collections.abc import Set as AbstractSet
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from memfs.frontmatter_block import DATE_FIELDS
from memfs.index import MemoryIndex, markdown_file_links, parse_index
from memfs.layout import INDEX_NAME
from memfs.records import (
    MEMORY_TYPES,
    NOTE_KINDS,
    MemoryNames,
    MemoryRecord,
    WorthWriting,
    parse_memory,
    worth_writing,
)
from memfs.staleness import FRESH_DAYS, age_in_days
from memfs.tokens import estimate_tokens, with_margin

if TYPE_CHECKING:
    from memfs.views import RawWorkspace

AGE_BUCKETS: tuple[tuple[str, int, int | None], ...] = (
    ("0-1 days", 0, FRESH_DAYS),
    ("2-7 days", FRESH_DAYS + 1, 7),
    ("8-30 days", 8, 30),
    ("31-90 days", 31, 90),
    ("91-365 days", 91, 365),
    (">365 days", 366, None),
)

CLAUDE_CODE_MAX_LINES = 200
CLAUDE_CODE_MAX_CHARS = 25_000
"""Claude Code loads the first 200 lines of its ``MEMORY.md``, and at most 25,000 characters."""


@dataclass(kw_only=True)
class SizeStats:
    """Bytes per memory file."""

    min: int = 0
    median: float = 0.0
    max: int = 0
    total: int = 0


@dataclass(kw_only=True)
class ClaudeCodeCut:
    """What Claude Code would load of this index, and what it would leave out."""

    loaded_lines: int = 0
    loaded_chars: int = 0
    cut_lines: int = 0
    cut_chars: int = 0
    cut_memories: int = 0
    """memory files the index names only on lines Claude Code cuts"""
    cut_paths: list[str] = field(default_factory=list)


@dataclass(kw_only=True)
class IndexStats:
    path: str = INDEX_NAME
    exists: bool = False
    lines: int = 0
    bytes: int = 0
    chars: int = 0
    estimated_tokens: int = 0
    estimated_tokens_with_margin: int = 0
    hot_lines: int = 0
    """entry lines: one memory each"""
    packed_lines: int = 0
    folded: int = 0
    """memories the packed lines fold"""
    other_lines: int = 0
    linked: int = 0
    """memory files the index links to"""
    orphans: int = 0
    """memory files the index does not link"""
    orphan_pct: float = 0.0
    broken_links: int = 0
    """links to files that do not exist"""
    markdown_links: int = 0
    """markdown links to ``.md`` files, wherever they point (0 memory files and some of these:
    the workspace was likely opened in the wrong layout)"""
    hot_chars_per_entry: float = 0.0
    cold_chars_per_memory: float = 0.0
    orphan_paths: list[str] = field(default_factory=list)
    broken_paths: list[str] = field(default_factory=list)
    claude_code: ClaudeCodeCut = field(default_factory=ClaudeCodeCut)


@dataclass(kw_only=True)
class AgeStats:
    today: dt.date
    with_date: int = 0
    without_date: int = 0
    would_get_reminder: int = 0
    """files older than the fresh period (``FRESH_DAYS``): read with a staleness reminder"""
    future_dated: int = 0
    """files whose only dates are after today"""
    median_days: float | None = None
    oldest_days: int | None = None
    buckets: dict[str, int] = field(default_factory=dict)
    sources: dict[str, int] = field(default_factory=dict)
    """which frontmatter field each file's date came from"""


@dataclass(kw_only=True)
class DerivedIndexStats:
    """The rejected alternative: one ``- [name](path) — description`` line per file."""

    lines: int = 0
    chars: int = 0
    estimated_tokens: int = 0
    files_without_description: int = 0
    ratio_to_curated: float | None = None


@dataclass(kw_only=True)
class StatsReport:
    workspace: str
    layout: str = "platform"
    layout_reason: str | None = None
    """how the command chose the layout (set by `memfs stats`)"""
    index_path: str = INDEX_NAME
    memory_dir: str
    memory_files: int
    sizes: SizeStats
    types: dict[str, int]
    """metadata.type; 'none' when absent"""
    without_description: int
    description_chars_mean: float | None = None
    name_styles: dict[str, int]
    extra_keys: dict[str, int]
    """files carrying each non-spec top-level key"""
    files_with_findings: int
    """files with at least one finding worth fixing (notes are not counted)"""
    findings: dict[str, int] = field(default_factory=dict)
    """files per kind of finding worth fixing"""
    notes: dict[str, int] = field(default_factory=dict)
    """files per kind of note (a title as a name, …)"""
    finding_files: dict[str, list[str]] = field(default_factory=dict)
    """the files behind each finding and note"""
    no_frontmatter: int
    unparseable_frontmatter: int
    read_line_by_line: int = 0
    """files whose frontmatter is not YAML but was read line by line"""
    worth_writing: int
    """[[wikilink]] targets no memory carries yet"""
    worth_writing_names: list[str] = field(default_factory=list)
    index: IndexStats
    ages: AgeStats
    derived_index: DerivedIndexStats


def _derived_line(record: MemoryRecord, index_dir: str) -> str:
    # posixpath.relpath calls os.getcwd and abspath on both sides (~13 us a file): a path
    # under the index's directory is linked by cutting the prefix instead.
    path = record.path
    if not index_dir:
        link = path
    elif path.startswith(index_dir + "/"):
        link = path[len(index_dir) + 1 :]
    else:
        link = posixpath.relpath(path, index_dir)
    line = f"- [{record.name}]({link})"
    return f"{line} — {record.description}" if record.description else line


def _ages(records: list[MemoryRecord], today: dt.date) -> AgeStats:
    days: list[int] = []
    sources: Counter[str] = Counter()
    future = 0
    for r in records:
        found = r.date(today)
        if found is not None:
            sources[found[0]] += 1
            days.append(age_in_days(found[1], today))
        elif r.dates:
            future += 1
            days.append(age_in_days(next(iter(r.dates.values())), today))
    out = AgeStats(today=today, with_date=len(days), without_date=len(records) - len(days))
    # Counted once per distinct age, not in a pass over every file for each bucket and figure.
    per_day = Counter(days)
    out.would_get_reminder = sum(c for d, c in per_day.items() if d > FRESH_DAYS)
    out.future_dated = future
    if days:
        out.median_days = statistics.median(days)
        out.oldest_days = max(per_day)
    for label, lo, hi in AGE_BUCKETS:
        out.buckets[label] = sum(
            c for d, c in per_day.items() if lo <= d and (hi is None or d <= hi)
        )
    out.sources = {label: sources[label] for label, *_ in DATE_FIELDS if sources[label]}
    return out


def _claude_code_cut(
    text: str, resolved: dict[int, set[str]], memory_files: set[str]
) -> ClaudeCodeCut:
    """What Claude Code leaves out of ``text``; the memories cut are files that exist (a broken
    link past the cut names no memory)."""
    lines = text.splitlines(keepends=True)
    kept = lines[:CLAUDE_CODE_MAX_LINES]
    chars = sum(map(len, kept))
    while kept and chars > CLAUDE_CODE_MAX_CHARS:
        chars -= len(kept.pop())
    n = len(kept)
    seen = {p for no, paths in resolved.items() if no <= n for p in paths}
    after = {p for no, paths in resolved.items() if no > n for p in paths}
    cut = sorted((after - seen) & memory_files)
    return ClaudeCodeCut(
        loaded_lines=n,
        loaded_chars=chars,
        cut_lines=len(lines) - n,
        cut_chars=len(text) - chars,
        cut_memories=len(cut),
        cut_paths=cut,
    )


@dataclass(kw_only=True)
class Measurement:
    """A report and what it was computed from, for a caller that shows each memory too
    (``memfs serve``): every file is read and parsed once."""

    report: StatsReport
    records: list[MemoryRecord]
    """every memory file, parsed, in path order"""
    contents: dict[str, bytes]
    """the stored bytes of each memory file"""
    index: MemoryIndex | None = None
    """the index as the report parsed it (None when there is none)"""


def collect_stats(fs: RawWorkspace, *, files: Iterable[str] | None = None) -> StatsReport:
    """Measure the workspace behind ``fs`` (read-only; exact bytes through ``fs.raw``).

    ``files``: every file of the workspace, from a listing the caller just made
    (``fs.find("")``), so that the pass lists nothing again."""
    return measure(fs, files=files).report


def measure(fs: RawWorkspace, *, files: Iterable[str] | None = None) -> Measurement:
    """:func:`collect_stats`, keeping the parsed records and the bytes they came from."""
    layout = fs.layout
    raw = fs.read_only().raw
    listed = set(raw.find("") if files is None else files)
    contents: dict[str, bytes] = {}
    for path, data in raw.cat_many(p for p in sorted(listed) if layout.is_memory_file(p)):
        if isinstance(data, OSError):
            raise data
        contents[path] = data
    records = [parse_memory(data, path) for path, data in contents.items()]
    index_data = raw.cat_file(layout.index_path) if layout.index_path in listed else None
    report, index = report_over(
        fs, listed, records, [len(data) for data in contents.values()], index_data
    )
    return Measurement(report=report, records=records, contents=contents, index=index)


_T = TypeVar("_T")


class _LastResult(Generic[_T]):
    """The result of the last computation and the inputs it came from (one entry).

    A caller that measures the same workspace again (``memfs serve`` on every request) pays
    for the whole-store figures only when what they depend on changed: an edit of one memory's
    body leaves the index's figures as they were. The key is compared in full, never hashed,
    so a hit is always the same inputs."""

    def __init__(self) -> None:
        self._entry: tuple[Hashable, _T] | None = None

    def get(self, key: Hashable, compute: Callable[[], _T]) -> _T:
        entry = self._entry  # one read: a thread sees one whole entry or none
        if entry is not None and entry[0] == key:
            return entry[1]
        value = compute()
        self._entry = (key, value)
        return value


def _from(
    last: _LastResult[_T] | None, key: Callable[[], Hashable], compute: Callable[[], _T]
) -> _T:
    """``compute()``, through ``last`` when a caller keeps figures (``key`` is built only
    then: a one-off report would build a tuple a file for nothing)."""
    return compute() if last is None else last.get(key(), compute)


class KeptFigures:
    """The whole-store figures of the last report over one workspace, for a caller that
    measures it again and again (``memfs serve``, on every request): each is computed again
    only when what it depends on changed, so an edit of one memory's body leaves the index's
    figures as they were. Keys are compared in full, never hashed: a hit is the same inputs.
    One per workspace; safe to share between threads."""

    def __init__(self) -> None:
        self.index: _LastResult[tuple[IndexStats, set[str], MemoryIndex]] = _LastResult()
        self.derived_tokens: _LastResult[int] = _LastResult()
        self.worth_writing: _LastResult[list[WorthWriting]] = _LastResult()


def report_over(
    fs: RawWorkspace,
    files: AbstractSet[str],
    records: list[MemoryRecord],
    sizes: list[int],
    index_data: bytes | None,
    kept: KeptFigures | None = None,
) -> tuple[StatsReport, MemoryIndex | None]:
    """The report of :func:`measure` over what a caller already read: every file of the
    workspace (``files``), each memory file parsed (``records``, in path order, ``sizes`` their
    byte counts) and the index's bytes (None when there is none); and the index as parsed.

    For a caller that keeps each file's record between measurements (``memfs serve`` reads
    again only the files that changed): the figures are computed here, never by the caller;
    ``kept`` (the caller's, one per workspace) spares recomputing those whose inputs did not
    change since the last report.
    """
    layout = fs.layout
    index = IndexStats(path=layout.index_path)
    linked: set[str] = set()
    parsed: MemoryIndex | None = None
    memory_paths = [r.path for r in records]
    if index_data is not None:
        last = _from(
            None if kept is None else kept.index,
            lambda: (index_data, layout, tuple((r.path, r.name) for r in records)),
            lambda: _index_stats(index_data, fs, records, memory_paths),
        )
        index, linked, parsed = copy.copy(last[0]), last[1], last[2]  # the links are set below
    _count_links(index, memory_paths, linked, files)
    derived = _derived_index(
        records, layout.index_dir, index.chars, None if kept is None else kept.derived_tokens
    )
    missing = _from(
        None if kept is None else kept.worth_writing,
        lambda: tuple((r.path, r.name, tuple(r.links)) for r in records),
        lambda: worth_writing(records),
    )
    report = StatsReport(
        workspace=repr(fs.store),
        layout=layout.kind,
        index_path=layout.index_path,
        memory_dir=layout.memory_dir,
        memory_files=len(records),
        sizes=SizeStats(
            min=min(sizes), median=statistics.median(sizes), max=max(sizes), total=sum(sizes)
        )
        if sizes
        else SizeStats(),
        without_description=derived.files_without_description,
        no_frontmatter=sum(not r.has_frontmatter for r in records),
        unparseable_frontmatter=sum(r.frontmatter_read == "none" for r in records),
        read_line_by_line=sum(r.frontmatter_read == "lines" for r in records),
        worth_writing=len(missing),
        worth_writing_names=[m.name for m in missing],
        index=index,
        ages=_ages(records, fs.today()),
        derived_index=derived,
        **_record_counts(records),
    )
    return report, parsed


def _index_stats(
    data: bytes, fs: RawWorkspace, records: list[MemoryRecord], memory_paths: list[str]
) -> tuple[IndexStats, set[str], MemoryIndex]:
    """The index's figures, every memory file its references name (existing or not), and the
    index as parsed."""
    layout = fs.layout
    text = data.decode("utf-8", errors="replace")
    memory = set(memory_paths)
    # The one link rule (memfs.index), told which memory files exist and what they are called
    # (the name table is built only if a wikilink needs it).
    parsed = parse_index(text, layout=layout, memory_files=memory, names=MemoryNames(records))
    linked: set[str] = set()
    per_line: dict[int, set[str]] = {}
    for no, ref in parsed.refs():
        target = ref.memory_path
        if target is not None:
            if no in per_line:
                per_line[no].add(target)
            else:
                per_line[no] = {target}
            linked.add(target)
    folded = parsed.folded_count
    tokens = estimate_tokens(text)
    index = IndexStats(
        path=layout.index_path,
        exists=True,
        lines=parsed.line_count,
        bytes=len(data),
        chars=len(text),
        estimated_tokens=tokens,
        estimated_tokens_with_margin=with_margin(tokens),
        hot_lines=len(parsed.entries),
        packed_lines=len(parsed.packed),
        folded=folded,
        other_lines=len(parsed.other),
        hot_chars_per_entry=round(statistics.fmean(len(e.text) for e in parsed.entries), 1)
        if parsed.entries
        else 0.0,
        cold_chars_per_memory=round(sum(len(p.text) for p in parsed.packed) / folded, 1)
        if folded
        else 0.0,
        claude_code=_claude_code_cut(text, per_line, memory),
        markdown_links=len(markdown_file_links(text, layout.index_path)),
    )
    return index, linked, parsed


def _count_links(
    index: IndexStats, memory_paths: list[str], linked: set[str], files: AbstractSet[str]
) -> None:
    """Linked, orphaned and broken, set on ``index``."""
    memory_set = set(memory_paths)
    orphan_paths = sorted(memory_set - linked)
    broken = sorted(p for p in linked if p not in files)
    index.linked = len(memory_set & linked)
    index.orphans = len(orphan_paths)
    index.orphan_pct = round(100 * len(orphan_paths) / len(memory_paths), 1) if memory_paths else 0
    index.orphan_paths = orphan_paths
    index.broken_links = len(broken)
    index.broken_paths = broken


def _derived_index(
    records: list[MemoryRecord],
    index_dir: str,
    curated_chars: int,
    tokens: _LastResult[int] | None = None,
) -> DerivedIndexStats:
    """The index the rejected alternative would derive from every file's description."""
    text = "\n".join([_derived_line(r, index_dir) for r in records])
    derived_chars = len(text) + 1 if records else 0  # each line and its newline
    return DerivedIndexStats(
        lines=len(records),
        chars=derived_chars,
        estimated_tokens=_from(tokens, lambda: text, lambda: estimate_tokens(text)),
        files_without_description=sum(r.description is None for r in records),
        ratio_to_curated=round(derived_chars / curated_chars, 2) if curated_chars else None,
    )


def _record_counts(records: list[MemoryRecord]) -> dict[str, Any]:
    """The report's figures over the records' frontmatter: types, names, keys, findings."""
    types = Counter(r.type if r.type is not None else "none" for r in records)
    ordered_types = {t: types.pop(t, 0) for t in MEMORY_TYPES}
    ordered_types.update(sorted(types.items()))
    styles = Counter(r.name_style for r in records)
    descriptions = [len(r.description) for r in records if r.description]
    finding_files: dict[str, list[str]] = {}
    with_findings = 0
    for r in records:
        if r.issues:
            kinds = dict.fromkeys(i.kind for i in r.issues)
            with_findings += any(k not in NOTE_KINDS for k in kinds)
            for kind in kinds:
                finding_files.setdefault(kind, []).append(r.path)
    return {
        "types": ordered_types,
        "description_chars_mean": round(statistics.fmean(descriptions), 1)
        if descriptions
        else None,
        "name_styles": {s: styles.get(s, 0) for s in ("kebab", "snake", "other")},
        "extra_keys": dict(Counter(k for r in records for k in r.extra).most_common()),
        "files_with_findings": with_findings,
        "findings": {k: len(v) for k, v in sorted(finding_files.items()) if k not in NOTE_KINDS},
        "notes": {k: len(v) for k, v in sorted(finding_files.items()) if k in NOTE_KINDS},
        "finding_files": dict(sorted(finding_files.items())),
    }


def _json_value(value: object) -> str:
    if isinstance(value, dt.date):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not JSON")


def report_json(report: StatsReport, *, indent: int | None = 2) -> str:
    """The report as one JSON object (dates as ISO strings, text as written)."""
    return json.dumps(asdict(report), indent=indent, ensure_ascii=False, default=_json_value)
