"""``collect_stats`` and ``memfs stats`` / ``memfs cat``: the measured store's figures reproduced,
and the same figures for a Claude Code store in each layout."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from pathlib import Path
from typing import Any

import fsspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from memfs import FsspecFileStore, InMemoryFileStore, LocalFileStore, MemFS
from memfs.cli import main
from memfs.commands.transfer import Direction, apply_transfer, plan_transfer
from memfs.counting import CountingFileStore
from memfs.generator import SEED_INDEX_BYTES, generate_workspace
from memfs.layout import PLATFORM, Layout, detect_layout, resolve_layout
from memfs.stats import collect_stats

from tests.conftest import TODAY

# The measured store's figures (sizes, index tiers, index cost, the derived index) and how close
# the generated store must come.
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
    assert r.types["none"] == 1  # the measured store's type counts sum to 260 of 261
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
    # The measured store's 5,860 came from the platform's estimator on the real index: same
    # magnitude.
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


def test_cli_pauses_cyclic_collection_only_for_the_pass(tmp_path, capsys, monkeypatch):
    """`memfs stats` runs its pass with the cyclic collector off and turns it back on, also
    when the pass fails (the command may run inside a longer process, as here)."""
    import gc

    import memfs.commands.stats as stats_command

    root = _local_seed_store(tmp_path)
    seen: list[bool] = []

    def failing(reader, *, files):
        seen.append(gc.isenabled())
        raise PermissionError(13, "Permission denied", "memory/x.md")

    assert gc.isenabled()
    assert main(["stats", str(root), "--json"]) == 0 and gc.isenabled()
    capsys.readouterr()
    monkeypatch.setattr(stats_command, "collect_stats", failing)
    assert main(["stats", str(root)]) == 2
    assert seen == [False] and gc.isenabled()


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
    assert main(["cat", str(root), "../outside.md"]) == 2
    assert b"'..' segments are not allowed" in capsysbinary.readouterr().err
    assert main(["cat", str(root), "memory/none.md"]) == 2
    assert (
        capsysbinary.readouterr().err
        == (
            f"memfs cat: No file 'memory/none.md' in the workspace {root}. Give a path relative to "
            "the workspace root, such as MEMORY.md or memory/user-role.md.\n"
        ).encode()
    )


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


# -- real Claude Code stores: both layouts, the same figures --------------------------------------

FIXTURES = Path(__file__).parent / "fixtures" / "claude_code"
LAYOUTS = {
    "platform": Layout.platform(),
    "flat": Layout.claude_code(""),
    "nested": Layout.claude_code(".claude/memory"),
}


def _fixture_stats(name: str, layout: Layout | None = None):
    fs = MemFS(LocalFileStore(FIXTURES / name), clock=lambda: TODAY)
    layout = layout or detect_layout(fs.raw.find("")).layout
    return collect_stats(MemFS(fs.store, layout=layout, clock=lambda: TODAY, read_only=True))


def _names(layout: Layout, paths: list[str]) -> list[str]:
    return sorted(p[len(layout.memory_dir) + 1 :] if layout.memory_dir else p for p in paths)


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_the_three_layouts_give_the_hand_checked_figures(name):
    r = _fixture_stats(name)
    layout = LAYOUTS[name]
    assert (r.layout, r.memory_dir) == (layout.kind, layout.memory_dir)
    ix = r.index
    # By hand, from tests/fixtures/claude_code/flat/MEMORY.md: six entry lines (user_role,
    # feedback_tests_first, `feedback_style.md` in backticks, the booking-rules table row, the
    # [[project-contracts]] row, deploy_old), two packed lines (no-force-push + the
    # project_migration.md named in its hook; staging + CI), nine memories linked.
    assert (r.memory_files, ix.hot_lines, ix.packed_lines, ix.folded) == (11, 6, 2, 4)
    assert ix.linked == 9
    assert _names(layout, ix.orphan_paths) == ["broken_yaml.md", "notes_orphan.md"]
    assert _names(layout, ix.broken_paths) == ["deploy_old.md"]
    assert r.findings == {"no-description": 2, "no-frontmatter": 1, "not-yaml": 3, "unparseable": 1}
    assert r.files_with_findings == 5  # the two titles used as names are notes, not findings
    assert r.notes == {"name-style": 2, "top-level-type": 3}
    assert (r.read_line_by_line, r.unparseable_frontmatter, r.no_frontmatter) == (3, 1, 1)
    assert r.worth_writing_names == ["release-checklist"]
    a = r.ages
    assert (a.with_date, a.would_get_reminder, a.future_dated) == (8, 7, 0)
    assert a.sources == {
        "metadata.recorded": 1,
        "metadata.modified": 4,
        "updated": 1,
        "created": 2,
    }
    assert ix.claude_code.cut_lines == 0


def test_the_same_store_reads_the_same_in_every_layout():
    reports = {name: _fixture_stats(name) for name in LAYOUTS}

    def comparable(name):
        r, layout = reports[name], LAYOUTS[name]
        d = dataclasses.asdict(r)
        for key in ("workspace", "layout", "memory_dir", "index_path"):
            d.pop(key)
        d["index"]["orphan_paths"] = _names(layout, r.index.orphan_paths)
        d["index"]["broken_paths"] = _names(layout, r.index.broken_paths)
        d["finding_files"] = {k: _names(layout, v) for k, v in r.finding_files.items()}
        for key in ("path", "bytes", "chars", "estimated_tokens", "estimated_tokens_with_margin",
                    "hot_chars_per_entry", "cold_chars_per_memory", "claude_code"):  # fmt: skip
            d["index"].pop(key)  # the platform's links are longer by "memory/"
        d.pop("derived_index")
        return d

    assert comparable("platform") == comparable("flat") == comparable("nested")


def test_pointed_at_the_wrong_layout_the_figures_say_so():
    wrong = _fixture_stats("flat", Layout.platform())
    assert wrong.memory_files == 0 and wrong.index.exists
    # Every link and wikilink, looked for in memory/ (seven links, one wikilink); the two bare
    # names (`feedback_style.md`, project_migration.md) name no memory file there: prose.
    assert wrong.index.broken_links == 8
    # and the style line is prose; the no-force-push line, its hook naming no memory, an entry
    assert (wrong.index.hot_lines, wrong.index.packed_lines, wrong.index.other_lines) == (6, 1, 10)
    moved = _fixture_stats("flat", Layout.claude_code("memory"))
    assert moved.memory_files == 0 and not moved.index.exists


def test_frontmatter_and_date_fixture_figures():
    fm = _fixture_stats("frontmatter")
    assert fm.memory_files == 13 and fm.index.hot_lines == 13 and fm.index.orphans == 0
    assert (fm.read_line_by_line, fm.unparseable_frontmatter, fm.no_frontmatter) == (6, 2, 1)
    assert fm.files_with_findings == 9
    dates = _fixture_stats("dates")
    a = dates.ages
    assert (a.with_date, a.without_date, a.future_dated) == (11, 1, 1)
    assert a.sources == {"metadata.recorded": 1, "metadata.modified": 3, "updated": 2, "created": 4}
    assert a.would_get_reminder == 10  # every dated file but the future one is over a day old


def test_index_fixture_figures_and_what_claude_code_would_cut():
    r = _fixture_stats("index")
    ix = r.index
    assert (r.memory_files, ix.hot_lines, ix.packed_lines, ix.folded) == (13, 9, 2, 5)
    assert (ix.linked, ix.orphan_paths, ix.broken_paths) == (
        12,
        ["nu.md"],
        ["gone.md", "not-yet.md"],
    )
    cc = ix.claude_code
    assert (cc.loaded_lines, cc.cut_lines, cc.cut_paths) == (200, 6, ["mu.md"])
    assert cc.loaded_chars + cc.cut_chars == ix.chars
    assert "mu.md" not in ix.orphan_paths  # cut by Claude Code, still linked: memfs injects it all


def test_claude_code_cuts_at_25000_characters_too(memfs):
    line = "- " + "x" * 997 + "\n"  # 1,000 characters
    memfs.store.write(
        "MEMORY.md", (line * 30 + "- [Late](memory/late.md) — after the cut\n").encode()
    )
    memfs.store.write("memory/late.md", b"---\nname: late\n---\n")
    cc = collect_stats(memfs).index.claude_code
    assert (cc.loaded_lines, cc.loaded_chars, cc.cut_lines) == (25, 25_000, 6)
    assert cc.cut_paths == ["memory/late.md"]


@pytest.mark.parametrize("name", ["flat", "nested", "frontmatter", "dates", "index"])
def test_import_then_stats_reports_the_orphans_of_stats_in_place(name):
    src = MemFS(LocalFileStore(FIXTURES / name), clock=lambda: TODAY)
    layout = detect_layout(src.raw.find("")).layout
    src = MemFS(src.store, layout=layout, read_only=True)
    in_place = _fixture_stats(name)
    ws = MemFS(InMemoryFileStore(), clock=lambda: TODAY, credential_guard=False)
    apply_transfer(plan_transfer(src, ws), ws)
    imported = collect_stats(ws)
    assert _names(layout, in_place.index.orphan_paths) == _names(
        ws.layout, imported.index.orphan_paths
    )
    assert _names(layout, in_place.index.broken_paths) == _names(
        ws.layout, imported.index.broken_paths
    )
    assert (imported.index.hot_lines, imported.index.packed_lines) == (
        in_place.index.hot_lines,
        in_place.index.packed_lines,
    )


# -- counts that survive import: every fixture, in place and in the platform layout ------------

FIXTURE_STORES = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir())


def _layout_independent(r, layout: Layout) -> dict[str, Any]:
    ix = r.index
    return {
        "files": r.memory_files,
        "entries": ix.hot_lines,
        "packed": ix.packed_lines,
        "folded": ix.folded,
        "linked": ix.linked,
        "orphans": _names(layout, ix.orphan_paths),
        "broken": _names(layout, ix.broken_paths),
        "cut": _names(layout, ix.claude_code.cut_paths),
        "cut_memories": ix.claude_code.cut_memories,
        "findings": r.findings,
    }


@pytest.mark.parametrize("name", FIXTURE_STORES)
def test_every_fixture_counts_the_same_in_place_and_in_the_other_layout(name):
    """Files, orphans, broken links and cut memories do not depend on the layout: stats on a
    Claude Code store equal stats after `memfs import`; on the platform one, after export."""
    store = LocalFileStore(FIXTURES / name)
    paths = MemFS(store, read_only=True).raw.find("")
    direction: Direction = "export" if name == "platform" else "import"
    if direction == "export":
        src_layout, dst_layout = PLATFORM, Layout.claude_code("")
    else:  # the layout `memfs import` reads the store in
        src_layout, dst_layout = resolve_layout("claude-code", paths).layout, PLATFORM
    src = MemFS(store, layout=src_layout, clock=lambda: TODAY, read_only=True)
    dst = MemFS(InMemoryFileStore(), layout=dst_layout, clock=lambda: TODAY, credential_guard=False)
    apply_transfer(plan_transfer(src, dst, direction), dst)
    in_place, moved = collect_stats(src), collect_stats(dst)
    assert in_place.memory_files > 0 and in_place.index.exists
    assert _layout_independent(in_place, src_layout) == _layout_independent(moved, dst_layout)


def test_a_store_in_sub_folders_only_links_every_shape_of_name():
    r = _fixture_stats("subfolders", Layout.claude_code(""))
    ix = r.index
    # By hand, from tests/fixtures/claude_code/subfolders/MEMORY.md: seven entries (two links,
    # a broken link, a bare semantic/ path, a backticked file name found in semantic/, a
    # wikilink found by name in semantic/, a bare path ending a sentence), one packed line.
    assert (r.memory_files, ix.hot_lines, ix.packed_lines, ix.other_lines) == (9, 7, 1, 4)
    assert ix.linked == 8
    assert ix.orphan_paths == ["procedural/incident-checklist.md"]
    assert ix.broken_paths == ["episodic/2026-09-offsite.md"]
    # "description: Launch day: the queue …", unquoted; the outage note carries no type
    assert r.findings == {"no-type": 1, "not-yaml": 2}
    assert r.ages.sources == {"metadata.recorded": 1, "metadata.modified": 2, "created": 1,
                              "metadata.created": 1}  # fmt: skip


def test_repository_files_named_in_a_claude_memory_index_are_not_memories():
    r = _fixture_stats("repository")
    assert (r.layout, r.memory_dir) == ("claude-code", ".claude/memory")
    ix = r.index
    # CLAUDE.md, BACKLOG.md, docs/plan.md, =SERVER-SETUP-GUIDE.md. and
    # `strategy/market-research-corpus.md` name repository files: prose, not broken links and
    # not entries; [Project instructions](../../CLAUDE.md) leaves the memory area. The one
    # broken link is a memory the index still lists.
    assert ix.broken_paths == [".claude/memory/project_old_vendor.md"]
    assert (r.memory_files, ix.hot_lines, ix.packed_lines, ix.other_lines) == (5, 5, 0, 8)
    assert ix.orphan_paths == [".claude/memory/notes_unlinked.md"]
    assert ix.linked == 4  # THEME-HISTORY.md, named twice on its line (`…` and =…(git)
    assert r.read_line_by_line == 3  # unquoted ": " in three descriptions, one file in CRLF
    assert r.ages.sources == {"metadata.modified": 2, "metadata.created": 2}
    assert r.ages.without_date == 1


def test_cli_stats_in_place_detects_a_sub_folder_store():
    from memfs.cli_workspace import open_workspace

    _, found = open_workspace(str(FIXTURES / "subfolders"), read_only=True)
    assert found.layout == Layout.claude_code("")


def test_cli_detects_the_layout_and_lists_the_files_behind_each_figure(capsys):
    assert main(["stats", str(FIXTURES / "flat"), "--list"]) == 0
    out = capsys.readouterr().out
    assert "  layout  " in out and "claude-code: index MEMORY.md, memory files in" in out
    assert "layout: " not in out and "layout layout" not in out
    assert "MEMORY.md beside 11 markdown files at the root" in out
    for line in [
        "orphan  notes_orphan.md",
        "broken  deploy_old.md",
        "finding not-yaml  feedback_tests_first.md",
        "finding unparseable  broken_yaml.md",
        "note    name-style  feedback_tests_first.md",
        "missing [[release-checklist]]",
    ]:
        assert line in out, line
    assert main(["stats", str(FIXTURES / "index"), "--list"]) == 0
    assert "cut     mu.md" in capsys.readouterr().out
    assert main(["stats", str(FIXTURES / "nested"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["layout"], data["index_path"]) == ("claude-code", ".claude/memory/MEMORY.md")
    assert "no MEMORY.md at the root" in data["layout_reason"]
    assert data["index"]["orphans"] == 2
    assert main(["stats", str(FIXTURES / "flat"), "--layout", "platform", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["memory_files"] == 0 and data["layout_reason"] == "chosen with --layout platform"


def test_the_store_comparison_script_agrees_on_every_fixture(capsys):
    from benchmarks.compare_stores import main as compare_stores

    # A clock after every fixture's dates: a migration clamps a future date (tested on its own),
    # and this checks that nothing else of a store changes on its way in and out.
    assert compare_stores([], today=lambda: dt.date(2100, 1, 1)) == 0
    rows = capsys.readouterr().out.splitlines()[1:]
    assert sorted(r.split(" | ")[0] for r in rows) == [n for n in FIXTURE_STORES if n != "platform"]
    assert all("| yes | bytes" in r for r in rows)


def test_the_real_store_script_names_findings_without_their_values(tmp_path, capsys):
    from benchmarks.real_stores import REAL_STORES, guard_findings
    from benchmarks.real_stores import main as real_stores

    memory = tmp_path / "store" / ".claude" / "memory"
    memory.mkdir(parents=True)
    secret = "Zq7!mP2#wLx9vR4t"
    (memory / "MEMORY.md").write_text("- [Admin](admin.md) — the admin page\n")
    (memory / "admin.md").write_text(f"# Admin\n\nThe admin password is `{secret}`.\n")
    (memory / "clean.md").write_text("# Clean\n\nNothing to see.\n")
    scanned, found = guard_findings(tmp_path / "store")
    assert scanned == 3
    assert list(found) == [".claude/memory/admin.md"]
    assert all(hit.startswith("line 3: ") for hit in found[".claude/memory/admin.md"])
    assert real_stores([str(tmp_path / "store")]) == 0
    out = capsys.readouterr().out
    assert "guard: 1 of 3 files with findings" in out and secret not in out
    assert real_stores(["--list"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == len(REAL_STORES) > 0


# -- figures kept between measurements -------------------------------------------------------


def _report(fs: MemFS, kept: Any = None) -> dict[str, Any]:
    """The report over everything ``fs`` holds, with the figures ``kept`` (None: nothing kept)."""
    from memfs.stats import measure, report_over

    m = measure(fs)
    files = set(fs.raw.find(""))
    sizes = [len(data) for data in m.contents.values()]
    index = fs.raw.cat_file("MEMORY.md") if "MEMORY.md" in files else None
    report, _ = report_over(fs, files, m.records, sizes, index, kept)
    assert dataclasses.asdict(report) == dataclasses.asdict(m.report)  # one owner of figures
    return dataclasses.asdict(report)


def test_a_report_after_each_kind_of_change_equals_one_computed_from_nothing() -> None:
    # the whole-store figures (the index's, the derived index's tokens, the names worth
    # writing) are kept from the last report; every change they depend on must be seen
    from memfs import KeptFigures

    fs = MemFS(InMemoryFileStore(), clock=lambda: TODAY)
    fs.pipe_file("memory/a.md", b"---\nname: a\ndescription: first\n---\nSee [[b]].\n")
    fs.pipe_file("memory/b.md", b"---\nname: Bee Keeper\ndescription: second\n---\nBody.\n")
    fs.pipe_file("MEMORY.md", b"- [a](memory/a.md) - first\n- [[Bee Keeper]]\n")
    changes = [
        ("memory/b.md", b"---\nname: Bee Keeper\ndescription: second\n---\nMore.\n"),  # body
        ("memory/b.md", b"---\nname: b\ndescription: second\n---\nBody.\n"),  # a name
        ("memory/a.md", b"---\nname: a\ndescription: first\n---\nSee [[c]].\n"),  # a link
        ("MEMORY.md", b"- [a](memory/a.md) - first\n"),  # the index
        ("memory/c.md", b"---\nname: c\ndescription: third\n---\nNew.\n"),  # a new file
    ]
    kept = KeptFigures()
    assert _report(fs, kept) == _report(fs)
    for path, data in changes:
        _report(fs, kept)  # the figures of the state before are kept
        fs.pipe_file(path, data)
        assert _report(fs, kept) == _report(fs), path
    fs.rm_file("memory/c.md")
    assert _report(fs, kept) == _report(fs)


def test_an_edit_of_a_body_does_not_parse_the_index_again(monkeypatch: pytest.MonkeyPatch) -> None:
    import memfs.stats as stats
    from memfs import KeptFigures

    fs = MemFS(InMemoryFileStore(), clock=lambda: TODAY)
    fs.pipe_file("memory/a.md", b"---\nname: a\ndescription: first\n---\nBody.\n")
    fs.pipe_file("MEMORY.md", b"- [a](memory/a.md) - first\n")
    calls: list[int] = []
    real = stats._index_stats

    def counted(*args: Any) -> Any:
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(stats, "_index_stats", counted)
    kept = KeptFigures()
    first = _report(fs, kept)
    fs.pipe_file("memory/a.md", b"---\nname: a\ndescription: first\n---\nA longer body.\n")
    second = _report(fs, kept)
    assert len(calls) == 1 + 2  # measure() inside _report keeps nothing: it parses each time
    assert second["index"] == first["index"] and second["sizes"] != first["sizes"]
    fs.pipe_file("MEMORY.md", b"- [a](memory/a.md) - first, edited\n")
    assert _report(fs, kept)["index"]["bytes"] != first["index"]["bytes"] and len(calls) == 5
