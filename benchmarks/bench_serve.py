"""Row 20: ``memfs serve``'s overview page at 10,000 memories, rendered server-side.

The candidate is one GET of the overview (figures, one page of 50 memories, the index line by
line) through Starlette's in-process test client, so no network is timed. The baselines, in the
same run: ``collect_stats`` (the figures ``memfs stats`` prints, which the page shows) and the
I/O floor, ``os.walk`` and one read of every file. The issue's target is absolute (≤ 0.3 s a
page); the ratios say where the time goes on the machine the run had.
"""

from __future__ import annotations

from functools import partial

from memfs import LocalFileStore, MemFS, collect_stats

from benchmarks.bench_stats import clear_parse_caches, walk_and_read
from benchmarks.harness import Row, compare, fmt_ratio, fmt_us
from benchmarks.workspaces import Workspaces, bench_clock

TARGET_S = 0.3
N_FILES = 10_000


def run(ws: Workspaces) -> list[Row]:
    from starlette.testclient import TestClient

    from memfs_serve.app import build_app

    root = ws.generated_dir(N_FILES)
    fs = MemFS(LocalFileStore(root), clock=bench_clock)
    client = TestClient(build_app(fs, port=8767), base_url="http://127.0.0.1:8767")

    def page() -> None:
        r = client.get("/")
        assert r.status_code == 200 and f"of {N_FILES:,}".replace(",", "") in r.text

    vs_stats = compare(
        partial(collect_stats, fs),
        page,
        baseline_label="collect_stats",
        candidate_label="GET / (overview)",
        repeats=3,
        number=1,
        setup=clear_parse_caches,
    )
    vs_io = compare(
        partial(walk_and_read, root),
        page,
        baseline_label="os.walk + read every file",
        candidate_label="GET / (overview)",
        repeats=3,
        number=1,
        setup=clear_parse_caches,
    )
    seconds = vs_stats.candidate.median_s
    return [
        Row(
            id="20",
            what=f"`memfs serve` overview page, {N_FILES:,} memories",
            baseline="collect_stats (the same figures); os.walk + read of every file",
            target=f"≤ {TARGET_S} s a page",
            measured=(
                f"{fmt_us(seconds)} a page; {fmt_ratio(vs_stats)} collect_stats, "
                f"{fmt_ratio(vs_io)} os.walk + read"
            ),
            met=seconds <= TARGET_S,
            note=(
                "Every request reads and parses every memory file (the figures are current; the "
                "store protocol has no change time to cache on), so the page costs at least the "
                "figures `memfs stats` computes."
            ),
            figures={"vs_collect_stats": vs_stats.summary(), "vs_walk_read": vs_io.summary()},
        )
    ]


if __name__ == "__main__":
    with Workspaces() as w:
        for row in run(w):
            print(row.model_dump_json(indent=2))
