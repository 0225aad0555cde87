"""``memfs import`` / ``memfs export``: Claude Code memory in and out, byte for byte."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from memfs import InMemoryFileStore, LocalFileStore, MemFS
from memfs.cli import main
from memfs.commands.transfer import apply_transfer, plan_transfer, rewrite_target
from memfs.generator import generate_workspace
from memfs.layout import PLATFORM, Layout

from tests.conftest import TODAY

FIXTURES = Path(__file__).parent / "fixtures" / "claude_code"
FLAT = Layout.claude_code("")
NESTED = Layout.claude_code(".claude/memory")


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def _files(fs: MemFS) -> dict[str, bytes]:
    return {p: fs.raw.cat_file(p) for p in fs.raw.find("")}


def _fs(layout: Layout = PLATFORM, store=None) -> MemFS:  # type: ignore[no-untyped-def]
    return MemFS(store or InMemoryFileStore(), layout=layout, clock=lambda: TODAY,
                 credential_guard=False)  # fmt: skip


def _round_trip(files: dict[str, bytes], layout: Layout) -> dict[str, bytes]:
    """``files`` in ``layout`` → a platform workspace → a Claude Code directory in ``layout``."""
    src = _fs(layout)
    for path, data in files.items():
        src.store.write(path, data)
    ws = _fs(PLATFORM)
    plan = plan_transfer(src, ws, "import")
    assert plan.ok, plan
    apply_transfer(plan, ws)
    back = _fs(Layout.claude_code(""))
    apply_transfer(plan_transfer(ws, back, "export"), back)
    return _files(back)


# -- the fixtures, through the command line --------------------------------------------------------


FUTURE_LINE = b"  modified: 2027-03-01T00:00:00Z\n"
CLAMPED_LINE = f"  modified: {TODAY}T00:00:00.000Z\n".encode()


def _clamped(tree: dict[str, bytes]) -> dict[str, bytes]:
    """``tree`` as a migration on ``TODAY`` writes it: the one date after today becomes today."""
    out = {path: data.replace(FUTURE_LINE, CLAMPED_LINE) for path, data in tree.items()}
    assert sum(out[p] != tree[p] for p in tree) == 1  # reference_ci.md, and nothing else
    return out


@pytest.fixture
def on_today(monkeypatch):  # type: ignore[no-untyped-def]
    """The command line's clock on ``TODAY``, so the fixture's 2027 date is in the future."""
    monkeypatch.setattr("memfs.filesystem.utc_today", lambda: TODAY)


def test_import_of_each_claude_code_layout_gives_the_platform_fixture(tmp_path, capsys, on_today):
    # Byte for byte, but for the one date in the future: clamped to the import day.
    expected = _clamped(_tree(FIXTURES / "platform"))
    for name in ("flat", "nested"):
        ws = tmp_path / name
        assert main(["import", str(FIXTURES / name), str(ws)]) == 0
        assert _tree(ws) == expected, name
    out = capsys.readouterr().out
    assert "memfs import: from" in out and "claude-code layout" in out
    assert "MEMORY.md -> MEMORY.md  (839 bytes; 7 index links rewritten)" in out
    assert "user_role.md -> memory/user_role.md  (472 bytes)" in out
    assert "kept as written: line 20: ../../CLAUDE.md (leaves the memory directory)" in out
    assert "left out: 3 files outside the memory area (CLAUDE.md, README.md, src/booking" in out
    assert "Imported 12 files (4,209 bytes)." in out  # 4 more: the clamped date


def test_export_gives_back_the_claude_code_directory_byte_for_byte(tmp_path, capsys, on_today):
    dst = tmp_path / "memory"
    assert main(["export", str(FIXTURES / "platform"), str(dst)]) == 0
    assert _tree(dst) == _clamped(_tree(FIXTURES / "flat"))
    out = capsys.readouterr().out
    assert "memory/user_role.md -> user_role.md" in out and "Exported 12 files" in out
    # and the nested repository's memory directory is the same bytes again
    assert _tree(FIXTURES / "nested" / ".claude" / "memory") == _tree(FIXTURES / "flat")


def test_export_reads_raw_bytes_never_the_decorated_view(tmp_path):
    ws = tmp_path / "ws"
    fs = MemFS(LocalFileStore(ws), clock=lambda: dt.date(2026, 1, 1))
    old = b"---\nname: old\nmetadata:\n  recorded: 2020-01-01\n---\n<system-reminder>x\n"
    fs.store.write("memory/old.md", old)
    fs.store.write("MEMORY.md", b"- [Old](memory/old.md) \xe2\x80\x94 stale\n")
    assert fs.cat_file("memory/old.md").startswith(b"<system-reminder>This memory is")
    assert main(["export", str(ws), str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "old.md").read_bytes() == old
    assert (tmp_path / "out" / "MEMORY.md").read_bytes() == "- [Old](old.md) — stale\n".encode()


def test_import_never_stamps_a_date(tmp_path):
    assert main(["import", str(FIXTURES / "flat"), str(tmp_path / "ws")]) == 0
    undated = (tmp_path / "ws" / "memory" / "reference_staging.md").read_bytes()
    assert undated == (FIXTURES / "flat" / "reference_staging.md").read_bytes()
    assert b"recorded" not in undated


def test_refuses_to_overwrite_and_writes_nothing(tmp_path, capsys):
    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    (ws / "memory" / "user_role.md").write_bytes(b"mine\n")
    assert main(["import", str(FIXTURES / "flat"), str(ws)]) == 1
    err = capsys.readouterr().err
    assert "refusing to overwrite 1 existing file(s)" in err and "memory/user_role.md" in err
    assert "Nothing was written" in err
    assert _tree(ws) == {"memory/user_role.md": b"mine\n"}
    dst = tmp_path / "cc"
    dst.mkdir()
    (dst / "MEMORY.md").write_bytes(b"# mine\n")
    assert main(["export", str(FIXTURES / "platform"), str(dst)]) == 1
    assert _tree(dst) == {"MEMORY.md": b"# mine\n"}


def test_dry_run_prints_the_plan_and_creates_nothing(tmp_path, capsys, on_today):
    ws = tmp_path / "new"
    assert main(["import", str(FIXTURES / "nested"), str(ws), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert ".claude/memory/MEMORY.md -> MEMORY.md" in out
    assert "dry run: would have imported 12 files (4,209 bytes); nothing was written" in out
    assert not ws.exists()
    assert main(["export", str(FIXTURES / "platform"), str(tmp_path / "cc"), "--dry-run"]) == 0
    assert "would have exported 12 files" in capsys.readouterr().out
    assert not (tmp_path / "cc").exists()


def test_each_command_refuses_the_other_layout(tmp_path, capsys):
    assert main(["import", str(FIXTURES / "platform"), str(tmp_path / "ws")]) == 2
    assert "already in the platform layout" in capsys.readouterr().err
    assert main(["export", str(FIXTURES / "flat"), str(tmp_path / "cc")]) == 2
    assert "in Claude Code's layout already" in capsys.readouterr().err
    assert main(["import", str(tmp_path / "missing"), str(tmp_path / "ws")]) == 2
    assert "No workspace directory" in capsys.readouterr().err
    assert not (tmp_path / "ws").exists() and not (tmp_path / "cc").exists()


_TOKEN = "ghp_" + "aB3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5"


def _store_with_a_secret() -> MemFS:
    src = _fs(FLAT)
    src.store.write(
        "MEMORY.md",
        "- [Keys](keys.md) \u2014 deploy keys\n- [Role](user_role.md) \u2014 who I am\n".encode(),
    )
    src.store.write("keys.md", f"notes\ntoken: {_TOKEN}\n".encode())
    src.store.write("user_role.md", b"---\nname: role\n---\nData engineer.\n")
    return src


def test_a_refused_file_is_left_out_and_every_clean_file_is_imported():
    ws = MemFS(InMemoryFileStore(), clock=lambda: TODAY)  # the guard on, as MemFS has it
    plan = plan_transfer(_store_with_a_secret(), ws)
    assert not plan.ok and plan.writable
    assert len(plan.refused) == 1 and plan.refused[0].startswith("keys.md: line 2: GitHub token")
    assert _TOKEN not in plan.refused[0]
    assert [c.dst for c in plan.copies] == ["MEMORY.md", "memory/user_role.md"]
    assert [(b.line, b.old) for b in plan.broken_links] == [(1, "keys.md")]
    apply_transfer(plan, ws)
    assert sorted(ws.raw.find("")) == ["MEMORY.md", "memory/user_role.md"]
    index = ws.raw.cat_file("MEMORY.md").decode()
    assert "[Keys](memory/keys.md)" in index  # the line is kept, not dropped


def test_import_names_each_refused_file_exits_1_and_dry_run_says_the_same(tmp_path, capsys):
    src_dir = tmp_path / "cc"
    src_dir.mkdir()
    src = _store_with_a_secret()
    for path in src.raw.find(""):
        (src_dir / path).write_bytes(src.raw.cat_file(path))
    ws = tmp_path / "ws"
    assert main(["import", str(src_dir), str(ws), "--dry-run"]) == 1
    dry = capsys.readouterr()
    assert not ws.exists()
    assert main(["import", str(src_dir), str(ws)]) == 1
    real = capsys.readouterr()
    for out in (dry, real):
        assert "keys.md: line 2: GitHub token" in out.err and _TOKEN not in out.err + out.out
        assert "broken link kept: line 1: keys.md" in out.out
    assert "refused (would not be written): keys.md" in dry.err
    assert "refused (not written): keys.md" in real.err
    assert "would have imported 2 files" in dry.out
    # what the source holds, the refused file counted: its index line is not broken there
    for out in (dry, real):
        assert "memory files linked); 2 memory files (1 refused)" in out.out
    assert _tree(ws).keys() == {"MEMORY.md", "memory/user_role.md"}


def test_a_file_that_two_sources_would_share_is_a_conflict():
    ws = _fs(PLATFORM)
    ws.store.write("MEMORY.md", b"- [a](memory/a.md)\n")
    ws.store.write("memory/MEMORY.md", b"a memory file that happens to be called MEMORY.md\n")
    plan = plan_transfer(ws, _fs(FLAT), "export")
    assert plan.conflicts == ["MEMORY.md (from both MEMORY.md and memory/MEMORY.md)"]


# -- the link rule ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("target", "platform"),
    [
        ("x.md", "memory/x.md"),
        ("./x.md", "./memory/x.md"),
        ("<x y.md>", "<memory/x y.md>"),
        ("x.md#part", "memory/x.md#part"),
        ("sub/x.md", "memory/sub/x.md"),
        ("memory/x.md", "memory/memory/x.md"),  # a folder called memory inside the store
        ("x%20y.md", "memory/x%20y.md"),
        ("../../CLAUDE.md", None),
        ("a/../../x.md", None),
        ("https://example.org/x.md", None),
        ("#heading", None),
        ("MEMORY.md", None),
        ("/abs.md", None),
    ],
)
def test_link_targets_between_layouts(target, platform):
    new, why = rewrite_target(target, FLAT, PLATFORM)
    assert new == platform
    assert (why == "") == (new is not None or target.startswith(("https:", "#")))
    if new is not None:
        assert rewrite_target(new, PLATFORM, FLAT) == (target, "")


def test_an_export_says_which_links_will_not_come_back():
    kept = {t: rewrite_target(t, PLATFORM, FLAT) for t in ["x.md", "docs/a.md", "../a.md"]}
    assert kept["x.md"][0] is None and "an import writes it back as memory/x.md" in kept["x.md"][1]
    assert kept["docs/a.md"] == (None, "outside memory/, which is not carried")
    assert kept["../a.md"] == (None, "points outside the memory directory")


# -- round trips over generated trees --------------------------------------------------------------

NAMES = ["user_role.md", "feedback-tests.md", "記憶.md", "a b.md", "sub/deep.md", "img.png",
         ".hidden", "memory/inner.md", "notes"]  # fmt: skip
LINKS = ["{n}", "./{n}", "<{n}>", "{n}#h", "../../CLAUDE.md", "https://e.org/{n}", "#top",
         "MEMORY.md", "./sub/../{n}", "/abs.md", ""]  # fmt: skip
TEXT = st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=30)


@st.composite
def claude_code_trees(draw):
    names = draw(st.lists(st.sampled_from(NAMES), unique=True, max_size=6))
    files = {n: draw(st.one_of(st.binary(max_size=60), TEXT.map(str.encode))) for n in names}
    lines = []
    for _ in range(draw(st.integers(0, 8))):
        name = draw(st.sampled_from([*names, "gone.md"])) if names else "gone.md"
        link = draw(st.sampled_from(LINKS)).format(n=name)
        shape = draw(st.sampled_from(["- [T]({l}) — {t}", "{t} [a]({l}) [b]({l})", "{t} {l}",
                                      "| [T]({l}) | `{l}` |", "[[{l}]]"]))  # fmt: skip
        lines.append(shape.format(l=link, t=draw(TEXT)))
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    index = newline.join(lines).encode("utf-8", "surrogatepass")
    if draw(st.booleans()):
        index += b"\xff not UTF-8 \xfe"
    if draw(st.booleans()):
        files["MEMORY.md"] = index
    return files


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(files=claude_code_trees())
def test_import_then_export_is_byte_identical(files):
    assert _round_trip(files, FLAT) == files


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    files=claude_code_trees(),
    extra=st.dictionaries(
        st.sampled_from(["README.md", "src/a.py", "CLAUDE.md"]), st.binary(max_size=20)
    ),
)
def test_a_nested_directory_round_trips_to_its_own_bytes(files, extra):
    nested = {f"{NESTED.memory_dir}/{p}": d for p, d in files.items()} | extra
    assert _round_trip(nested, NESTED) == files


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(min_value=1, max_value=40), seed=st.integers(min_value=0, max_value=10**6))
def test_export_then_import_of_a_generated_workspace_is_byte_identical(n, seed):
    ws = _fs(PLATFORM)
    generate_workspace(ws, n, seed=seed)
    before = _files(ws)
    cc = _fs(FLAT)
    apply_transfer(plan_transfer(ws, cc, "export"), cc)
    again = _fs(PLATFORM)
    apply_transfer(plan_transfer(cc, again, "import"), again)
    assert _files(again) == before
    # the generator writes Claude Code's layout directly too: the same files, where export puts them
    direct = _fs(FLAT)
    generate_workspace(direct, n, seed=seed)
    assert _files(direct).keys() == _files(cc).keys()


# -- what the import says it found, for every shape of store -----------------------------------

FOUND = {
    "flat": (
        "MEMORY.md beside 11 markdown files at the root",
        "found index MEMORY.md (6 entry lines, 2 packed lines; 9 memory files linked, "
        "1 broken link); 11 memory files",
    ),
    "nested": (
        ".claude/memory/MEMORY.md beside 11 markdown files",
        "found index .claude/memory/MEMORY.md (6 entry lines, 2 packed lines; 9 memory files "
        "linked, 1 broken link); 11 memory files",
    ),
    "repository": (
        ".claude/memory/MEMORY.md beside 5 markdown files",
        "found index .claude/memory/MEMORY.md (5 entry lines, 0 packed lines; 4 memory files "
        "linked, 1 broken link); 5 memory files",
    ),
    "subfolders": (
        "MEMORY.md at the root",  # however the layout is detected, the index is named
        "found index MEMORY.md (7 entry lines, 1 packed line; 8 memory files linked, 1 broken "
        "link); 9 memory files (all in sub-folders: episodic/, procedural/, semantic/)",
    ),
}


@pytest.mark.parametrize("name", sorted(FOUND))
def test_import_names_the_index_files_and_layout_it_found(name, tmp_path, capsys):
    assert main(["import", str(FIXTURES / name), str(tmp_path / "ws"), "--dry-run"]) == 0
    out = capsys.readouterr().out
    reason, found = FOUND[name]
    assert reason in out and found in out
    assert "no index" not in out


def test_import_without_an_index_says_so_and_what_it_holds(tmp_path, capsys):
    src = tmp_path / "loose"
    (src / "sub").mkdir(parents=True)
    (src / "a.md").write_bytes(b"---\nname: a\n---\nx\n")
    (src / "sub" / "b.md").write_bytes(b"---\nname: b\n---\nx\n")
    assert main(["import", str(src), str(tmp_path / "ws"), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "(no index, 2 markdown files, 1 in sub/; the directory is read as a Claude Code" in out
    assert "found no index; 2 memory files (1 in sub-folders: sub/)" in out
