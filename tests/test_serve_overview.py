"""``memfs serve``'s overview keeps each memory's parse between requests: what it shows must stay
what ``memfs stats`` reports after any change, made through MemFS or straight on disk."""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
import re
from collections.abc import Hashable
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("jinja2")
from memfs import InMemoryFileStore, LocalFileStore, MemFS, MemoryRecord, collect_stats
from starlette.testclient import TestClient

from memfs_serve import views
from memfs_serve.app import build_app

TODAY = dt.date(2026, 12, 1)
PORT = 8767
BASE = f"http://127.0.0.1:{PORT}"


def note(name: str, description: str, date: str = "2026-11-30") -> bytes:
    return (
        f"---\nname: {name}\ndescription: {description}\nmetadata:\n  type: project\n"
        f"  recorded: {date}\n---\n{description}.\n"
    ).encode()


class CountingLocalStore(LocalFileStore):
    """A local store that counts its reads (the capability flags are inherited)."""

    reads: list[str]

    def read_versioned(self, path: str) -> tuple[bytes, Hashable | None]:
        self.reads.append(path)
        return super().read_versioned(path)


@pytest.fixture
def local(tmp_path: Path) -> MemFS:
    store = CountingLocalStore(str(tmp_path / "ws"))
    store.reads = []
    fs = MemFS(store, clock=lambda: TODAY)
    for i in range(5):
        fs.pipe_file(f"memory/n{i}.md", note(f"n{i}", f"note {i}"))
    fs.pipe_file(
        "MEMORY.md", b"- [n0](memory/n0.md) - first\n- [[n1]] by name\n- [gone](memory/gone.md)\n"
    )
    return fs


def uncached(fs: MemFS) -> views.Overview:
    return views.overview(fs, per_page=1000)


def same_as_stats(fs: MemFS, summaries: views.Summaries) -> views.Overview:
    """The kept overview, checked against ``memfs stats`` and an overview built from nothing."""
    got = views.overview(fs, per_page=1000, summaries=summaries)
    assert dataclasses.asdict(got.report) == dataclasses.asdict(collect_stats(fs))
    fresh = uncached(fs)
    assert got.rows == fresh.rows and got.index_lines == fresh.index_lines
    assert got.orphans == fresh.orphans
    return got


def test_every_change_is_seen_on_the_next_request(local: MemFS, tmp_path: Path) -> None:
    s = views.Summaries()
    disk = tmp_path / "ws" / "memory"
    first = same_as_stats(local, s)
    assert [r.description for r in first.rows][:2] == ["note 0", "note 1"]

    local.pipe_file("memory/n0.md", note("n0", "edited through MemFS"))
    assert same_as_stats(local, s).rows[0].description == "edited through MemFS"

    seen = os.stat(disk / "n1.md").st_ctime_ns
    while os.stat(disk / "n1.md").st_ctime_ns == seen:  # until the clock moved past the last write
        with open(disk / "n1.md", "r+b") as f:  # in place, same inode, same size
            f.seek(note("n1", "note 1").index(b"note 1"))
            f.write(b"NOTE 1")
    assert same_as_stats(local, s).rows[1].description == "NOTE 1"

    (disk / "tmp").write_bytes(note("n2", "replaced on disk", "2026-01-01"))
    os.replace(disk / "tmp", disk / "n2.md")  # an editor's save: a new inode
    row = same_as_stats(local, s).rows[2]
    assert row.description == "replaced on disk" and row.stale

    (disk / "added.md").write_bytes(note("added", "added on disk"))
    assert "memory/added.md" in [r.path for r in same_as_stats(local, s).rows]
    local.pipe_file("memory/new.md", note("new", "added through MemFS"))
    assert "added through MemFS" in [r.description for r in same_as_stats(local, s).rows]

    (disk / "n3.md").unlink()
    local.rm_file("memory/n4.md")
    paths = [r.path for r in same_as_stats(local, s).rows]
    assert "memory/n3.md" not in paths and "memory/n4.md" not in paths

    (tmp_path / "ws" / "MEMORY.md").write_bytes(b"- [added](memory/added.md)\n")
    got = same_as_stats(local, s)
    assert [(line.state, line.targets) for line in got.index_lines] == [
        ("linked", ["memory/added.md"])
    ]


def test_an_unchanged_listing_reads_no_file_and_a_change_reads_that_file(local: MemFS) -> None:
    store = local.store
    assert isinstance(store, CountingLocalStore)
    s = views.Summaries()
    views.overview(local, summaries=s)
    assert len(store.reads) == 6  # five memories and the index
    store.reads.clear()
    again = views.overview(local, summaries=s)
    assert store.reads == [] and again.report.memory_files == 5
    local.pipe_file("memory/n2.md", note("n2", "changed"))
    store.reads.clear()
    views.overview(local, summaries=s)
    assert store.reads == ["memory/n2.md", "MEMORY.md"]


def test_the_server_shows_an_edit_made_on_disk_on_the_next_page(
    local: MemFS, tmp_path: Path
) -> None:
    c = TestClient(build_app(local, port=PORT), base_url=BASE)
    assert "note 3" in c.get("/").text
    (tmp_path / "ws" / "memory" / "n3.md").write_bytes(note("n3", "fixed by a person"))
    page = c.get("/").text
    assert "fixed by a person" in page and "note 3" not in page


def test_a_started_server_has_read_every_memory_before_its_first_request(local: MemFS) -> None:
    store = local.store
    assert isinstance(store, CountingLocalStore)
    store.reads.clear()
    app = build_app(local, port=PORT)
    assert store.reads == []  # building the app reads nothing; starting it does
    with TestClient(app, base_url=BASE) as c:  # runs the lifespan: the server's start-up
        assert sorted(store.reads) == ["MEMORY.md"] + [f"memory/n{i}.md" for i in range(5)]
        store.reads.clear()
        assert "note 3" in c.get("/").text
        assert store.reads == []  # the first page reads no file


def test_a_store_failing_at_start_up_is_reported_by_the_first_page(local: MemFS) -> None:
    store = local.store
    assert isinstance(store, CountingLocalStore)

    def refuse(path: str) -> tuple[bytes, Hashable | None]:
        raise PermissionError(13, "Permission denied", path)

    store.read_versioned = refuse  # type: ignore[method-assign]
    with TestClient(build_app(local, port=PORT), base_url=BASE) as c:  # it starts all the same
        page = c.get("/")
    assert page.status_code == 503
    assert "Permission denied" in page.text and "memory/n0.md" in page.text
    assert "Traceback" not in page.text


def test_a_file_gone_between_the_listing_and_its_read_is_left_out(local: MemFS) -> None:
    class Ghostly(CountingLocalStore):
        def ls_versioned(self, path: str = "") -> dict[str, Hashable]:
            return {**super().ls_versioned(path), "memory/ghost.md": (0, 0, 0, 0, 0)}

    fs = MemFS(Ghostly(local.store.root), clock=lambda: TODAY)  # type: ignore[attr-defined]
    fs.store.reads = []  # type: ignore[attr-defined]
    s = views.Summaries()
    for _ in range(2):  # figures that met a vanished file are not kept: the next request
        got = views.overview(fs, summaries=s)  # tries the file again, and reuses the rest
        assert "memory/ghost.md" not in [r.path for r in got.rows]
        assert dataclasses.asdict(got.report) == dataclasses.asdict(collect_stats(local))
    reads = fs.store.reads  # type: ignore[attr-defined]
    assert reads.count("memory/ghost.md") == 2 and reads.count("memory/n0.md") == 1


def test_a_file_that_changed_while_it_was_read_is_read_again(local: MemFS) -> None:
    class Moving(CountingLocalStore):
        def read_versioned(self, path: str) -> tuple[bytes, Hashable | None]:
            data, version = super().read_versioned(path)
            return data, None if path == "memory/n1.md" else version

    fs = MemFS(Moving(local.store.root), clock=lambda: TODAY)  # type: ignore[attr-defined]
    fs.store.reads = []  # type: ignore[attr-defined]
    s = views.Summaries()
    views.overview(fs, summaries=s)
    fs.store.reads.clear()  # type: ignore[attr-defined]
    local.pipe_file("memory/n0.md", note("n0", "a change elsewhere"))
    views.overview(fs, summaries=s)
    assert sorted(fs.store.reads) == ["MEMORY.md", "memory/n0.md", "memory/n1.md"]  # type: ignore[attr-defined]


def test_a_store_without_versioned_listings_reparses_only_changed_bytes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fs = MemFS(InMemoryFileStore(), clock=lambda: TODAY)
    for i in range(3):
        fs.store.write(f"memory/m{i}.md", note(f"m{i}", f"memo {i}"))
    fs.store.write("MEMORY.md", b"- [m0](memory/m0.md)\n")
    parsed: list[str] = []
    real = views.parse_memory

    def counted(raw: bytes, path: str) -> MemoryRecord:
        parsed.append(path)
        return real(raw, path)

    monkeypatch.setattr(views, "parse_memory", counted)
    s = views.Summaries()
    same_as_stats(fs, s)
    parsed.clear()
    fs.store.write("memory/m1.md", note("m1", "memo one, changed"))
    fs.store.delete("memory/m2.md")
    got = views.overview(fs, summaries=s)
    assert parsed == ["memory/m1.md"]
    assert [r.description for r in got.rows] == ["memo 0", "memo one, changed"]
    assert dataclasses.asdict(got.report) == dataclasses.asdict(collect_stats(fs))


def test_a_new_day_moves_every_age(local: MemFS) -> None:
    day = [TODAY]
    fs = MemFS(local.store, clock=lambda: day[0])
    s = views.Summaries()
    row = views.overview(fs, summaries=s).rows[0]
    assert row.age_days == 0 and not row.stale  # MemFS stamped it today
    day[0] = TODAY + dt.timedelta(days=2)
    row = views.overview(fs, summaries=s).rows[0]
    assert row.age_days == 2 and row.stale  # the reminder's rule: older than one day


def test_index_lines_are_paged_and_orphans_are_a_filter(tmp_path: Path) -> None:
    fs = MemFS(LocalFileStore(str(tmp_path / "ws")), clock=lambda: TODAY)
    for i in range(30):
        fs.store.write(f"memory/o{i:02}.md", note(f"o{i:02}", f"orphan {i:02}"))
    fs.store.write("memory/kept.md", note("kept", "linked"))
    lines = ["- [kept](memory/kept.md)"] + [f"prose line {n}" for n in range(2, 251)]
    fs.store.write("MEMORY.md", ("\n".join(lines) + "\n").encode())
    c = TestClient(build_app(fs, port=PORT), base_url=BASE)
    first = c.get("/").text
    assert "Lines page 1 of 2." in first and "Next index lines" in first
    assert "prose line 200" in first and "prose line 201" not in first
    assert "<dd>30</dd>" in first and "All 30 orphan files" in first
    named = re.findall(r"<li><a href=\"/memory\?path=memory%2F(o\d+)\.md\">", first)
    assert named == [f"o{i:02}" for i in range(20)]  # the first 20 named here
    second = c.get("/?ipage=2").text
    assert "prose line 201" in second and "prose line 250" in second
    assert "Previous index lines" in second and "prose line 200<" not in second
    orphans = c.get("/?orphan=1").text
    assert "30 of 31 memories" in orphans and "orphan 29" in orphans
    assert ">kept<" not in orphans
    assert c.get("/?ipage=x").status_code == 200


def test_a_line_naming_a_memory_by_its_name_is_linked_as_memfs_stats_counts_it(
    tmp_path: Path,
) -> None:
    fs = MemFS(LocalFileStore(str(tmp_path / "ws")), clock=lambda: TODAY)
    fs.store.write("memory/user-role.md", note("Process Engineer", "the role"))
    fs.store.write("MEMORY.md", b"- [[Process Engineer]] the role\n- [[nobody]] gone\n")
    report = collect_stats(fs)
    assert (report.index.linked, report.index.orphans, report.index.broken_links) == (1, 0, 1)
    got = views.overview(fs)
    assert [(line.state, line.targets) for line in got.index_lines] == [
        ("linked", ["memory/user-role.md"]),
        ("broken link", ["memory/nobody.md"]),
    ]
    assert got.orphans == [] and got.orphan_count == 0


def test_without_an_index_and_with_packed_lines_the_lines_are_the_stats_parse(
    tmp_path: Path,
) -> None:
    fs = MemFS(LocalFileStore(str(tmp_path / "ws")), clock=lambda: TODAY)
    fs.store.write("memory/a.md", note("a", "alpha"))
    fs.store.write("memory/b.md", b"---\nname: b\ndescription: beta\n---\nB.\n")
    got = views.overview(fs)
    assert got.index_lines == [] and got.orphan_count == 2
    fs.store.write("MEMORY.md", b"- a: [a](memory/a.md), [b](memory/b.md)\n")
    lines = views.overview(fs).index_lines
    assert [(line.state, line.targets) for line in lines] == [
        ("packed", ["memory/a.md", "memory/b.md"])
    ]
    assert views.overview(fs, where=views.Filter(type_="none")).rows[0].path == "memory/b.md"


def test_an_index_gone_between_the_listing_and_its_read_is_no_index(local: MemFS) -> None:
    class IndexVanishes(CountingLocalStore):
        def read_versioned(self, path: str) -> tuple[bytes, Hashable | None]:
            if path == "MEMORY.md":
                raise FileNotFoundError(path)
            return super().read_versioned(path)

    fs = MemFS(IndexVanishes(local.store.root), clock=lambda: TODAY)  # type: ignore[attr-defined]
    fs.store.reads = []  # type: ignore[attr-defined]
    got = views.overview(fs)
    assert got.index_lines == [] and not got.report.index.exists and got.orphan_count == 5
