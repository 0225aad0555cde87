"""``collect_stats`` and ``memfs stats`` / ``memfs cat``: the seed's §4 table, reproduced."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import fsspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from memfs import FsspecFileStore, InMemoryFileStore, LocalFileStore, MemFS
from memfs.cli import main
from memfs.counting import CountingFileStore
from memfs.generator import SEED_INDEX_BYTES, generate_workspace
from memfs.stats import collect_stats

from tests.conftest import TODAY

# The seed's figures (§4.1, §4.3, §4.4, §5) and how close the generated store must come.
SEED: dict[str, Any] = {
    "files": 261,
    "sizes": (975, 3258, 33159),
    "types": {"project": 207, "feedback": 45, "reference": 7, "user": 1},
    "index_lines": 106,
    "index_chars": 17652,
    "hot": 98,
    "packed": 8,
    "folded": 94,
    "orphans": 70,
    "orphan_pct": 27,
    "hot_cost": 131,
    "cold_cost": 49,
    "derived_chars": 32200,
    "derived_ratio": 1.8,
    "without_description": 46,
    "index_tokens": 5860,
}


def _close(value: float, target: float, tolerance: float) -> bool:
    return abs(value - target) <= tolerance * target


@pytest.fixture(scope="module")
def seed_report():
    fs = MemFS(InMemoryFileStore(), clock=lambda: TODAY)
    generate_workspace(fs)
    return collect_stats(fs)


def test_memory_files_match_the_seed(seed_report):
    r = seed_report
    assert r.memory_files == SEED["files"]
    assert (r.sizes.min, r.sizes.median, r.sizes.max) == SEED["sizes"]
    assert {t: r.types[t] for t in SEED["types"]} == SEED["types"]
    assert r.types["none"] == 1  # the seed's type counts sum to 260 of 261
    assert r.without_description == SEED["without_description"]
    assert r.name_styles["kebab"] > 0 and r.name_styles["snake"] > 0
    assert {"node_type", "originSessionId"} <= set(r.extra_keys)


def test_index_matches_the_seed(seed_report):
    ix = seed_report.index
    assert ix.exists
    assert ix.lines == SEED["index_lines"]
    assert ix.chars == SEED["index_chars"]
    assert _close(ix.bytes, SEED_INDEX_BYTES, 0.05)
    assert ix.hot_lines == SEED["hot"]
    assert ix.packed_lines == SEED["packed"]
    assert abs(ix.folded - SEED["folded"]) <= 2
    assert ix.orphans == SEED["orphans"]
    assert round(ix.orphan_pct) == SEED["orphan_pct"]
    assert ix.linked == SEED["files"] - SEED["orphans"]
    assert ix.broken_links == 0
    assert _close(ix.hot_chars_per_entry, SEED["hot_cost"], 0.10)
    assert _close(ix.cold_chars_per_memory, SEED["cold_cost"], 0.10)
    # The seed's 5,860 came from the platform's estimator on the real index: same magnitude.
    assert _close(ix.estimated_tokens, SEED["index_tokens"], 0.10)
    assert ix.estimated_tokens_with_margin == round(ix.estimated_tokens * 1.1 + 0.499999)


def test_rejected_derived_index_costs_what_the_seed_measured(seed_report):
    d = seed_report.derived_index
    assert d.lines == SEED["files"]
    assert d.files_without_description == SEED["without_description"]
    assert _close(d.chars, SEED["derived_chars"], 0.10)
    assert d.ratio_to_curated is not None and _close(
        d.ratio_to_curated, SEED["derived_ratio"], 0.15
    )


def test_ages_follow_the_reminder_rule(seed_report):
    a = seed_report.ages
    assert a.today == TODAY
    assert a.with_date == 261 and a.without_date == 0
    assert a.would_get_reminder == sum(n for k, n in a.buckets.items() if k != "0-1 days")
    assert sum(a.buckets.values()) == 261
    assert a.oldest_days is not None and a.oldest_days <= 75


def test_one_ls_and_one_read_per_file_and_no_writes():
    inner = InMemoryFileStore()
    generate_workspace(MemFS(inner, clock=lambda: TODAY), 30)
    counting = CountingFileStore(inner)
    fs = MemFS(counting, clock=lambda: TODAY)
    with counting.measure() as calls:
        report = collect_stats(fs)
    assert calls.counts == {"ls": 1, "read": 31}
    assert report.memory_files == 30


def test_drift_broken_links_and_dates(memfs):
    raw = memfs.raw
    memfs.store.write("memory/a.md", b"---\nname: a\ndescription: d\nmetadata:\n  type: user\n"
                      b"  recorded: 2026-11-30\n---\nsee [[ghost]]\n")  # fmt: skip
    memfs.store.write("memory/b_c.md", b"no frontmatter here\n")
    memfs.store.write("memory/broken.md", b"---\nname: [x\n---\nbody\n")
    memfs.store.write("memory/future.md", b"---\nname: future\nmetadata:\n  type: odd\n"
                      b"  recorded: 2027-01-01\n---\n")  # fmt: skip
    memfs.store.write("notes.md", b"not memory")
    memfs.store.write(
        "MEMORY.md",
        "# Memory\n- [A](memory/a.md) — hook\n- old: [B](memory/b_c.md), [gone](memory/gone.md)\n"
        "- [Missing](memory/missing.md) — never written\n".encode(),
    )
    r = collect_stats(raw)
    assert r.memory_files == 4
    assert r.types == {"user": 1, "feedback": 0, "project": 0, "reference": 0, "none": 2, "odd": 1}
    assert r.no_frontmatter == 1 and r.unparseable_frontmatter == 1
    assert r.worth_writing == 1
    assert r.index.hot_lines == 2 and r.index.packed_lines == 1 and r.index.folded == 2
    assert r.index.other_lines == 1
    assert r.index.broken_paths == ["memory/gone.md", "memory/missing.md"]
    assert r.index.orphan_paths == ["memory/broken.md", "memory/future.md"]
    assert r.index.linked == 2
    assert r.ages.with_date == 2 and r.ages.future_dated == 1
    assert r.ages.would_get_reminder == 0  # one day old is fresh; the future one is not stale
    assert r.name_styles == {"kebab": 3, "snake": 1, "other": 0}


def test_empty_workspace(memfs):
    r = collect_stats(memfs)
    assert r.memory_files == 0
    assert not r.index.exists and r.index.chars == 0
    assert r.derived_index.chars == 0 and r.derived_index.ratio_to_curated is None
    assert r.sizes.max == 0 and r.ages.median_days is None


def test_index_that_is_not_utf8_still_reports(memfs):
    memfs.store.write("MEMORY.md", b"- [a](memory/a.md) \xff hook\n")
    r = collect_stats(memfs)
    assert r.index.exists and r.index.hot_lines == 1 and r.index.broken_links == 1


def _local_seed_store(tmp_path, n=40):
    root = tmp_path / "ws"
    generate_workspace(MemFS(LocalFileStore(root), clock=lambda: TODAY), n)
    return root


def test_cli_json_and_table(tmp_path, capsys):
    root = _local_seed_store(tmp_path)
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    assert main(["stats", str(root), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["memory_files"] == 40
    assert data["index"]["orphans"] == len(data["index"]["orphan_paths"])
    assert main(["stats", str(root), "--list"]) == 0
    out = capsys.readouterr().out
    assert "MEMORY.md" in out and "orphans" in out and "rejected" in out
    assert out.count("orphan  memory/") == data["index"]["orphans"]
    after = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    assert after == before  # it reports; it never rewrites


def test_cli_on_an_fsspec_url(capsys):
    mem = fsspec.filesystem("memory")
    url = "memory://stats-cli-ws"
    generate_workspace(MemFS(FsspecFileStore(url), clock=lambda: TODAY), 20)
    try:
        assert main(["stats", url, "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["memory_files"] == 20
    finally:
        mem.rm("/stats-cli-ws", recursive=True)


def test_cli_missing_workspace_is_an_error_and_creates_nothing(tmp_path, capsys):
    missing = tmp_path / "nope"
    assert main(["stats", str(missing)]) == 2
    assert "No workspace directory" in capsys.readouterr().err
    assert not missing.exists()


def test_cat_decorated_raw_and_refusals(tmp_path, capsysbinary):
    root = tmp_path / "ws"
    fs = MemFS(LocalFileStore(root), clock=lambda: dt.date(2026, 1, 1))
    fs.pipe_file("memory/role.md", b"---\nname: role\nmetadata:\n  type: user\n---\nbody\n")
    assert main(["cat", str(root), "memory/role.md"]) == 0
    decorated = capsysbinary.readouterr().out
    assert decorated.startswith(b"<system-reminder>This memory is ")
    assert main(["cat", str(root), "memory/role.md", "--raw"]) == 0
    raw = capsysbinary.readouterr().out
    assert raw == (root / "memory" / "role.md").read_bytes()
    assert decorated.endswith(raw)
    assert main(["cat", str(root), "../outside.md"]) == 1
    assert b"'..' segments are not allowed" in capsysbinary.readouterr().err
    assert main(["cat", str(root), "memory/none.md"]) == 1
    assert b"No such file" in capsysbinary.readouterr().err


def test_scaled_store_keeps_the_proportions():
    fs = MemFS(InMemoryFileStore(), clock=lambda: TODAY)
    generate_workspace(fs, 522)
    r = collect_stats(fs)
    assert abs(r.index.orphan_pct - 27) <= 2
    assert _close(r.index.chars, 2 * SEED["index_chars"], 0.01)
    assert _close(r.derived_index.chars, 2 * SEED["derived_chars"], 0.10)
    assert r.types["project"] == 414 and r.without_description == 92


_NAMES = st.sampled_from(["memory/a.md", "memory/b_c.md", "memory/sub/d.md", "MEMORY.md", "x.md"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(_NAMES, st.one_of(st.binary(max_size=300), st.text(max_size=300))))
def test_fuzz_any_workspace_content_reports(files):
    store = InMemoryFileStore()
    for path, data in files.items():
        store.write(
            path, data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass")
        )
    r = collect_stats(MemFS(store, clock=lambda: TODAY))
    memory = [p for p in files if p.startswith("memory/")]
    assert r.memory_files == len(memory)
    assert r.index.exists == ("MEMORY.md" in files)
    assert r.index.linked + r.index.orphans == len(memory)
