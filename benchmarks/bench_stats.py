"""Row 8: ``memfs stats`` (``collect_stats``) against walking the directory and reading every
file, at 261 and at 10,000 memory files.

The candidate is the library call behind the command (the command adds argument parsing and a
rich table), timed cold: the frontmatter parse cache is emptied before each pass, as in a fresh
``memfs stats`` process. The baseline is the I/O any measurement must do: ``os.walk`` and one
read of every file. The difference is parsing: frontmatter, index links, and the report.
"""

from __future__ import annotations

import os
from functools import partial

from memfs import LocalFileStore, MemFS
from memfs.counting import CountingFileStore
from memfs.frontmatter_block import _is_plain_text, parse_yaml_mapping
from memfs.stats import collect_stats, forget_last_results

from benchmarks.harness import Row, compare, fmt_ratio, fmt_us, store_calls
from benchmarks.workspaces import Workspaces, bench_clock

TARGET = 2.0


def clear_parse_caches() -> None:
    forget_last_results()
    parse_yaml_mapping.cache_clear()
    _is_plain_text.cache_clear()


def walk_and_read(root: str) -> int:
    total = 0
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            with open(os.path.join(dirpath, name), "rb") as f:
                total += len(f.read())
    return total


def run(ws: Workspaces, sizes: tuple[int, ...] = (261, 10_000)) -> list[Row]:
    figures: dict[str, object] = {}
    parts = []
    worst = 0.0
    calls_261: dict[str, float] | None = None
    for n in sizes:
        root = ws.generated_dir(n)
        counting = CountingFileStore(LocalFileStore(root))
        fs = MemFS(counting, clock=bench_clock)
        report = collect_stats(fs)
        assert report.memory_files == n, f"stats saw {report.memory_files} of {n} files"
        c = compare(
            partial(walk_and_read, root),
            partial(collect_stats, fs),
            baseline_label="os.walk + read every file",
            candidate_label="collect_stats",
            repeats=9 if n <= 261 else 3,
            number=1,
            setup=clear_parse_caches,  # a `memfs stats` run is a fresh process
        )
        calls = store_calls(counting, partial(collect_stats, fs))
        figures[str(n)] = {**c.summary(), "store_calls": calls.counts}
        if calls_261 is None:
            calls_261 = {k: float(v) for k, v in calls.counts.items()}
        worst = max(worst, c.ratio_paired)
        parts.append(
            f"{n:,} files: {fmt_ratio(c)}, {fmt_us(c.candidate.min_s)} vs "
            f"{fmt_us(c.baseline.min_s)}"
        )
    return [
        Row(
            id="8",
            what="`memfs stats` (collect_stats) on 261 and 10,000 files",
            baseline="plain os.walk + read of every file",
            target=f"≤ {TARGET}×",
            measured="; ".join(parts),
            met=worst <= TARGET,
            store_calls=calls_261,
            note=(
                "Timed cold, as a `memfs stats` process runs: the frontmatter cache is emptied "
                "before each pass. Store calls shown for 261 files: one ls, one read per file. "
                "See docs/benchmarks.md for the profile."
            ),
            figures=figures,
        )
    ]
