"""The seed's §4 measurements as a report: ``collect_stats(fs) -> StatsReport``.

One pass, read-only: one ``ls`` of the workspace and one raw read per memory file and for
``MEMORY.md``, all through ``fs.raw`` (exact bytes, no reminder). The report measures; it never
rewrites the index or any file — automatic reconciliation was rejected (§5), and the cost of the
rejected alternative (an index derived from every file's description) is reported next to the
curated index so the trade-off stays visible.
"""

from __future__ import annotations

import datetime as dt
import posixpath
import statistics
from collections import Counter

from pydantic import BaseModel, Field

from memfs.filesystem import MemFS
from memfs.index import parse_index
from memfs.layout import INDEX_FILE
from memfs.records import MEMORY_TYPES, MemoryRecord, parse_memory, worth_writing
from memfs.staleness import FRESH_DAYS, age_in_days
from memfs.tokens import estimate_tokens, with_margin

AGE_BUCKETS: tuple[tuple[str, int, int | None], ...] = (
    ("0-1 days", 0, FRESH_DAYS),
    ("2-7 days", FRESH_DAYS + 1, 7),
    ("8-30 days", 8, 30),
    ("31-90 days", 31, 90),
    ("91-365 days", 91, 365),
    (">365 days", 366, None),
)


class SizeStats(BaseModel):
    """Bytes per memory file."""

    min: int = 0
    median: float = 0
    max: int = 0
    total: int = 0


class IndexStats(BaseModel):
    path: str = INDEX_FILE
    exists: bool = False
    lines: int = 0
    bytes: int = 0
    chars: int = 0
    estimated_tokens: int = 0
    estimated_tokens_with_margin: int = 0
    hot_lines: int = Field(default=0, description="entry lines: one memory each")
    packed_lines: int = 0
    folded: int = Field(default=0, description="memories the packed lines fold")
    other_lines: int = 0
    linked: int = Field(default=0, description="memory files the index links to")
    orphans: int = Field(default=0, description="memory files the index does not link")
    orphan_pct: float = 0.0
    broken_links: int = Field(default=0, description="links to files that do not exist")
    hot_chars_per_entry: float = 0.0
    cold_chars_per_memory: float = 0.0
    orphan_paths: list[str] = Field(default_factory=list)
    broken_paths: list[str] = Field(default_factory=list)


class AgeStats(BaseModel):
    today: dt.date
    with_date: int = 0
    without_date: int = 0
    would_get_reminder: int = Field(
        default=0,
        description=f"files older than {FRESH_DAYS} day(s): read with a staleness reminder",
    )
    future_dated: int = 0
    median_days: float | None = None
    oldest_days: int | None = None
    buckets: dict[str, int] = Field(default_factory=dict)


class DerivedIndexStats(BaseModel):
    """The rejected alternative (§5): one ``- [name](path) — description`` line per file."""

    lines: int = 0
    chars: int = 0
    estimated_tokens: int = 0
    files_without_description: int = 0
    ratio_to_curated: float | None = None


class StatsReport(BaseModel):
    workspace: str
    memory_dir: str
    memory_files: int
    sizes: SizeStats
    types: dict[str, int] = Field(description="metadata.type; 'none' when absent")
    without_description: int
    description_chars_mean: float | None = None
    name_styles: dict[str, int]
    extra_keys: dict[str, int] = Field(description="files carrying each non-spec top-level key")
    files_with_findings: int
    no_frontmatter: int
    unparseable_frontmatter: int
    worth_writing: int = Field(description="[[wikilink]] targets no memory carries yet")
    index: IndexStats
    ages: AgeStats
    derived_index: DerivedIndexStats


def _derived_line(record: MemoryRecord, index_dir: str) -> str:
    # posixpath.relpath calls os.getcwd and abspath on both sides: ~13 us a file, ~10% of a
    # stats pass. An index at the workspace root links workspace paths as they are.
    link = posixpath.relpath(record.path, index_dir) if index_dir else record.path
    line = f"- [{record.name}]({link})"
    return f"{line} — {record.description}" if record.description else line


def _ages(records: list[MemoryRecord], today: dt.date) -> AgeStats:
    days = [age_in_days(r.recorded, today) for r in records if r.recorded is not None]
    out = AgeStats(today=today, with_date=len(days), without_date=len(records) - len(days))
    out.would_get_reminder = sum(d > FRESH_DAYS for d in days)
    out.future_dated = sum(d < 0 for d in days)
    if days:
        out.median_days = statistics.median(days)
        out.oldest_days = max(days)
    for label, lo, hi in AGE_BUCKETS:
        out.buckets[label] = sum(lo <= d and (hi is None or d <= hi) for d in days)
    return out


def collect_stats(fs: MemFS) -> StatsReport:
    """Measure the workspace behind ``fs`` (read-only; exact bytes through ``fs.raw``)."""
    raw = fs.read_only().raw
    files = set(raw.find(""))
    prefix = fs.memory_dir + "/"
    memory_paths = sorted(p for p in files if p.startswith(prefix) and p.endswith(".md"))
    records: list[MemoryRecord] = []
    sizes: list[int] = []
    for path in memory_paths:
        data = raw.cat_file(path)
        sizes.append(len(data))
        records.append(parse_memory(data, path))

    index = IndexStats()
    linked: set[str] = set()
    if INDEX_FILE in files:
        data = raw.cat_file(INDEX_FILE)
        text = data.decode("utf-8", errors="replace")
        parsed = parse_index(text, INDEX_FILE)
        linked = parsed.linked_paths()
        tokens = estimate_tokens(text)
        index = IndexStats(
            exists=True,
            lines=parsed.line_count,
            bytes=len(data),
            chars=len(text),
            estimated_tokens=tokens,
            estimated_tokens_with_margin=with_margin(tokens),
            hot_lines=len(parsed.entries),
            packed_lines=len(parsed.packed),
            folded=parsed.folded_count,
            other_lines=len(parsed.other),
            hot_chars_per_entry=round(statistics.fmean(len(e.text) for e in parsed.entries), 1)
            if parsed.entries
            else 0.0,
            cold_chars_per_memory=round(
                sum(len(p.text) for p in parsed.packed) / parsed.folded_count, 1
            )
            if parsed.folded_count
            else 0.0,
        )
    memory_set = set(memory_paths)
    orphan_paths = sorted(memory_set - linked)
    broken = sorted(p for p in linked if p not in files)
    index.linked = len(memory_set & linked)
    index.orphans = len(orphan_paths)
    index.orphan_pct = round(100 * len(orphan_paths) / len(memory_paths), 1) if memory_paths else 0
    index.orphan_paths = orphan_paths
    index.broken_links = len(broken)
    index.broken_paths = broken

    index_dir = posixpath.dirname(INDEX_FILE)
    derived_lines = [_derived_line(r, index_dir) for r in records]
    derived_chars = sum(len(line) + 1 for line in derived_lines)
    derived = DerivedIndexStats(
        lines=len(derived_lines),
        chars=derived_chars,
        estimated_tokens=estimate_tokens("\n".join(derived_lines)),
        files_without_description=sum(r.description is None for r in records),
        ratio_to_curated=round(derived_chars / index.chars, 2) if index.chars else None,
    )

    types = Counter(r.type if r.type is not None else "none" for r in records)
    ordered_types = {t: types.pop(t, 0) for t in MEMORY_TYPES}
    ordered_types.update(sorted(types.items()))
    styles = Counter(r.name_style for r in records)
    extra = Counter(k for r in records for k in r.extra)
    descriptions = [len(r.description) for r in records if r.description]
    return StatsReport(
        workspace=repr(fs.store),
        memory_dir=fs.memory_dir,
        memory_files=len(records),
        sizes=SizeStats(
            min=min(sizes),
            median=statistics.median(sizes),
            max=max(sizes),
            total=sum(sizes),
        )
        if sizes
        else SizeStats(),
        types=ordered_types,
        without_description=derived.files_without_description,
        description_chars_mean=round(statistics.fmean(descriptions), 1) if descriptions else None,
        name_styles={s: styles.get(s, 0) for s in ("kebab", "snake", "other")},
        extra_keys=dict(extra.most_common()),
        files_with_findings=sum(bool(r.findings) for r in records),
        no_frontmatter=sum(not r.has_frontmatter for r in records),
        unparseable_frontmatter=sum(
            any("not a valid YAML mapping" in f for f in r.findings) for r in records
        ),
        worth_writing=len(worth_writing(records)),
        index=index,
        ages=_ages(records, fs.today()),
        derived_index=derived,
    )
