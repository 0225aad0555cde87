"""The benchmark harness: ratios, store-call counting and the results table."""

from __future__ import annotations

import pytest
from benchmarks.harness import (
    BenchResults,
    Comparison,
    Row,
    Timing,
    compare,
    fmt_calls,
    markdown_table,
    store_calls,
)
from memfs import InMemoryFileStore, MemFS
from memfs.counting import CountingFileStore


def _timing(per_batch: list[float]) -> Timing:
    return Timing(
        label="t",
        min_s=min(per_batch),
        median_s=sorted(per_batch)[len(per_batch) // 2],
        repeats=len(per_batch),
        number=1,
        per_batch_s=per_batch,
    )


def test_paired_ratio_is_the_median_of_adjacent_batches():
    # A slow spell hits both sides of the second pair: pairing cancels it.
    c = Comparison(
        baseline=_timing([1.0, 10.0, 1.0]),
        candidate=_timing([2.0, 20.0, 2.0]),
    )
    assert c.ratio_paired == pytest.approx(2.0)
    assert c.ratio_min == pytest.approx(2.0)
    assert c.summary()["ratio_paired"] == 2.0


def test_compare_runs_both_sides_the_same_number_of_times_with_setup_each_batch():
    calls = {"base": 0, "cand": 0, "setup": 0}

    def base() -> None:
        calls["base"] += 1

    def cand() -> None:
        calls["cand"] += 1

    def setup() -> None:
        calls["setup"] += 1

    c = compare(base, cand, baseline_label="b", candidate_label="c", repeats=3, number=5,
                setup=setup)  # fmt: skip
    assert calls["base"] == calls["cand"] == 1 + 3 * 5  # one warm-up call each
    assert calls["setup"] == 6
    assert len(c.baseline.per_batch_s) == len(c.candidate.per_batch_s) == 3
    with pytest.raises(ValueError, match="repeats must be at least 1"):
        compare(base, cand, baseline_label="b", candidate_label="c", repeats=0)


def test_store_calls_counts_one_decorated_read():
    store = CountingFileStore(InMemoryFileStore())
    store.write("memory/a.md", b"---\nname: a\n---\nbody\n")
    fs = MemFS(store)
    calls = store_calls(store, lambda: fs.cat_file("memory/a.md"), times=4)
    assert calls.per_operation(4) == {"read": 1.0}
    assert fmt_calls(calls.per_operation(4)) == "1 (read 1)"
    assert fmt_calls({}) == "0"
    assert fmt_calls(None) == "—"


def test_markdown_table_escapes_pipes_and_lists_notes():
    results = BenchResults(date="2026-12-01", command="make bench", cpus=2)
    results.rows = [
        Row(id="1", what="a | b", baseline="x", target="≤ 1.3×", measured="1.1×", met=True),
        Row(id="7", what="w", baseline="—", target="reported", measured="m", note="a note"),
        Row(id="8", what="w", baseline="y", target="≤ 2×", measured="9×", met=False),
    ]
    table = markdown_table(results)
    assert "| 1 | a \\| b | x | 1.1× | ≤ 1.3× | — | met |" in table
    assert "| 7 | w | — | m | reported | — | reported |" in table
    assert "**missed**" in table
    assert "- **7**: a note" in table
