"""Row 20: ``memfs serve``'s overview page at 10,000 memories, rendered server-side.

Each page is one GET of the overview (the figures, one page of 50 memories, one page of the
index) through Starlette's in-process test client, so no network is timed. A server reads and
parses every memory once as it starts (the application's lifespan) and keeps each parse between
requests (:class:`memfs_serve.views.Summaries`), listing the store once a request. Four figures,
each against the baseline that bounds it, in the same run:

* **start-up** (no page target; reported): starting a server, against the I/O floor of what it
  does, ``os.walk`` and one read of every file;
* **first page after start-up**: the first request a started server answers, against the one
  store listing a request makes (``LocalFileStore.ls``);
* **warm**: a request after one that saw the same files, against the same listing;
* **after an edit**: the request after one memory changed through MemFS (that file read and
  parsed again, the figures computed again where their inputs changed), against
  ``collect_stats``, which computes the same figures from nothing.

The target is absolute (≤ 0.3 s for every page request); the ratios say where the time goes.
"""

from __future__ import annotations

import dataclasses
import itertools
import os
from functools import partial

from memfs import LocalFileStore, MemFS, collect_stats

from benchmarks.bench_stats import clear_parse_caches, walk_and_read
from benchmarks.harness import Row, compare, fmt_ratio, fmt_us
from benchmarks.workspaces import Workspaces, bench_clock

TARGET_S = 0.3
N_FILES = 10_000
PORT = 8767


def run(ws: Workspaces) -> list[Row]:
    from starlette.testclient import TestClient

    from memfs_serve import views
    from memfs_serve.app import build_app

    root = ws.generated_dir(N_FILES)
    load_before = os.getloadavg()  # the machine is shared: say how busy it was
    store = LocalFileStore(root)
    fs = MemFS(store, clock=bench_clock, history=False)
    servers: list[TestClient] = []

    def start() -> TestClient:
        """A fresh server, started (its lifespan run): what `memfs serve` does before it listens."""
        c = TestClient(build_app(fs, port=PORT), base_url=f"http://127.0.0.1:{PORT}")
        c.__enter__()
        servers.append(c)
        return c

    def stop_all() -> None:
        while servers:
            servers.pop().__exit__(None, None, None)

    def get(c: TestClient) -> None:
        r = c.get("/")
        assert r.status_code == 200 and f"of {N_FILES} memories" in r.text

    # The page's figures are the ones `memfs stats` reports, kept or not.
    kept = views.overview(fs, summaries=views.Summaries()).report
    assert dataclasses.asdict(kept) == dataclasses.asdict(collect_stats(fs))

    try:
        started = compare(
            partial(walk_and_read, root),
            lambda: start(),
            baseline_label="os.walk + read every file",
            candidate_label="server start-up (every memory read and parsed)",
            repeats=3,
            number=1,
            setup=lambda: (stop_all(), clear_parse_caches()),
        )
        fresh: list[TestClient] = []

        def new_server() -> None:
            stop_all()
            fresh[:] = [start()]

        new_server()  # compare's untimed warm-up call needs one too
        first = compare(
            partial(store.ls, ""),
            lambda: get(fresh[0]),
            baseline_label="LocalFileStore.ls (one listing)",
            candidate_label="GET / (first request after start-up)",
            repeats=5,
            number=1,
            setup=new_server,
        )
        stop_all()
        warm_client = start()
        warm = compare(
            partial(store.ls, ""),
            partial(get, warm_client),
            baseline_label="LocalFileStore.ls (one listing)",
            candidate_label="GET / (warm server)",
            repeats=7,
            number=1,
        )
        edited = sorted(p for p in store.ls("memory"))[N_FILES // 2]
        original = store.read(edited)
        counter = itertools.count()

        def edit() -> None:
            fs.pipe_file(edited, original + f"\nedit {next(counter)}\n".encode())
            clear_parse_caches()

        try:
            after = compare(
                partial(collect_stats, fs),
                partial(get, warm_client),
                baseline_label="collect_stats",
                candidate_label="GET / (one memory edited)",
                repeats=3,
                number=1,
                setup=edit,
            )
        finally:
            store.write(edited, original)  # the shared fixture as it was
    finally:
        stop_all()
    pages = {
        "first request after start-up": first.candidate.median_s,
        "warm": warm.candidate.median_s,
        "after one edit": after.candidate.median_s,
    }
    slowest = max(pages.values())
    return [
        Row(
            id="20",
            what=f"`memfs serve` overview page, {N_FILES:,} memories",
            baseline=(
                "start-up: os.walk + read of every file; first and warm page: one store "
                "listing; after an edit: collect_stats"
            ),
            target=f"≤ {TARGET_S} s a page (every request)",
            measured=(
                f"first page after start-up {fmt_us(first.candidate.median_s)} "
                f"({fmt_ratio(first)} one listing); warm {fmt_us(warm.candidate.median_s)} "
                f"({fmt_ratio(warm)} one listing); after one edit "
                f"{fmt_us(after.candidate.median_s)} ({fmt_ratio(after)} collect_stats); "
                f"start-up {fmt_us(started.candidate.median_s)} ({fmt_ratio(started)} "
                "os.walk + read)"
            ),
            met=slowest <= TARGET_S,
            note=(
                "A server reads and parses every memory as it starts, before it listens, and "
                "keeps each parse under the version the store's listing gives it and the "
                "whole-store figures under what they depend on (memfs.KeptFigures): every "
                "request, the first included, is one listing and one page; a request after an "
                "edit of one memory reads that file and recomputes only the figures whose "
                "inputs changed. The cost of reading every file moved to start-up, where it is "
                "reported, not gated."
            ),
            figures={
                "start_up_vs_walk_read": started.summary(),
                "first_request_vs_listing": first.summary(),
                "warm_vs_listing": warm.summary(),
                "after_edit_vs_collect_stats": after.summary(),
                "pages_s": pages,
                "load_average_1_5_15_min": {"before": load_before, "after": os.getloadavg()},
            },
        )
    ]


if __name__ == "__main__":
    with Workspaces() as w:
        for row in run(w):
            print(row.model_dump_json(indent=2))
