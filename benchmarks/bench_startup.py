"""Rows 18, 19 and 19b: start-up, whole processes against whole processes.

    python -m benchmarks.bench_startup            # writes benchmarks/results/startup-<date>.json
    python -m benchmarks.bench_startup --repeats 11

Row 19b: the CPU time (user + system, from ``wait4``) of ``memfs --version``, ``memfs cat WS
MEMORY.md`` and ``memfs chat MISSING`` against ``python -c "import memfs"``, paired the same way.

Row 28s: the CPU time of each read-only command (``cat`` of a memory and of the index,
``grep``, ``stats``, ``log``) against ``python -c pass``; the target is ``memfs cat`` ≤ 0.2 s.

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
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path

from benchmarks.harness import Comparison, Row, compare, fmt_ratio, fmt_us

RESULTS = Path(__file__).resolve().parent / "results"
STATS_TARGET = 1.3
IMPORT_TARGET = 1.2
REPEATS = 41
CPU_REPEATS = 11

CAT_TARGET_S = 0.2
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


def children_cpu() -> float:
    """User + system CPU seconds of this process's children that have ended (and were waited
    for): around a batch of :func:`run_process` calls, the CPU those processes took."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)  # microseconds; os.times() ticks
    return usage.ru_utime + usage.ru_stime


def compare_processes(
    baseline: Sequence[str],
    candidate: Sequence[str],
    env: dict[str, str],
    repeats: int,
    labels: tuple[str, str],
    timer: Callable[[], float] = time.perf_counter,
) -> Comparison:
    """Whole processes in alternating batches of one; ``timer`` the clock of a batch (wall
    clock, or :func:`children_cpu`)."""
    base: Callable[[], None] = partial(run_process, baseline, env)
    cand: Callable[[], None] = partial(run_process, candidate, env)
    return compare(
        base,
        cand,
        baseline_label=labels[0],
        candidate_label=labels[1],
        repeats=repeats,
        number=1,  # one process per batch: a start-up is tens of milliseconds
        timer=timer,
    )


def cpu_seconds(argv: Sequence[str], env: dict[str, str]) -> float:
    """User + system CPU of one whole process (its exit status is not checked: `chat MISSING`
    is meant to fail)."""
    proc = subprocess.Popen(
        list(argv), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _, _, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0  # reaped here; keep Popen from waiting again
    return float(usage.ru_utime + usage.ru_stime)


def compare_cpu(
    baseline: Sequence[str], candidate: Sequence[str], env: dict[str, str], repeats: int
) -> dict[str, float]:
    """Paired CPU seconds, alternating which side runs first; medians and the paired ratio."""
    cpu_seconds(baseline, env), cpu_seconds(candidate, env)  # warm the bytecode cache
    pairs = []
    for r in range(repeats):
        if r % 2 == 0:
            b, c = cpu_seconds(baseline, env), cpu_seconds(candidate, env)
        else:
            c, b = cpu_seconds(candidate, env), cpu_seconds(baseline, env)
        pairs.append((b, c))
    return {
        "baseline_median_s": statistics.median(b for b, _ in pairs),
        "candidate_median_s": statistics.median(c for _, c in pairs),
        "ratio_paired": statistics.median(c / max(b, 1e-6) for b, c in pairs),
        "pairs": len(pairs),
    }


def cpu_row(repeats: int) -> Row:
    py = sys.executable
    with tempfile.TemporaryDirectory(prefix="memfs-startup-") as tmp:
        env = child_env(os.path.join(tmp, "pycache"))
        ws = os.path.join(tmp, "ws")
        os.mkdir(ws)
        Path(ws, "MEMORY.md").write_text("- [Role](memory/role.md) — engineer\n")
        base = [py, "-c", IMPORT_MEMFS]
        figures = {
            "memfs --version": compare_cpu(base, memfs_command("--version"), env, repeats),
            "memfs cat WS MEMORY.md": compare_cpu(
                base, memfs_command("cat", ws, "MEMORY.md"), env, repeats
            ),
            "memfs chat MISSING": compare_cpu(
                base, memfs_command("chat", os.path.join(tmp, "missing")), env, repeats
            ),
        }
    measured = "; ".join(
        f"`{name}` {f['ratio_paired']:.2f}× ({f['candidate_median_s'] * 1000:.0f} ms vs "
        f"{f['baseline_median_s'] * 1000:.0f} ms CPU)"
        for name, f in figures.items()
    )
    return Row(
        id="19b",
        what="CPU time of `memfs --version`, `memfs cat`, `memfs chat MISSING`, whole processes",
        baseline='python -c "import memfs"',
        target="reported",
        measured=f"{measured} (medians, N = {repeats} pairs)",
        note=(
            "`--version` is answered before any command module is looked up or loaded (it "
            "loaded every command, litellm and rich). `chat MISSING` is as fast as the chat "
            "command's checks before litellm make it (where it imports litellm first, seconds)."
        ),
        figures=figures,
    )


def _reader_workspace(ws: str) -> None:
    """One memory with a date (so `cat` builds the reminder) and the index that links it."""
    os.makedirs(os.path.join(ws, "memory"))
    Path(ws, "MEMORY.md").write_text("- [Role](memory/role.md) — engineer\n")
    Path(ws, "memory", "role.md").write_text(
        "---\nname: role\ndescription: the user's role\ntype: user\n"
        "metadata:\n  recorded: 2020-01-01\n---\nEngineer.\n"
    )


def commands_row(repeats: int) -> Row:
    """Row 28s: each read-only command's whole-process CPU time against ``python -c pass``."""
    py = sys.executable
    with tempfile.TemporaryDirectory(prefix="memfs-startup-") as tmp:
        env = child_env(os.path.join(tmp, "pycache"))
        ws = os.path.join(tmp, "ws")
        _reader_workspace(ws)
        commands = {
            "memfs cat WS memory/role.md": ("cat", ws, "memory/role.md"),
            "memfs cat WS MEMORY.md": ("cat", ws, "MEMORY.md"),
            "memfs grep WS Engineer": ("grep", ws, "Engineer"),
            "memfs stats WS": ("stats", ws),
            "memfs log WS memory/role.md": ("log", ws, "memory/role.md"),
        }
        base = [py, "-c", "pass"]
        figures = {
            name: compare_cpu(base, memfs_command(*argv), env, repeats)
            for name, argv in commands.items()
        }
    cat = figures["memfs cat WS memory/role.md"]["candidate_median_s"]
    measured = "; ".join(
        f"`{name}` {f['candidate_median_s']:.3f} s ({f['ratio_paired']:.1f}×)"
        for name, f in figures.items()
    )
    return Row(
        id="28s",
        what="CPU time of each read-only command, whole processes",
        baseline='python -c "pass"',
        target=f"`memfs cat` ≤ {CAT_TARGET_S} s CPU",
        measured=f"{measured} (medians, N = {repeats} pairs)",
        met=cat <= CAT_TARGET_S,
        note=(
            "`memfs cat` on a local workspace reads through memfs.views (the read rule MemFS "
            "follows) and imports no fsspec; YAML loads only for a memory file's reminder. "
            "`grep` and `stats` load no pydantic; `log` still loads pydantic (its version "
            "records) and rich (its table). Every command but `cat` still builds a MemFS, "
            "so fsspec."
        ),
        figures=figures,
    )


def run(repeats: int = REPEATS, cpu_repeats: int = CPU_REPEATS) -> list[Row]:
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
        cpu_row(cpu_repeats),
        commands_row(cpu_repeats),
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
    ap.add_argument("--cpu-repeats", type=int, default=CPU_REPEATS, help="pairs per CPU row")
    ap.add_argument("--only-cpu", action="store_true", help="only rows 19b and 28s")
    args = ap.parse_args(argv)
    if args.only_cpu:
        rows = [cpu_row(args.cpu_repeats), commands_row(args.cpu_repeats)]
    else:
        rows = run(args.repeats, args.cpu_repeats)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stamp = dt.datetime.now(dt.UTC).date().isoformat()
    path = out / f"startup{'-cpu' if args.only_cpu else ''}-{stamp}.json"
    report = {
        "command": "python -m benchmarks.bench_startup "
        + ("--only-cpu " if args.only_cpu else f"--repeats {args.repeats} ")
        + f"--cpu-repeats {args.cpu_repeats}",
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
