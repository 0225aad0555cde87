"""Rows 23 and 23b as CPU time: a chat turn against its baseline, each timed by the CPU it uses.

The scaling rows (``benchmarks.bench_scaling``) time wall clock; a turn is tens of microseconds,
and on two CPUs shared with a model server the other processes' share moves a wall-clock ratio
by more than a change to the turn does. Here each side runs in batches of calls, alternating
baseline and candidate, and each batch is timed with ``time.process_time`` (this process's CPU,
user + system), so time spent waiting for a CPU drops out. The pairs are the scaling rows' own
(:func:`benchmarks.bench_scaling.pairs`). Compare two trees by running this script from outside
them with each first on ``PYTHONPATH``, alternately.

    python -m benchmarks.bench_turn_cpu --out benchmarks/results
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import memfs

from benchmarks.bench_scaling import RESULTS, pairs
from benchmarks.workspaces import Workspaces

ROWS = {"chat turn": "23", "chat turn, 60 messages": "23b"}
"""The scaling rows this script times, by their path's name."""


def cpu_per_call(f: Callable[[], object], number: int) -> float:
    """Seconds of this process's CPU per call of ``f``, over ``number`` calls."""
    start = time.process_time()
    for _ in range(number):
        f()
    return (time.process_time() - start) / number


def measure(root: str, batches: int, number: int) -> dict[str, dict[str, object]]:
    """``{row name: figures}`` at the store ``root``: per batch pair, the candidate's CPU per
    call over the baseline's; the median ratio and the median CPU per call of each side."""
    out: dict[str, dict[str, object]] = {}
    for name, (label, base, cand) in pairs(root).items():
        if name not in ROWS:
            continue
        base()
        cand()  # warm: the first call reads and memoises what every later turn reuses
        ratios, base_s, cand_s = [], [], []
        for _ in range(batches):
            b, c = cpu_per_call(base, number), cpu_per_call(cand, number)
            base_s.append(b)
            cand_s.append(c)
            ratios.append(c / b)
        out[name] = {
            "row": ROWS[name],
            "baseline": label,
            "ratio_median": statistics.median(ratios),
            "ratios": ratios,
            "baseline_cpu_us": statistics.median(base_s) * 1e6,
            "candidate_cpu_us": statistics.median(cand_s) * 1e6,
        }
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--sizes", default="10,1000,10000", help="store sizes, in files")
    ap.add_argument("--batches", type=int, default=15, help="batch pairs a row and size")
    ap.add_argument("--number", type=int, default=2000, help="calls a batch (a seventh at 10k)")
    ap.add_argument("--out", default=str(RESULTS), help="directory for the results file")
    args = ap.parse_args(argv)
    figures: dict[str, dict[str, object]] = {}
    with Workspaces() as ws:
        for n in (int(s) for s in args.sizes.split(",")):
            number = args.number if n < 10_000 else max(1, args.number // 7)
            for name, f in measure(ws.generated_dir(n), args.batches, number).items():
                figures.setdefault(name, {})[str(n)] = f
                ratio, cpu = f["ratio_median"], f["candidate_cpu_us"]
                print(f"{name} at {n:,} files: {ratio:.2f}× ({cpu:.1f} µs CPU)", file=sys.stderr)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stamp = dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H%M%S")
    path = out / f"turn-cpu-{stamp}.json"
    report = {
        "command": "python -m benchmarks.bench_turn_cpu "
        f"--sizes {args.sizes} --batches {args.batches} --number {args.number}",
        "memfs": os.path.dirname(memfs.__file__),
        "python": sys.version.split()[0],
        "load_average": os.getloadavg(),
        "figures": figures,
    }
    path.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
