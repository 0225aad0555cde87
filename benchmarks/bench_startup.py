"""Rows 18 and 19: start-up, whole processes against whole processes.

    python -m benchmarks.bench_startup            # writes benchmarks/results/startup-<date>.json
    python -m benchmarks.bench_startup --repeats 11

Row 18: ``memfs stats EMPTY_DIR`` against ``python -c "import memfs"``. Row 19: ``python -c
"import memfs"`` against ``python -c "import fsspec, pydantic, yaml"`` (its dependencies). Each
side is a fresh interpreter, run in alternating order (:func:`benchmarks.harness.compare`, one
process per batch); the verdict is the median of the paired ratios.

The children run with bytecode caching on, in a private cache (``PYTHONPYCACHEPREFIX`` in a
temporary directory, warmed by the first run of each command): an installed package has its
``.pyc`` files, and a shell that sets ``PYTHONDONTWRITEBYTECODE`` would otherwise have every
import compile its source each time, which measures the compiler instead of the imports.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path

from benchmarks.harness import Comparison, Row, compare, fmt_ratio, fmt_us

RESULTS = Path(__file__).resolve().parent / "results"
STATS_TARGET = 1.3
IMPORT_TARGET = 1.2
REPEATS = 41

IMPORT_MEMFS = "import memfs"
IMPORT_DEPS = "import fsspec, pydantic, yaml"


def child_env(pycache: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = pycache
    return env


def run_process(argv: Sequence[str], env: dict[str, str]) -> None:
    done = subprocess.run(
        list(argv), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=120
    )
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {done.returncode}: {done.stderr[-500:]!r}")


def memfs_command(*args: str) -> list[str]:
    """The installed ``memfs`` script beside this interpreter, else ``python -m memfs.cli``."""
    script = Path(sys.executable).with_name("memfs")
    return [str(script), *args] if script.exists() else [sys.executable, "-m", "memfs.cli", *args]


def compare_processes(
    baseline: Sequence[str],
    candidate: Sequence[str],
    env: dict[str, str],
    repeats: int,
    labels: tuple[str, str],
) -> Comparison:
    base: Callable[[], None] = partial(run_process, baseline, env)
    cand: Callable[[], None] = partial(run_process, candidate, env)
    return compare(
        base,
        cand,
        baseline_label=labels[0],
        candidate_label=labels[1],
        repeats=repeats,
        number=1,  # one process per batch: a start-up is tens of milliseconds
    )


def run(repeats: int = REPEATS) -> list[Row]:
    py = sys.executable
    with tempfile.TemporaryDirectory(prefix="memfs-startup-") as tmp:
        env = child_env(os.path.join(tmp, "pycache"))
        empty = os.path.join(tmp, "empty")
        os.mkdir(empty)
        imports = compare_processes(
            [py, "-c", IMPORT_DEPS],
            [py, "-c", IMPORT_MEMFS],
            env,
            repeats,
            (f"python -c {IMPORT_DEPS!r}", f"python -c {IMPORT_MEMFS!r}"),
        )
        stats = compare_processes(
            [py, "-c", IMPORT_MEMFS],
            memfs_command("stats", empty),
            env,
            repeats,
            (f"python -c {IMPORT_MEMFS!r}", "memfs stats EMPTY_DIR"),
        )
    n = f"N = {repeats} pairs"
    return [
        Row(
            id="18",
            what="`memfs stats EMPTY_DIR`, whole process",
            baseline='python -c "import memfs"',
            target=f"≤ {STATS_TARGET}×",
            measured=(
                f"{fmt_ratio(stats)}, {fmt_us(stats.candidate.median_s)} vs "
                f"{fmt_us(stats.baseline.median_s)} (medians, {n})"
            ),
            met=stats.ratio_paired <= STATS_TARGET,
            note=(
                "Only the `stats` command is imported (it was every command and its adapter, "
                "the MCP SDK and litellm's agent loop among them), and its path loads neither "
                "pydantic nor rich: the report, the memory records, the index and the version "
                "records are dataclasses, the table is plain text, and the agent manifest "
                "(pydantic) loads with the commands that read one (a test checks which modules "
                "`memfs stats` loads). Children run with a private bytecode cache (see "
                "benchmarks/bench_startup.py)."
            ),
            figures={"stats": stats.summary()},
        ),
        Row(
            id="19",
            what="`import memfs`, whole process",
            baseline='python -c "import fsspec, pydantic, yaml" (its dependencies)',
            target=f"≤ {IMPORT_TARGET}×",
            measured=(
                f"{fmt_ratio(imports)}, {fmt_us(imports.candidate.median_s)} vs "
                f"{fmt_us(imports.baseline.median_s)} (medians, {n})"
            ),
            met=imports.ratio_paired <= IMPORT_TARGET,
            note=(
                "`import memfs` no longer imports s3fs (the s3 extra, about half a second; it "
                "comes with the first S3 workspace) nor the credential guard's pydantic model "
                "(it comes with the first write the guard checks); the guard and the token "
                "estimator compile their patterns on first use."
                + (
                    " Below 1×: the baseline's `import pydantic` loads pydantic's own namespace, "
                    "which `import memfs` no longer needs."
                    if imports.ratio_paired < 1
                    else ""
                )
            ),
            figures={"imports": imports.summary()},
        ),
    ]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--out", default=str(RESULTS), help="directory for the results file")
    ap.add_argument("--repeats", type=int, default=REPEATS, help="pairs per comparison")
    args = ap.parse_args(argv)
    rows = run(args.repeats)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stamp = dt.datetime.now(dt.UTC).date().isoformat()
    path = out / f"startup-{stamp}.json"
    report = {
        "command": f"python -m benchmarks.bench_startup --repeats {args.repeats}",
        "python": sys.version.split()[0],
        "cpus": os.cpu_count(),
        "rows": [r.model_dump() for r in rows],
    }
    path.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    for r in rows:
        verdict = {True: "met", False: "MISSED", None: "reported"}[r.met]
        print(f"row {r.id} [{verdict}] {r.what}: {r.measured}")
        print(f"  {r.note}")
    print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
