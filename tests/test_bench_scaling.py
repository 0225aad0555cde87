"""The scaling benchmark writes its results file and its plot from a run of small stores."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from benchmarks import bench_scaling

pytest.importorskip("matplotlib")


def test_a_small_run_writes_every_path_at_every_size_and_the_plot(tmp_path: Path) -> None:
    png = tmp_path / "scaling.png"
    code = bench_scaling.main(
        [
            *("--sizes", "10,20", "--repeats", "1", "--process-sizes", "20"),
            *("--out", str(tmp_path), "--plot", str(png)),
        ]
    )
    assert code == 0
    (results,) = tmp_path.glob("scaling-*.json")
    figures = json.loads(results.read_text())["figures"]
    assert set(figures) == set(bench_scaling.TARGETS)
    for name, by_size in figures.items():
        # the whole-process rows run only at the sizes asked for them
        assert set(by_size) == ({"10", "20"} if name in bench_scaling.IN_PROCESS else {"20"})
        assert all(f["ratio_paired"] > 0 for f in by_size.values())
    rows = bench_scaling.rows(figures)
    assert [r.id for r in rows] == ["21", "22", "23", "24", "25", "23b"]
    assert png.read_bytes().startswith(b"\x89PNG")


def test_rows_limits_a_run_to_the_rows_named_and_an_unknown_row_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    png = tmp_path / "scaling.png"
    args = ["--sizes", "10", "--repeats", "1", "--process-sizes", "10", "--out", str(tmp_path)]
    code = bench_scaling.main([*args, "--plot", str(png), "--rows", "23b,24"])
    assert code == 0
    (results,) = tmp_path.glob("scaling-*.json")
    report = json.loads(results.read_text())
    assert set(report["figures"]) == {"chat turn, 60 messages", "memfs stats (process)"}
    assert report["command"].endswith("--rows 24,23b") and report["clock"] == "wall"
    with pytest.raises(SystemExit) as exit_:
        bench_scaling.main([*args, "--rows", "23,26"])
    assert exit_.value.code == 2
    assert "--rows: no row 26; the rows are 21, 22, 23, 24, 25, 23b" in capsys.readouterr().err


def test_the_cpu_clock_times_the_in_process_rows_by_this_process_cpu(tmp_path: Path) -> None:
    args = ["--sizes", "10", "--repeats", "1", "--process-sizes", "", "--rows", "22,23"]
    code = bench_scaling.main([*args, "--clock", "cpu", "--out", str(tmp_path)])
    assert code == 0
    (results,) = tmp_path.glob("scaling-cpu-*.json")
    report = json.loads(results.read_text())
    assert report["clock"] == "cpu" and report["command"].endswith("--rows 22,23 --clock cpu")
    assert set(report["figures"]) == {"search_memory", "chat turn"}
    assert all(f["10"]["ratio_paired"] > 0 for f in report["figures"].values())
    assert list(tmp_path.glob("*.png")) == []  # a partial run leaves the docs' plot alone


def test_the_cpu_clock_times_the_whole_processes_by_their_own_cpu(tmp_path: Path) -> None:
    args = ["--sizes", "10", "--repeats", "1", "--process-sizes", "10", "--rows", "25"]
    code = bench_scaling.main([*args, "--clock", "cpu", "--out", str(tmp_path)])
    assert code == 0
    (results,) = tmp_path.glob("scaling-cpu-*.json")
    figures = json.loads(results.read_text())["figures"]
    grep = figures["memfs grep (process)"]["10"]
    # a child's CPU time, not this process's (which is ~0 while it waits for the child)
    assert grep["candidate"]["median_s"] > 0.01
    assert grep["ratio_paired"] > 1


def test_children_cpu_counts_the_cpu_of_a_child_waited_for() -> None:
    import subprocess
    import sys

    from benchmarks.bench_startup import children_cpu

    before = children_cpu()
    subprocess.run([sys.executable, "-c", "sum(range(3_000_000))"], check=True)
    assert children_cpu() - before > 0.02
