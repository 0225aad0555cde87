"""History you can trust: whatever the agent changes can be restored (content no version held
is copied before its first change or delete), and everything read back is checked.

Each runs on local disk, the in-memory store and the moto S3 server (the fixture of
``tests/test_s3.py``)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import errno
import json
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from memfs import FsspecFileStore, InMemoryFileStore, LocalFileStore, MemFS, versions
from memfs.cli import main
from memfs.conflicts import content_sha256
from memfs.errors import VersionError
from memfs.history import History
from memfs.tools import FileToolExecutor
from memfs.versions import (
    GC_GRACE,
    HISTORY_DIR,
    HistoryOptions,
    VersionRecord,
    blob_key,
    record_key,
)

from tests.conftest import TODAY
from tests.test_history import Ticks, memory

try:
    from tests.test_s3 import BUCKET, s3_filesystem, s3_server  # noqa: F401
except pytest.skip.Exception:  # s3fs, moto or boto3 missing: the S3 runs are skipped
    BUCKET = ""

FIXTURES = Path(__file__).parent / "fixtures" / "claude_code"


@pytest.fixture(params=["local", "memory", "s3"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    if request.param == "local":
        return LocalFileStore(tmp_path / "ws")
    if request.param == "memory":
        return InMemoryFileStore()
    if not BUCKET:
        pytest.skip("s3fs, moto and boto3 are needed for the S3 server")
    server = request.getfixturevalue("s3_server")
    root = f"{BUCKET}/items/{uuid.uuid4().hex[:12]}"
    return FsspecFileStore(s3_filesystem(server.endpoint), root=root)


class Clock(Ticks):
    """One second per reading, and ``skip`` moves it on (gc's grace period)."""

    def skip(self, by: dt.timedelta) -> None:
        self.now += by


def mount(
    store: Any, clock: Clock | None = None, *, limit: int | None = None, **kwargs: Any
) -> MemFS:
    """A workspace with history on (``limit``: :attr:`HistoryOptions.inline_limit`)."""
    options = HistoryOptions(now=clock or Clock())
    if limit is not None:
        options = dataclasses.replace(options, inline_limit=limit)
    return MemFS(store, clock=lambda: TODAY, history=options, actor="tester", **kwargs)


def _originals(store: Any) -> dict[str, bytes]:
    """Memory written without history: by a store of history=False, and by another tool."""
    files = {
        "memory/role.md": memory("role", "Process engineer."),
        "memory/plan.md": memory("plan", "Ship on Friday."),
        "MEMORY.md": b"- [Role](memory/role.md) - who\n- [Plan](memory/plan.md) - when\n",
    }
    off = MemFS(store, clock=lambda: TODAY, history=False)
    off.pipe_file("memory/role.md", files["memory/role.md"])
    off.pipe_file("memory/plan.md", files["memory/plan.md"])
    store.write("MEMORY.md", files["MEMORY.md"])  # outside memfs altogether
    return files


# -- copy before first change ------------------------------------------------------------------


@pytest.mark.parametrize("limit", [None, 0], ids=["inline", "blobs"])
def test_what_the_agent_changes_or_deletes_can_be_restored_whatever_wrote_it(
    store: Any, limit: int | None
) -> None:
    originals = _originals(store)
    clock = Clock()
    fs = mount(store, clock, limit=limit)
    agent = FileToolExecutor(fs)
    agent.execute("read_file", {"path": "memory/role.md"})
    agent.execute(
        "write_file", {"path": "memory/role.md", "content": memory("role", "Baker.").decode()}
    )
    agent.execute("read_file", {"path": "MEMORY.md"})
    agent.execute("edit_file", {"path": "MEMORY.md", "old_string": "when", "new_string": "date"})
    agent.execute("delete_file", {"path": "memory/plan.md"})
    h = History(fs)
    for path, first_op, last_op in [
        ("memory/role.md", "unrecorded", "modified"),
        ("MEMORY.md", "unrecorded", "modified"),
        ("memory/plan.md", "unrecorded", "deleted"),
    ]:
        log = h.log(path)
        assert [v.record.operation for v in log.versions] == [first_op, last_op], path
        assert log.versions[0].record.actor == "tester" and not log.unrecorded
        assert h.show(path, log.versions[0].id) == originals[path], path
    # two gc runs, the grace period between them, keep every original restorable
    for _ in range(2):
        h.gc()
        clock.skip(GC_GRACE * 2)
    for path, data in originals.items():
        if limit == 0:  # kept in a blob: gc kept it
            assert store.exists(blob_key(content_sha256(data))), path
        h.restore(path, h.log(path).versions[0].id)
        assert fs.raw.cat_file(path) == data, path


def test_content_another_writer_put_between_two_of_ours_is_kept_too(store: Any) -> None:
    fs = mount(store)
    fs.pipe_file("memory/role.md", memory("role", "one"))
    MemFS(store, clock=lambda: TODAY, history=False).pipe_file(
        "memory/role.md", memory("role", "theirs")
    )
    fs.pipe_file("memory/role.md", memory("role", "three"))  # this fs remembers "one" only
    log = History(fs).log("memory/role.md")
    assert [v.record.operation for v in log.versions] == ["created", "unrecorded", "modified"]
    assert History(fs).show("memory/role.md", log.versions[1].id) == memory("role", "theirs")


def test_recorded_content_gets_no_second_copy(store: Any) -> None:
    clock = Clock()
    fs = mount(store, clock)
    fs.pipe_file("memory/role.md", memory("role", "one"))
    # another process: it looks the content up instead of remembering it
    other = mount(store, clock)
    other.pipe_file("memory/role.md", memory("role", "two"))
    other.rm("memory/role.md")
    ops = [v.record.operation for v in History(fs).log("memory/role.md").versions]
    assert ops == ["created", "modified", "deleted"]


def test_a_move_keeps_the_unrecorded_source(store: Any) -> None:
    originals = _originals(store)
    fs = mount(store)
    fs.mv("memory/plan.md", "memory/schedule.md")
    log = History(fs).log("memory/plan.md")
    assert [v.record.operation for v in log.versions] == ["unrecorded", "deleted"]
    assert History(fs).show("memory/plan.md", log.versions[0].id) == originals["memory/plan.md"]


def test_an_imported_store_the_agent_then_changes_can_be_restored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = tmp_path / "ws"
    assert main(["import", str(FIXTURES / "flat"), str(ws)]) == 0
    imported = {p: (ws / p).read_bytes() for p in ("memory/user_role.md", "memory/reference_ci.md")}
    agent = FileToolExecutor(MemFS(ws, actor="chat turn"))
    agent.execute("read_file", {"path": "memory/user_role.md"})
    agent.execute("write_file", {"path": "memory/user_role.md", "content": "---\nname: x\n---\n"})
    agent.execute("delete_file", {"path": "memory/reference_ci.md"})
    capsys.readouterr()
    for path, data in imported.items():
        assert main(["log", str(ws), path, "--json"]) == 0
        (log,) = json.loads(capsys.readouterr().out)
        first = log["versions"][0]["record"]
        assert first["operation"] == "unrecorded" and first["sha256"] == content_sha256(data)
        assert main(["restore", str(ws), f"{path}@{first['id']}"]) == 0
        assert (ws / path).read_bytes() == data
        capsys.readouterr()


# -- the log command ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "said"),
    [
        (
            "memory/does-not-exist.md",
            "memory/does-not-exist.md has no file and no versions; check the path.",
        ),
        (
            "memory/role.md@abcd",
            "log takes a PATH, not 'memory/role.md@abcd'; `memfs show WORKSPACE PATH@VERSION` "
            "prints one version.",
        ),
    ],
)
def test_log_of_nothing_is_one_line_and_exit_2(tmp_path: Path, path: str, said: str) -> None:
    ws = tmp_path / "ws"
    mount(LocalFileStore(ws)).pipe_file("memory/role.md", memory("role", "Process engineer."))
    done = subprocess.run(
        [sys.executable, "-m", "memfs.cli", "log", str(ws), path],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [f"memfs log: {said}"]


# -- read-only means read-only -------------------------------------------------------------------


def test_every_history_operation_on_a_read_only_mount_refuses_and_changes_nothing(
    store: Any,
) -> None:
    fs = mount(store)
    fs.pipe_file("memory/role.md", memory("role", "one"))
    fs.pipe_file("memory/role.md", memory("role", "two"))
    store.write("memory/old.md", memory("old", "pre-history"))
    first = History(fs).log("memory/role.md").versions[0].id
    before = _everything(store)
    assert any(k.startswith(HISTORY_DIR) for k in before)
    ro = History(fs.read_only())
    attempts = [
        lambda: ro.fs.recorder.record_baseline("memory/old.md", memory("old", "pre-history")),
        lambda: ro.redact("memory/role.md", first),
        lambda: ro.gc(),
        lambda: ro.restore("memory/role.md", first),
    ]
    for attempt in attempts:
        with pytest.raises(PermissionError) as info:
            attempt()
        assert info.value.errno == errno.EROFS
    assert _everything(store) == before


def _everything(store: Any) -> dict[str, bytes]:
    """Every object of the store: the workspace's files and the history's."""
    return {k: store.read(k) for k in [*store.ls(""), *store.ls(HISTORY_DIR)]}


# -- everything read back is checked --------------------------------------------------------------


def _put(store: Any, tmp_path: Path, key: str, data: bytes) -> None:
    """Overwrite a stored object: on disk for the local store (as a fault would), else through
    the store."""
    if isinstance(store, LocalFileStore):
        (tmp_path / "ws" / key).write_bytes(data)
    else:
        store.write(key, data)


def _two_versions(store: Any, limit: int | None = None) -> tuple[MemFS, str, str]:
    """memory/role.md written twice: (fs, the first version's id, its record's key)."""
    fs = mount(store, limit=limit)
    fs.pipe_file("memory/role.md", memory("role", "one"))
    fs.pipe_file("memory/role.md", memory("role", "two"))
    first = History(fs).log("memory/role.md").versions[0]
    return fs, first.id, first.key


def _damage_blob(store: Any, tmp_path: Path, how: str) -> None:
    key = blob_key(content_sha256(memory("role", "one")))
    data = store.read(key)
    data = data[:10] + bytes([data[10] ^ 1]) + data[11:] if how == "flip" else b""
    _put(store, tmp_path, key, data)


def _damage_inline(store: Any, tmp_path: Path, how: str, key: str) -> None:
    """Damage the content a record holds, the record still whole JSON."""
    raw = json.loads(store.read(key))
    text = raw[versions.CONTENT_FIELD]
    if how == "inline-flip":
        text = text[:10] + ("A" if text[10] != "A" else "B") + text[11:]
    else:
        text = text[: len(text) // 2]
    raw[versions.CONTENT_FIELD] = text
    _put(store, tmp_path, key, json.dumps(raw).encode())


def _plant(store: Any, path: str, among: str, version_id: str, data: bytes) -> str:
    """A record naming ``path`` stored among ``among``'s records, its blob stored intact."""
    record = VersionRecord(
        id=version_id,
        path=path,
        operation="created",
        time=dt.datetime(2026, 11, 1, tzinfo=dt.UTC),
        actor="intruder",
        sha256=content_sha256(data),
        size=len(data),
    )
    store.write(blob_key(content_sha256(data)), data)
    key = record_key(among, record.time, version_id)
    store.write(key, record.to_bytes())
    return key


@pytest.mark.parametrize("how", ["flip", "empty", "inline-flip", "inline-cut"])
def test_a_damaged_blob_is_refused_by_show_diff_and_restore_and_the_file_is_untouched(
    store: Any, tmp_path: Path, how: str
) -> None:
    inline = how.startswith("inline")
    fs, first, first_key = _two_versions(store, limit=None if inline else 0)
    if inline:
        _damage_inline(store, tmp_path, how, first_key)
    else:
        _damage_blob(store, tmp_path, how)
    h = History(fs)
    keys = versions.record_keys(store, "memory/role.md")
    for attempt in (
        lambda: h.show("memory/role.md", first),
        lambda: h.diff("memory/role.md", first),
        lambda: h.diff("memory/role.md", h.log("memory/role.md").versions[1].id, first),
        lambda: h.restore("memory/role.md", first),
    ):
        with pytest.raises(VersionError) as info:
            attempt()
        said = str(info.value)
        assert said.startswith(f"the stored content of version {first} of memory/role.md is ")
        assert "damaged" in said and "the live file was not touched" in said
        assert "\n" not in said and ".memfs" not in said
    assert fs.raw.cat_file("memory/role.md") == memory("role", "two")
    assert versions.record_keys(store, "memory/role.md") == keys  # restore recorded nothing
    assert not h.restorable("memory/role.md", memory("role", "one"))
    # the log reads no blob: both versions stay listed, as they were
    assert [v.status for v in h.log("memory/role.md").versions] == ["applied", "current"]


def _plant_damage(store: Any, tmp_path: Path, fs: MemFS, first_key: str) -> dict[str, str]:
    """A record cut in half, one naming ../outside.md (among memory/role.md's records, and
    among its own), one naming an unversioned file: {key: what the reason says}."""
    whole = store.read(first_key)
    _put(store, tmp_path, first_key, whole[: len(whole) // 2])
    fs.raw.pipe_file("notes/x.md", b"live notes\n")
    return {
        first_key: "not JSON",
        _plant(store, "../outside.md", "memory/role.md", "aaaaaaaaaaa1", b"evil\n"): "outside",
        _plant(store, "../outside.md", "../outside.md", "aaaaaaaaaaa2", b"evil\n"): "outside",
        _plant(store, "notes/x.md", "notes/x.md", "aaaaaaaaaaa3", b"planted\n"): "no versions",
    }


def test_damaged_and_foreign_records_are_listed_as_damaged_and_never_used(
    store: Any, tmp_path: Path
) -> None:
    fs, first, first_key = _two_versions(store)
    planted = _plant_damage(store, tmp_path, fs, first_key)
    h = History(fs)
    log = h.log("memory/role.md")
    assert [v.status for v in log.versions] == ["current"]
    listed = {d.key: d.reason for d in log.damaged}
    assert set(listed) == {k for k in planted if "/" + versions.path_key("memory/role.md") in k}
    every = {d.key: d.reason for one in h.log_all() for d in one.damaged}
    assert set(every) == set(planted)
    for key, said in planted.items():
        assert said in every[key], every[key]
    assert {one.path for one in h.log_all() if one.versions} == {"memory/role.md"}
    for path, version in [
        ("memory/role.md", first),
        ("memory/role.md", "aaaaaaaaaaa1"),
        ("notes/x.md", "aaaaaaaaaaa3"),
    ]:
        for attempt in (h.show, h.restore):
            with pytest.raises(VersionError) as info:
                attempt(path, version)
            said = str(info.value)
            assert said.startswith(f"the record of version {version} of {path} is damaged (")
            assert "the live file was not touched" in said and "\n" not in said
    assert fs.raw.cat_file("memory/role.md") == memory("role", "two")
    assert fs.raw.cat_file("notes/x.md") == b"live notes\n"
    assert not (tmp_path / "outside.md").exists()


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memfs.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_cli_refuses_damage_in_one_line_and_its_log_lists_it(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    store = LocalFileStore(ws)
    fs, first, first_key = _two_versions(store, limit=0)
    _damage_blob(store, tmp_path, "flip")
    second = History(fs).log("memory/role.md").versions[1].id
    for command in ("show", "restore"):
        done = _cli(command, str(ws), f"memory/role.md@{first}")
        assert done.returncode == 2 and done.stdout == ""
        (line,) = done.stderr.splitlines()
        assert line.startswith(f"memfs {command}: the stored content of version {first} of ")
        assert "damaged" in line and "the live file was not touched" in line
    planted = _plant_damage(store, tmp_path, fs, first_key)
    for ref in (f"memory/role.md@{first}", "notes/x.md@aaaaaaaaaaa3"):
        done = _cli("restore", str(ws), ref)
        assert done.returncode == 2 and done.stdout == ""
        (line,) = done.stderr.splitlines()
        assert line.startswith("memfs restore: the record of version ") and "damaged" in line
    assert (ws / "memory/role.md").read_bytes() == memory("role", "two")
    assert (ws / "notes/x.md").read_bytes() == b"live notes\n"
    done = _cli("log", str(ws), "--json")
    assert done.returncode == 0, done.stderr
    logs = json.loads(done.stdout)
    assert {d["key"] for one in logs for d in one["damaged"]} == set(planted)
    (role,) = [one for one in logs if one["path"] == "memory/role.md"]
    assert [v["record"]["id"] for v in role["versions"]] == [second]
    done = _cli("log", str(ws))
    assert done.returncode == 0, done.stderr
    text = " ".join(done.stdout.split())
    for key in planted:
        assert f"damaged record {key}:" in text
    done = _cli("log", str(ws), "notes/x.md")
    assert done.returncode == 0 and "damaged" in done.stdout, done.stderr
