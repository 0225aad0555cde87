"""Stats in place against stats after ``memfs import``, and import → export byte for byte, on
Claude Code memory stores given as directories.

    python -m benchmarks.compare_stores DIR [DIR ...]    # default: every test fixture store

Point it at real stores (a ``~/.claude/projects/<p>/memory/`` directory, or a repository
holding ``.claude/memory/``) kept outside this repository. For each store it prints the layout
import reads it in, then files, entry and packed lines, linked memories, orphans, broken links
and the memories Claude Code would cut, in place and after import, and whether they agree and
whether import then export gives back every file byte for byte. Read-only: the import and the
export go to in-memory stores. Exit status 1 when any store disagrees.
"""

from __future__ import annotations

import datetime as dt
import sys
from collections.abc import Callable
from pathlib import Path

from memfs import PLATFORM, InMemoryFileStore, Layout, LocalFileStore, MemFS, resolve_layout
from memfs.commands.transfer import apply_transfer, plan_transfer
from memfs.stats import StatsReport, collect_stats

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "claude_code"
FIGURES = ("files", "entries", "packed", "linked", "orphans", "broken", "cut")


def figures(report: StatsReport, layout: Layout) -> dict[str, object]:
    """The layout-independent figures of a report, paths relative to the memory directory."""

    def names(paths: list[str]) -> list[str]:
        cut = len(layout.memory_dir) + 1 if layout.memory_dir else 0
        return sorted(p[cut:] for p in paths)

    ix = report.index
    return {
        "files": report.memory_files,
        "entries": ix.hot_lines,
        "packed": ix.packed_lines,
        "linked": ix.linked,
        "orphans": names(ix.orphan_paths),
        "broken": names(ix.broken_paths),
        "cut": names(ix.claude_code.cut_paths),
    }


def compare(
    root: Path, today: Callable[[], dt.date] | None = None
) -> tuple[str, dict[str, object], dict[str, object], bool]:
    """``(layout, figures in place, figures after import, import → export byte for byte)``.

    ``today`` is the clock of the workspaces the store passes through: a migration clamps a
    date after today to today, so a store dated in the future comes back with that date moved.
    """
    store = LocalFileStore(root)
    paths = MemFS(store, read_only=True).raw.find("")
    layout = resolve_layout("claude-code", paths).layout  # what `memfs import` reads
    src = MemFS(store, layout=layout, read_only=True)
    ws = MemFS(
        InMemoryFileStore(), layout=PLATFORM, credential_guard=False, history=False, clock=today
    )
    apply_transfer(plan_transfer(src, ws, "import"), ws)
    back = MemFS(InMemoryFileStore(), layout=Layout.claude_code(""), credential_guard=False,
                 history=False, clock=today)  # fmt: skip
    apply_transfer(plan_transfer(ws, back, "export"), back)
    area = [p for p in paths if layout.in_memory_area(p) or layout.is_index(p)]
    cut = len(layout.memory_dir) + 1 if layout.memory_dir else 0
    same_bytes = {p[cut:]: src.raw.cat_file(p) for p in area} == {
        p: back.raw.cat_file(p) for p in back.raw.find("")
    }
    return (
        layout.describe(),
        figures(collect_stats(src), layout),
        figures(collect_stats(ws), PLATFORM),
        same_bytes,
    )


def _cell(value: object) -> str:
    return str(len(value)) if isinstance(value, list) else str(value)


def main(argv: list[str], today: Callable[[], dt.date] | None = None) -> int:
    """Compare each store (default: the fixtures); ``today`` the clock (default: the real one)."""
    roots = [Path(a) for a in argv] or sorted(
        p for p in FIXTURES.iterdir() if p.is_dir() and p.name != "platform"
    )
    print("store | " + " | ".join(FIGURES) + " | agree | round trip")
    ok = True
    for root in roots:
        layout, here, moved, same = compare(root, today)
        agree = here == moved
        ok &= agree and same
        cells = [f"{_cell(here[k])}/{_cell(moved[k])}" for k in FIGURES]
        print(f"{root.name} | " + " | ".join(cells) + f" | {'yes' if agree else 'NO'} | "
              f"{'bytes' if same else 'DIFFERS'}   ({layout})")  # fmt: skip
        if not agree:
            for k in FIGURES:
                if here[k] != moved[k]:
                    print(f"    {k}: in place {here[k]} / after import {moved[k]}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
