"""``memfs stats PATH_OR_URL``: memory measurements on any workspace, read-only.

The report is printed as plain aligned text (or JSON with ``--json``): no terminal library is
loaded, and the files are read without a MemFS (:class:`~memfs.views.RawReader`), so a local
workspace costs no fsspec import either.
"""

from __future__ import annotations

import argparse
import gc
import sys
from typing import TextIO

from memfs.cli_workspace import add_workspace_argument, open_listed
from memfs.stats import (
    CLAUDE_CODE_MAX_CHARS,
    CLAUDE_CODE_MAX_LINES,
    StatsReport,
    collect_stats,
    report_json,
)


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "stats",
        help="measure a workspace's memory: sizes, types, index coverage, ages, index cost",
        description=(
            "Measure the memory of WORKSPACE in one read-only pass: file sizes, types, "
            "findings, index size and tokens, orphans and broken links, hot vs cold index "
            "cost, what Claude Code would cut from its index, ages, and what an index derived "
            "from frontmatter would cost. It reports; it never rewrites the index."
        ),
    )
    add_workspace_argument(p)
    p.add_argument("--json", action="store_true", help="print the report as one JSON object")
    p.add_argument(
        "--window",
        type=int,
        metavar="N",
        help="the model's context window in tokens: warn when the injected index cannot fit it",
    )
    p.add_argument(
        "--list",
        action="store_true",
        help="also list the files behind each figure: orphans, broken links, findings, cuts",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    # One listing, which detected the layout, and no MemFS (nor fsspec) to read the files.
    reader, found, files = open_listed(args.workspace, layout=args.layout)
    # The pass allocates a few objects a file and frees none until it ends, so every cyclic
    # collection meanwhile walks the whole growing heap to find nothing: none runs during it.
    gc.disable()
    try:
        report = collect_stats(reader, files=files)
    finally:
        gc.enable()
    report.layout_reason = found.reason
    if args.window:  # the turn's own block; its modules (pydantic) load only when asked
        from memfs.budget import window_warning
        from memfs.context import build_context_block
        from memfs.filesystem import MemFS
        from memfs.manifest import AgentManifest

        fs = MemFS(reader.store, layout=found.layout, read_only=True)
        block = build_context_block(fs, AgentManifest())
        if warning := window_warning(block, args.window):
            print(f"memfs stats: {warning}", file=sys.stderr)
    if args.json:
        print(report_json(report))
    else:
        render(report, sys.stdout, list_paths=args.list)
    return 0


def _pct(part: int, whole: int) -> str:
    return f"{part} ({100 * part / whole:.0f}%)" if whole else str(part)


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in counts.items() if v)


class _Table:
    """Two columns, measure and value, under section headings; values aligned."""

    def __init__(self, title: str) -> None:
        self.title = title
        self.rows: list[tuple[str, str] | str] = []

    def section(self, name: str) -> None:
        self.rows.append(name)

    def add_row(self, measure: str, value: str) -> None:
        self.rows.append((measure, value))

    def write(self, out: TextIO) -> None:
        width = max((len(r[0]) for r in self.rows if isinstance(r, tuple)), default=0)
        lines = [self.title]
        for row in self.rows:
            if isinstance(row, str):
                lines += ["", row]
            else:
                lines.append(f"  {row[0]:<{width}}  {row[1]}".rstrip())
        out.write("\n".join(lines) + "\n")


def render(report: StatsReport, out: TextIO, *, list_paths: bool = False) -> None:
    """The report as text: one section per kind of figure, then (``list_paths``) the files."""
    r, ix, ages, der = report, report.index, report.ages, report.derived_index
    n = r.memory_files
    table = _Table(f"memfs stats — {r.workspace}")
    section = table.section
    area = f"{r.memory_dir}/" if r.memory_dir else "the workspace root"
    reason = f" ({r.layout_reason})" if r.layout_reason else ""
    table.add_row("layout", f"{r.layout}: index {r.index_path}, memory files in {area}{reason}")
    section("memory files")
    table.add_row("files", str(n))
    if n == 0 and ix.markdown_links:
        # Memory the layout does not see: the figures below would describe an empty store.
        table.add_row(
            "layout check",
            f"0 memory files, but {ix.path} links {ix.markdown_links} markdown files: wrong "
            "layout? try --layout claude-code (or platform)",
        )
    table.add_row(
        "size min / median / max",
        f"{r.sizes.min:,} B / {r.sizes.median:,.0f} B / {r.sizes.max:,} B",
    )
    table.add_row("types", _counts(r.types))
    table.add_row("without description", _pct(r.without_description, n))
    if r.description_chars_mean is not None:
        table.add_row("description length (mean)", f"{r.description_chars_mean:.0f} chars")
    table.add_row("name styles", ", ".join(f"{k} {v}" for k, v in r.name_styles.items()))
    if r.extra_keys:
        table.add_row("non-spec keys", _counts(r.extra_keys))
    table.add_row(
        "files with findings",
        f"{_pct(r.files_with_findings, n)}" + (f": {_counts(r.findings)}" if r.findings else ""),
    )
    if r.notes:
        table.add_row("notes (not counted)", _counts(r.notes))
    table.add_row(
        "frontmatter",
        f"{r.no_frontmatter} without, {r.read_line_by_line} not YAML (read line by line), "
        f"{r.unparseable_frontmatter} unparseable",
    )
    table.add_row("[[links]] to memories not written yet", str(r.worth_writing))

    section(ix.path)
    if not ix.exists:
        table.add_row("index", "absent (nothing is injected)")
    else:
        table.add_row("lines / bytes", f"{ix.lines} / {ix.bytes:,}")
        table.add_row(
            "characters / est. tokens",
            f"{ix.chars:,} / {ix.estimated_tokens:,} (+10% margin: "
            f"{ix.estimated_tokens_with_margin:,})",
        )
        table.add_row(
            "hot lines / packed lines",
            f"{ix.hot_lines} / {ix.packed_lines} folding {ix.folded} memories",
        )
        table.add_row(
            "cost per memory (chars)",
            f"hot {ix.hot_chars_per_entry:.0f}, cold {ix.cold_chars_per_memory:.0f}",
        )
        cc = ix.claude_code
        table.add_row(
            f"Claude Code would load ({CLAUDE_CODE_MAX_LINES} lines / "
            f"{CLAUDE_CODE_MAX_CHARS:,} chars)",
            f"{cc.loaded_lines} lines, {cc.loaded_chars:,} chars; cuts {cc.cut_lines} lines "
            f"naming {cc.cut_memories} memories (memfs injects it whole)"
            if cc.cut_lines
            else "all of it",
        )
    table.add_row("linked", _pct(ix.linked, n))
    table.add_row("orphans (not in the index)", _pct(ix.orphans, n))
    table.add_row("broken links", str(ix.broken_links))

    section("ages (date by precedence)")
    table.add_row("with a date", f"{ages.with_date} of {n}")
    if ages.sources:
        table.add_row("date from", _counts(ages.sources))
    table.add_row(
        f"stale today ({ages.today})", f"{ages.would_get_reminder} get a staleness reminder"
    )
    if ages.median_days is not None:
        table.add_row("median / oldest", f"{ages.median_days:.0f} / {ages.oldest_days} days")
    table.add_row("distribution", ", ".join(f"{k}: {v}" for k, v in ages.buckets.items() if v))
    if ages.future_dated:
        table.add_row("future-dated (not trusted)", str(ages.future_dated))

    section("rejected: index derived from frontmatter")
    ratio = f" = {der.ratio_to_curated:.1f}x the curated index" if der.ratio_to_curated else ""
    table.add_row("characters", f"{der.chars:,}{ratio}")
    table.add_row("est. tokens", f"{der.estimated_tokens:,}")
    table.add_row("files with nothing to derive", str(der.files_without_description))
    table.write(out)
    if list_paths:
        _print_lists(report, out)


def _print_lists(r: StatsReport, stream: TextIO) -> None:
    def out(line: str) -> None:
        stream.write(line + "\n")

    for p in r.index.orphan_paths:
        out(f"orphan  {p}")
    for p in r.index.broken_paths:
        out(f"broken  {p}")
    for p in r.index.claude_code.cut_paths:
        out(f"cut     {p}  (only on index lines Claude Code does not load)")
    for kind, paths in r.finding_files.items():
        label = "note   " if kind in r.notes else "finding"
        for p in paths:
            out(f"{label} {kind}  {p}")
    for name in r.worth_writing_names:
        out(f"missing [[{name}]]")
