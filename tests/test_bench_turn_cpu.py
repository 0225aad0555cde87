"""The CPU-time turn benchmark writes both turn rows at each size asked."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks import bench_turn_cpu


def test_a_small_run_writes_both_turn_rows_with_cpu_ratios(tmp_path: Path) -> None:
    code = bench_turn_cpu.main(
        ["--sizes", "10,20", "--batches", "2", "--number", "3", "--out", str(tmp_path)]
    )
    assert code == 0
    (results,) = tmp_path.glob("turn-cpu-*.json")
    report = json.loads(results.read_text())
    assert report["command"].endswith("--sizes 10,20 --batches 2 --number 3")
    assert set(report["figures"]) == {"chat turn", "chat turn, 60 messages"}
    for by_size in report["figures"].values():
        assert set(by_size) == {"10", "20"}
        for f in by_size.values():
            assert len(f["ratios"]) == 2 and f["ratio_median"] > 0 and f["candidate_cpu_us"] > 0
