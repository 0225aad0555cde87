"""The scaling rows: whole-store passes from 10 to 10,000 memories, each against its baseline.

    python -m benchmarks.bench_scaling                     # 10, 100, 1,000, 10,000 files
    python -m benchmarks.bench_scaling --sizes 10,100,1000 --repeats 3

At each size, in the same run and interleaved (:func:`benchmarks.harness.compare`):

* ``collect_stats`` against ``os.walk`` + reading every file;
* ``search_memory`` (a substring that is in every memory) against ``os.walk`` + read +
  ``re.search`` on each file;
* a chat turn (``build_chat_turn``) against a raw read of ``MEMORY.md``;
* the same turn with a 60-message conversation before it (:data:`TRANSCRIPT`: user,
  assistant with a tool call, tool result, twenty times) against the raw read and a copy of
  each message (``dict(m)``, the least a turn that must not alias its caller's history does);

and, as whole processes at 1,000 and 10,000 files (:data:`PROCESS_SIZES`), one process per
batch, with bytecode caching on as for an installed package (:mod:`benchmarks.bench_startup`):

* ``memfs stats WS`` against ``python -c`` running the same ``os.walk`` + read;
* ``memfs grep WS OPS-4312`` (a ticket number most generated bodies hold) against
  ``grep -rn OPS-4312 WS/memory``.

The search needle of the in-process row, ``---``, is in every file but only on its fence lines,
which search does not search: that row times the pass that finds nothing, the process row
one that finds lines in most files.

Writes ``benchmarks/results/scaling-<date>.json`` and the plot of the paired ratios,
``docs/assets/benchmarks-scaling.png`` (matplotlib, the ``plot`` extra), which
docs/benchmarks.md shows. Rerun it after a change to any of the three paths.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from memfs.filesystem import MemFS
from memfs.layout import INDEX_FILE
from memfs.manifest import AgentManifest
from memfs.search import search_memory
from memfs.stats import collect_stats
from memfs.stores import LocalFileStore
from memfs.turns import build_chat_turn

from benchmarks.bench_startup import child_env, children_cpu, compare_processes, memfs_command
from benchmarks.bench_stats import clear_parse_caches, walk_and_read
from benchmarks.harness import Comparison, Row, compare
from benchmarks.workspaces import Workspaces, bench_clock

RESULTS = Path(__file__).resolve().parent / "results"
PLOT = Path(__file__).resolve().parent.parent / "docs" / "assets" / "benchmarks-scaling.png"
SIZES = (10, 100, 1_000, 10_000)
NEEDLE = "---"  # every memory file opens its frontmatter with it: every file matches
TARGETS = {
    "collect_stats": 2.0,
    "search_memory": 1.5,
    "chat turn": 2.0,
    "memfs stats (process)": 3.0,
    "memfs grep (process)": 5.0,
    "chat turn, 60 messages": 2.0,
}
"""The ratio each path should stay under at every size."""
IN_PROCESS = ("collect_stats", "search_memory", "chat turn", "chat turn, 60 messages")
PROCESS_SIZES = (1_000, 10_000)
"""The store sizes the whole-process rows run at (each pass is a fresh interpreter)."""
GREP_NEEDLE = "OPS-4312"
CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.process_time}
"""What ``--clock`` may time the in-process rows with."""
PROCESS_CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": children_cpu}
"""What the same ``--clock`` times the whole-process rows with: the children's CPU time."""
ROW_IDS = dict(zip(TARGETS, ("21", "22", "23", "24", "25", "23b"), strict=True))
"""The rows' numbers in ``benchmarks.run_all``."""
_WALK_READ = (
    "import os,sys\n"
    "for d,_,fs in os.walk(sys.argv[1]):\n"
    " for n in fs:\n"
    "  with open(os.path.join(d,n),'rb') as f: f.read()"
)


def walk_read_search(root: str, pattern: re.Pattern[str]) -> int:
    hits = 0
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            with open(os.path.join(dirpath, name), encoding="utf-8", errors="replace") as f:
                hits += pattern.search(f.read()) is not None
    return hits


def read_index(root: str) -> int:
    with open(os.path.join(root, INDEX_FILE), "rb") as f:
        return len(f.read())


MANIFEST = AgentManifest()
"""The app's manifest, built once, as an app holds it across its turns."""

TRANSCRIPT: list[dict[str, object]] = [
    message
    for i in range(20)
    for message in (
        {"role": "user", "content": f"Question {i} about the yield of line 3. " * 5},
        {
            "role": "assistant",
            "content": "Let me look at the notes. " * 20,
            "tool_calls": [
                {
                    "id": f"call-{i}",
                    "type": "function",
                    "function": {"name": "read_file", "arguments": '{"path": "memory/x.md"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": f"call-{i}", "content": "The file's body. " * 40},
    )
]
"""A conversation of 60 messages before the turn: twenty rounds of a question, an answer with a
tool call, and the tool's result."""


def chat_turn(fs: MemFS, transcript: list[dict[str, object]] | None = None) -> object:
    return build_chat_turn(
        transcript=transcript or [], user_message="hello", manifest=MANIFEST, fs=fs
    )


def read_index_and_copy(root: str, transcript: list[dict[str, object]]) -> int:
    messages = [dict(m) for m in transcript]
    return read_index(root) + len(messages)


def pairs(root: str) -> dict[str, tuple[str, Callable[[], object], Callable[[], object]]]:
    """Each scaling path at one store: its baseline's label, the baseline, the candidate."""
    fs = MemFS(LocalFileStore(root), clock=bench_clock)
    return {
        "collect_stats": (
            "os.walk + read",
            partial(walk_and_read, root),
            partial(collect_stats, fs),
        ),
        "search_memory": (
            "os.walk + read + re",
            partial(walk_read_search, root, re.compile(re.escape(NEEDLE))),
            partial(search_memory, fs, NEEDLE),
        ),
        "chat turn": ("raw read of MEMORY.md", partial(read_index, root), partial(chat_turn, fs)),
        "chat turn, 60 messages": (
            "raw read + a copy of each message",
            partial(read_index_and_copy, root, TRANSCRIPT),
            partial(chat_turn, fs, TRANSCRIPT),
        ),
    }


def process_pairs(root: str, env: dict[str, str]) -> dict[str, tuple[str, list[str], list[str]]]:
    """Each whole-process row at one store: its baseline's label, the two command lines."""
    return {
        "memfs stats (process)": (
            "python -c os.walk + read",
            [sys.executable, "-c", _WALK_READ, root],
            memfs_command("stats", root),
        ),
        "memfs grep (process)": (
            "grep -rn",
            ["grep", "-rn", GREP_NEEDLE, os.path.join(root, "memory")],
            memfs_command("grep", root, GREP_NEEDLE),
        ),
    }


def measure_sizes(
    ws: Workspaces,
    sizes: tuple[int, ...],
    repeats: int,
    process_sizes: tuple[int, ...] = PROCESS_SIZES,
    paths: tuple[str, ...] = tuple(TARGETS),
    timer: Callable[[], float] = time.perf_counter,
    process_timer: Callable[[], float] = time.perf_counter,
) -> dict[str, dict]:
    """``{path: {size: Comparison.summary()}}`` for each of ``paths`` (of :data:`TARGETS`),
    cold caches before each pass (a process's); ``timer`` times the in-process rows,
    ``process_timer`` the whole processes."""
    out: dict[str, dict] = {name: {} for name in TARGETS}
    with tempfile.TemporaryDirectory(prefix="memfs-pycache-") as pycache:
        env = child_env(pycache)
        for n in sizes:
            root = ws.generated_dir(n)
            _measure_in_process(out, root, n, repeats, paths, timer)
            if n in process_sizes:
                for name, (label, base, cand) in process_pairs(root, env).items():
                    if name not in paths:
                        continue
                    c = compare_processes(base, cand, env, repeats, (label, name), process_timer)
                    out[name][str(n)] = c.summary()
                    print(f"{name} at {n:,} files: {c.ratio_paired:.2f}× {label}", file=sys.stderr)
    return {name: by_size for name, by_size in out.items() if by_size}


def _measure_in_process(
    out: dict[str, dict],
    root: str,
    n: int,
    repeats: int,
    paths: tuple[str, ...],
    timer: Callable[[], float],
) -> None:
    for name, (label, base, cand) in pairs(root).items():
        if name not in paths:
            continue
        c: Comparison = compare(
            base,
            cand,
            baseline_label=label,
            candidate_label=name,
            repeats=repeats if n < 10_000 else max(3, repeats // 3),
            number=None if n < 1_000 else 1,  # small stores: batches long enough to time
            setup=clear_parse_caches,
            timer=timer,
        )
        out[name][str(n)] = c.summary()
        print(f"{name} at {n:,} files: {c.ratio_paired:.2f}× {label}", file=sys.stderr)


def rows(figures: dict[str, dict]) -> list[Row]:
    """One benchmark row a path, for ``benchmarks.run_all``: met when every size is."""
    out = []
    for name, by_size in figures.items():
        sizes = sorted(by_size, key=int)
        target = TARGETS[name]
        out.append(
            Row(
                id=ROW_IDS[name],
                what=f"{name}, {' / '.join(f'{int(s):,}' for s in sizes)} files",
                baseline=by_size[sizes[0]]["baseline"]["label"],
                target=f"≤ {target:g}×",
                measured=" / ".join(f"{by_size[s]['ratio_paired']:.2f}×" for s in sizes),
                met=all(by_size[s]["ratio_paired"] <= target for s in sizes),
                note="Paired, interleaved; caches emptied before each in-process pass, a fresh "
                "interpreter per process batch (benchmarks/bench_scaling.py).",
                figures=by_size,
            )
        )
    return out


def run(ws: Workspaces, sizes: tuple[int, ...] = SIZES, repeats: int = 3) -> list[Row]:
    """The scaling rows (21-25) over ``ws``, for ``benchmarks.run_all``."""
    return rows(measure_sizes(ws, sizes, repeats))


def plot(figures: dict[str, dict], path: Path) -> None:
    """Paired ratio against store size, one line a path, its target dashed."""
    from memfs.extras import require

    require("plot", "matplotlib").use("Agg")
    plt = require("plot", "matplotlib.pyplot")
    fig, ax = plt.subplots(figsize=(7, 4), dpi=110)
    for (name, by_size), colour in zip(
        figures.items(), ("C0", "C1", "C2", "C3", "C4", "C5"), strict=False
    ):
        sizes = sorted(by_size, key=int)
        ax.plot(
            [int(s) for s in sizes],
            [by_size[s]["ratio_paired"] for s in sizes],
            marker="o",
            color=colour,
            label=f"{name} (vs {by_size[sizes[0]]['baseline']['label']})",
        )
        ax.axhline(TARGETS[name], color=colour, linestyle="--", linewidth=0.8)
    ax.set_xscale("log")
    ax.set_xlabel("memory files in the store")
    ax.set_ylabel("time ÷ baseline (paired median)")
    ax.set_ylim(bottom=0)
    ax.set_title("Whole-store passes against their baselines (dashed: target)")
    ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)), help="store sizes, in files")
    ap.add_argument("--repeats", type=int, default=5, help="pairs per comparison (a third at 10k)")
    ap.add_argument(
        "--process-sizes",
        default=",".join(map(str, PROCESS_SIZES)),
        help="the sizes (of --sizes) that also run the whole-process rows",
    )
    ap.add_argument(
        "--rows",
        default=",".join(ROW_IDS.values()),
        help=f"the rows to time, of: {', '.join(f'{i} ({n})' for n, i in ROW_IDS.items())}",
    )
    ap.add_argument(
        "--clock",
        choices=CLOCKS,
        default="wall",
        help="what the rows time: wall clock, or cpu (this process's CPU time for the "
        "in-process rows, each child's for the whole-process rows: it leaves out what other "
        "processes take from a shared machine)",
    )
    ap.add_argument("--out", default=str(RESULTS), help="directory for the results file")
    ap.add_argument(
        "--plot",
        help=f"the PNG to write (default: {PLOT.as_posix()} for a run of every row by wall "
        "clock, none for any other run, which would leave rows out of the docs' plot)",
    )
    args = ap.parse_args(argv)
    sizes = tuple(int(s) for s in args.sizes.split(","))
    rows_asked = [r.strip() for r in args.rows.split(",") if r.strip()]
    unknown = [r for r in rows_asked if r not in ROW_IDS.values()]
    if unknown:
        ap.error(f"--rows: no row {', '.join(unknown)}; the rows are {', '.join(ROW_IDS.values())}")
    paths = tuple(name for name, row in ROW_IDS.items() if row in rows_asked)
    load_before = os.getloadavg()
    with Workspaces() as ws:
        process_sizes = tuple(int(s) for s in args.process_sizes.split(",") if s)
        figures = measure_sizes(
            ws,
            sizes,
            args.repeats,
            process_sizes,
            paths,
            CLOCKS[args.clock],
            PROCESS_CLOCKS[args.clock],
        )
    stamp = dt.datetime.now(dt.UTC).date().isoformat()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"scaling-{'' if args.clock == 'wall' else args.clock + '-'}{stamp}.json"
    report = {
        "command": f"python -m benchmarks.bench_scaling --sizes {args.sizes} "
        f"--repeats {args.repeats} --process-sizes {args.process_sizes}"
        + ("" if paths == tuple(TARGETS) else f" --rows {','.join(ROW_IDS[p] for p in paths)}")
        + ("" if args.clock == "wall" else f" --clock {args.clock}"),
        "clock": args.clock,
        "python": sys.version.split()[0],
        "cpus": os.cpu_count(),
        "load_average": {"start": load_before, "end": os.getloadavg()},
        "targets": TARGETS,
        "figures": figures,
    }
    path.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    png = args.plot or (str(PLOT) if paths == tuple(TARGETS) and args.clock == "wall" else None)
    if png:
        plot(figures, Path(png))
    print(f"wrote {path}{f' and {png}' if png else ''}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
