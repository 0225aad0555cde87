"""Timing harness: every figure is a ratio against a baseline measured in the same run.

The machines these run on are shared and noisy, so absolute times mean little. A comparison
runs the baseline and the candidate in alternating batches (so drift hits both alike), each
batch a couple of milliseconds (long against the timer, short against a scheduler time
slice), with the garbage collector off inside a batch (as :mod:`timeit` does). It reports min
and median per call for both, and three ratios: ``ratio_paired``, the median over repeats of
each candidate batch against the baseline batch run right next to it (drift cancels within a
pair, and a spike on either side moves the median little); ``ratio_min`` (best batch against
best batch, the :mod:`timeit` view, which flatters whichever side got one lucky fsync); and
``ratio_median``. Verdicts use ``ratio_paired``; the table also shows ``ratio_min``.
"""

from __future__ import annotations

import gc
import platform
import statistics
import time
from collections.abc import Callable
from typing import Any

from memfs.counting import CountingFileStore, StoreCalls
from pydantic import BaseModel, Field

BATCH_TARGET_S = 0.003
"""Batches of about 3 ms: many short batches give the min a chance to dodge other processes."""


class Timing(BaseModel):
    """Seconds per call over ``repeats`` batches of ``number`` calls."""

    label: str
    min_s: float
    median_s: float
    repeats: int
    number: int
    per_batch_s: list[float] = Field(default_factory=list, description="seconds per call, by batch")


class Comparison(BaseModel):
    baseline: Timing
    candidate: Timing

    @property
    def ratio_min(self) -> float:
        return self.candidate.min_s / self.baseline.min_s

    @property
    def ratio_median(self) -> float:
        return self.candidate.median_s / self.baseline.median_s

    @property
    def ratio_paired(self) -> float:
        """Median over repeats of candidate batch / the baseline batch run next to it."""
        pairs = zip(self.candidate.per_batch_s, self.baseline.per_batch_s, strict=True)
        return statistics.median(c / b for c, b in pairs)

    def summary(self) -> dict[str, Any]:
        return {
            "baseline": self.baseline.model_dump(),
            "candidate": self.candidate.model_dump(),
            "ratio_paired": round(self.ratio_paired, 3),
            "ratio_min": round(self.ratio_min, 3),
            "ratio_median": round(self.ratio_median, 3),
        }


def _batch(
    fn: Callable[[], object],
    number: int,
    setup: Callable[[], object] | None,
    timer: Callable[[], float] = time.perf_counter,
) -> float:
    if setup is not None:
        setup()
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        start = timer()
        for _ in range(number):
            fn()
        return timer() - start
    finally:
        if was_enabled:
            gc.enable()


def calibrate(fn: Callable[[], object], target_s: float = BATCH_TARGET_S) -> int:
    """How many calls make a batch of about ``target_s`` (at least 1)."""
    number = 1
    while True:
        elapsed = _batch(fn, number, None)
        if elapsed >= target_s / 4 or number >= 1_000_000:
            return max(1, round(number * target_s / max(elapsed, 1e-9)))
        number *= 4


def compare(
    baseline: Callable[[], object],
    candidate: Callable[[], object],
    *,
    baseline_label: str,
    candidate_label: str,
    repeats: int = 41,
    number: int | None = None,
    setup: Callable[[], object] | None = None,
    timer: Callable[[], float] = time.perf_counter,
) -> Comparison:
    """Time ``candidate`` against ``baseline`` in alternating batches; ``setup`` runs untimed
    before each batch (e.g. to empty a cache both sides would otherwise share). ``timer`` is
    the clock of a batch: wall clock, or ``time.process_time`` (this process's CPU, so the
    time other processes take from a shared machine drops out of both sides)."""
    if repeats < 1:
        raise ValueError(f"repeats must be at least 1, got {repeats}.")
    baseline()
    candidate()  # warm both (imports, caches that any real caller also has warm)
    if number is None:
        number = min(calibrate(baseline), calibrate(candidate))
    base: list[float] = []
    cand: list[float] = []
    for r in range(repeats):
        # Alternate which side goes first, so neither always runs on a freshly cooled cache.
        order = ((base, baseline), (cand, candidate))
        for out, fn in order if r % 2 == 0 else reversed(order):
            out.append(_batch(fn, number, setup, timer) / number)
    return Comparison(
        baseline=_timing(baseline_label, base, number),
        candidate=_timing(candidate_label, cand, number),
    )


def measure(
    fn: Callable[[], object],
    *,
    label: str,
    repeats: int = 7,
    number: int | None = None,
    setup: Callable[[], object] | None = None,
    warm: bool = True,
) -> Timing:
    """Time one function alone (for figures that have no baseline, such as build times)."""
    if warm:
        fn()
    number = number or calibrate(fn)
    return _timing(label, [_batch(fn, number, setup) / number for _ in range(repeats)], number)


def _timing(label: str, per_call: list[float], number: int) -> Timing:
    return Timing(
        label=label,
        min_s=min(per_call),
        median_s=statistics.median(per_call),
        repeats=len(per_call),
        number=number,
        per_batch_s=per_call,
    )


def store_calls(store: CountingFileStore, fn: Callable[[], object], times: int = 1) -> StoreCalls:
    """Store calls made by ``times`` calls of ``fn`` (divide by ``times`` for one operation)."""
    with store.measure() as calls:
        for _ in range(times):
            fn()
    return calls


class Row(BaseModel):
    """One row of the benchmark table."""

    id: str
    what: str
    baseline: str
    target: str
    measured: str
    """The headline figure(s), as they appear in the table."""
    met: bool | None = None
    """Whether the target was reached; None where the row only reports (no target)."""
    store_calls: dict[str, float] | None = None
    """Store calls per operation, by method."""
    note: str = ""
    figures: dict[str, Any] = Field(default_factory=dict)
    """Every number behind the row, for the JSON file."""
    plots: list[str] = Field(default_factory=list)


class BenchResults(BaseModel):
    date: str
    command: str
    python: str = Field(default_factory=platform.python_version)
    machine: str = Field(default_factory=lambda: f"{platform.system()} {platform.machine()}")
    cpus: int
    elapsed_s: float = 0.0
    rows: list[Row] = Field(default_factory=list)


def fmt_ratio(c: Comparison) -> str:
    return f"**{c.ratio_paired:.2f}×** (min/min {c.ratio_min:.2f}×)"


def fmt_calls(calls: dict[str, float] | None) -> str:
    if calls is None:
        return "—"
    if not calls:
        return "0"
    total = sum(calls.values())
    parts = ", ".join(f"{m} {_num(n)}" for m, n in sorted(calls.items()))
    return f"{_num(total)} ({parts})"


def _num(n: float) -> str:
    return str(int(n)) if float(n).is_integer() else f"{n:.2f}"


def fmt_us(seconds: float) -> str:
    if seconds >= 0.1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.1f} µs"


def markdown_table(results: BenchResults) -> str:
    head = (
        "| # | what | baseline | measured | target | store calls / op | verdict |\n"
        "|---|---|---|---|---|---|---|\n"
    )
    lines = []
    for row in results.rows:
        verdict = {True: "met", False: "**missed**", None: "reported"}[row.met]
        cells = [
            row.id,
            row.what,
            row.baseline,
            row.measured,
            row.target,
            fmt_calls(row.store_calls),
            verdict,
        ]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    notes = [f"- **{r.id}**: {r.note}" for r in results.rows if r.note]
    out = head + "\n".join(lines) + "\n"
    if notes:
        out += "\n" + "\n".join(notes) + "\n"
    return out
