"""``memfs stats PATH_OR_URL``: the seed's §4 measurements on any workspace, read-only."""

from __future__ import annotations

import argparse
import sys

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from memfs.stats import StatsReport, collect_stats
from memfs.workspace import add_workspace_argument, open_workspace


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "stats",
        help="measure a workspace's memory: sizes, types, index coverage, ages, index cost",
        description=(
            "Measure the memory of WORKSPACE in one read-only pass: file sizes, types, "
            "drift, MEMORY.md size and tokens, orphans and broken links, hot vs cold index "
            "cost, ages, and what an index derived from frontmatter would cost. It reports; "
            "it never rewrites the index."
        ),
    )
    add_workspace_argument(p)
    p.add_argument("--json", action="store_true", help="print the report as one JSON object")
    p.add_argument("--list", action="store_true", help="also list orphan and broken-link paths")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        fs = open_workspace(args.workspace, read_only=True)
        report = collect_stats(fs)
    except (OSError, ValueError) as e:
        print(f"memfs stats: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(report.model_dump_json(indent=2))
    else:
        render(report, Console(), list_paths=args.list)
    return 0


def _pct(part: int, whole: int) -> str:
    return f"{part} ({100 * part / whole:.0f}%)" if whole else str(part)


def render(report: StatsReport, console: Console, *, list_paths: bool = False) -> None:
    r, ix, ages, der = report, report.index, report.ages, report.derived_index
    n = r.memory_files
    table = Table(title=f"memfs stats — {r.workspace}", show_header=True)
    table.add_column("measure")
    table.add_column("value")

    def section(name: str) -> None:
        table.add_row(f"[bold]{name}[/bold]", "", end_section=False)

    section("memory files")
    table.add_row("files", str(n))
    table.add_row(
        "size min / median / max",
        f"{r.sizes.min:,} B / {r.sizes.median:,.0f} B / {r.sizes.max:,} B",
    )
    table.add_row("types", ", ".join(f"{k} {v}" for k, v in r.types.items() if v))
    table.add_row("without description", _pct(r.without_description, n))
    if r.description_chars_mean is not None:
        table.add_row("description length (mean)", f"{r.description_chars_mean:.0f} chars")
    table.add_row("name styles", ", ".join(f"{k} {v}" for k, v in r.name_styles.items()))
    if r.extra_keys:
        table.add_row("non-spec keys", ", ".join(f"{k} {v}" for k, v in r.extra_keys.items()))
    table.add_row(
        "frontmatter drift",
        f"{r.files_with_findings} files with findings; {r.no_frontmatter} without frontmatter, "
        f"{r.unparseable_frontmatter} unparseable",
    )
    table.add_row(escape("[[links]] to memories not written yet"), str(r.worth_writing))

    section("MEMORY.md")
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
    table.add_row("linked", _pct(ix.linked, n))
    table.add_row("orphans (not in the index)", _pct(ix.orphans, n))
    table.add_row("broken links", str(ix.broken_links))

    section("ages (metadata.recorded)")
    table.add_row("with a date", f"{ages.with_date} of {n}")
    table.add_row(
        f"stale today ({ages.today})", f"{ages.would_get_reminder} get a staleness reminder"
    )
    if ages.median_days is not None:
        table.add_row("median / oldest", f"{ages.median_days:.0f} / {ages.oldest_days} days")
    table.add_row("distribution", ", ".join(f"{k}: {v}" for k, v in ages.buckets.items() if v))
    if ages.future_dated:
        table.add_row("future-dated", str(ages.future_dated))

    section("rejected: index derived from frontmatter (§5)")
    ratio = f" = {der.ratio_to_curated:.1f}x the curated index" if der.ratio_to_curated else ""
    table.add_row("characters", f"{der.chars:,}{ratio}")
    table.add_row("est. tokens", f"{der.estimated_tokens:,}")
    table.add_row("files with nothing to derive", str(der.files_without_description))
    console.print(table)
    if list_paths:
        for p in ix.orphan_paths:
            console.print(f"orphan  {p}")
        for p in ix.broken_paths:
            console.print(f"broken  {p}")
