"""History stays small: blobs are stored compressed (a blob an earlier memfs wrote raw reads
the same), and a default retention prunes each file's records as it changes."""

from __future__ import annotations

from pathlib import Path

import pytest
from memfs import InMemoryFileStore, LocalFileStore, MemFS
from memfs.conflicts import content_sha256
from memfs.errors import VersionError
from memfs.history import History
from memfs.versions import (
    BLOB_MAGIC,
    BLOBS_DIR,
    DEFAULT_RETENTION,
    HistoryOptions,
    VersionRecord,
    blob_key,
    decode_blob,
    inline_content,
    inline_form,
    parse_stored,
    prune_slack,
    record_key,
    record_keys,
    stored_bytes,
)

from tests.test_history import T0, Ticks, memory, mount


def test_blobs_are_stored_compressed_and_read_back_verified(tmp_path: Path) -> None:
    fs = mount(LocalFileStore(tmp_path / "ws"), inline_limit=0)
    data = memory("notes", "The build is green. " * 100)
    fs.pipe_file("memory/notes.md", data)
    stored = fs.store.read(blob_key(content_sha256(data)))
    assert stored.startswith(BLOB_MAGIC) and len(stored) < len(data) // 4
    version = History(fs).log("memory/notes.md").versions[0]
    assert History(fs).show("memory/notes.md", version.id) == data


def test_a_store_an_earlier_memfs_wrote_reads_the_same(tmp_path: Path) -> None:
    # an earlier memfs stored the blob raw and the record as JSON: both read as before
    store = LocalFileStore(tmp_path / "ws")
    old = memory("role", "Process engineer.")
    new = memory("role", "Quality engineer.")
    sha = content_sha256(old)
    store.write(blob_key(sha), old)
    record = VersionRecord(
        id="0123456789ab",
        path="memory/role.md",
        operation="created",
        time=T0,
        sha256=sha,
        size=len(old),
        actor="old-memfs",
    )
    store.write(record_key(record.path, record.time, record.id), record.to_bytes())
    store.write("memory/role.md", old)
    fs = mount(store)
    h = History(fs)
    log = h.log("memory/role.md")
    assert [v.status for v in log.versions] == ["current"] and not log.unrecorded
    assert h.show("memory/role.md", "0123") == old
    fs.pipe_file("memory/role.md", new)
    assert len(h.log("memory/role.md").versions) == 2  # the old version needed no baseline
    h.restore("memory/role.md", "0123")
    assert fs.raw.cat_file("memory/role.md") == old


@pytest.mark.parametrize("damage", ["flip", "cut", "raw-flip"])
def test_a_damaged_blob_of_either_form_is_refused(damage: str) -> None:
    fs = mount(InMemoryFileStore(), inline_limit=0)
    one, two = memory("role", "one " * 50), memory("role", "two")
    fs.pipe_file("memory/role.md", one)
    fs.pipe_file("memory/role.md", two)
    key = blob_key(content_sha256(one))
    stored = fs.store.read(key)
    if damage == "flip":  # a byte of the compressed stream
        stored = stored[:-3] + bytes([stored[-3] ^ 1]) + stored[-2:]
    elif damage == "cut":
        stored = stored[: len(stored) // 2]
    else:  # an earlier memfs's raw blob with a byte flipped
        stored = bytes([one[0] ^ 1]) + one[1:]
    fs.store.write(key, stored)
    assert decode_blob(stored, content_sha256(one)) is None
    h = History(fs)
    first = h.log("memory/role.md").versions[0].id
    with pytest.raises(VersionError, match="damaged"):
        h.restore("memory/role.md", first)
    assert fs.raw.cat_file("memory/role.md") == two


@pytest.mark.parametrize("kind", ["local", "memory"])
def test_small_content_is_held_in_its_record_and_large_content_in_a_blob(
    tmp_path: Path, kind: str
) -> None:
    from tests.conftest import make_store

    fs = mount(make_store(kind, tmp_path), inline_limit=200)
    small = memory("notes", "The build is green. " * 100)  # 2 KB, compresses far below 200
    large = memory("big", "".join(f"{i:08x} " for i in range(2000)))
    fs.pipe_file("memory/notes.md", small)
    fs.pipe_file("memory/big.md", large)
    assert fs.store.ls(BLOBS_DIR) == [blob_key(content_sha256(large))]
    (key,) = record_keys(fs.store, "memory/notes.md")
    record, inline = parse_stored(fs.store.read(key))
    assert inline is not None and record.sha256 == content_sha256(small)
    assert len(fs.store.read(key)) < len(small) // 4
    h = History(fs)
    for path, data in (("memory/notes.md", small), ("memory/big.md", large)):
        assert h.show(path, h.log(path).versions[0].id) == data
    # a version found by its key alone (not read by this History's log) reads the same
    version = History(fs).log("memory/notes.md").versions[0]
    assert History(fs).content(version) == small


def test_a_record_whose_content_is_not_text_is_damaged() -> None:
    record = VersionRecord(id="0123456789ab", path="memory/a.md", operation="created", time=T0)
    stored = stored_bytes(record, "eJwDAAAAAAE=")
    assert parse_stored(stored)[1] == "eJwDAAAAAAE="
    broken = stored.replace(b'"eJwDAAAAAAE="', b"12")
    with pytest.raises(ValueError, match="content_zlib"):
        parse_stored(broken)
    assert inline_content("not base64!", content_sha256(b"")) is None
    assert inline_content("eJwDAAAAAAE=", content_sha256(b"")) == b""
    assert inline_form(b"x", 0) is None


def test_a_raw_blob_that_starts_like_a_compressed_one_still_reads() -> None:
    data = BLOB_MAGIC + b"not a zlib stream"
    assert decode_blob(data, content_sha256(data)) == data


def test_history_is_bounded_by_default() -> None:
    assert HistoryOptions().prune_on_write and HistoryOptions().retention == DEFAULT_RETENTION
    keep = DEFAULT_RETENTION.keep
    assert keep == 50
    fs = MemFS(InMemoryFileStore(), history=HistoryOptions(now=Ticks()))
    counts = []
    for i in range(3 * keep):
        fs.pipe_file("memory/a.md", memory("a", f"v{i}"))
        counts.append(len(record_keys(fs.store)))
    assert max(counts) == keep + prune_slack(keep) and counts[-1] >= keep
    log = History(fs).log("memory/a.md")
    assert log.versions[-1].status == "current" and not log.unrecorded
    assert History(fs).show("memory/a.md", log.versions[-1].id) == fs.raw.cat_file("memory/a.md")


def test_pruning_lists_a_file_once_per_slack_not_per_change() -> None:
    listed: list[str] = []

    class Listing(InMemoryFileStore):
        def ls(self, path: str = "") -> list[str]:
            listed.append(path)
            return super().ls(path)

    fs = MemFS(Listing(), history=HistoryOptions(now=Ticks()))
    for i in range(60):
        fs.pipe_file("memory/a.md", memory("a", f"v{i}"))
    # one listing when the file is first counted, one per prune (at the 63rd record: none yet)
    assert len(listed) == 1
    for i in range(60, 63):
        fs.pipe_file("memory/a.md", memory("a", f"v{i}"))
    assert len(listed) == 2 and len(record_keys(fs.store)) == DEFAULT_RETENTION.keep


def test_an_age_alone_prunes_on_every_change() -> None:
    from memfs.versions import Retention

    clock = Ticks()
    fs = MemFS(
        InMemoryFileStore(),
        history=HistoryOptions(now=clock, retention=Retention(max_age_days=1)),
    )
    fs.pipe_file("memory/a.md", memory("a", "v0"))
    fs.pipe_file("memory/a.md", memory("a", "v1"))
    clock.now += __import__("datetime").timedelta(days=2)
    fs.pipe_file("memory/a.md", memory("a", "v2"))
    assert len(record_keys(fs.store)) == 1


@pytest.mark.parametrize("kind", ["local", "memory"])
def test_a_record_key_already_taken_gets_a_fresh_id(tmp_path: Path, kind: str) -> None:
    from tests.conftest import make_store
    from tests.test_history import ids

    # one clock reading for every version and an id drawn twice: the second record's key is
    # the first's, so it is stored under the next id (grouped or not)
    fs = mount(
        make_store(kind, tmp_path),
        now=lambda: T0,
        new_id=ids("aaaa00000000", "aaaa00000000", "bbbb00000000"),
    )
    fs.pipe_file("memory/a.md", memory("a", "one"))
    fs.pipe_file("memory/a.md", memory("a", "two"))
    assert [v.id for v in History(fs).log("memory/a.md").versions] == [
        "aaaa00000000",
        "bbbb00000000",
    ]


def test_a_version_whose_blob_is_gone_is_refused() -> None:
    fs = mount(InMemoryFileStore(), inline_limit=0)
    one = memory("a", "one")
    fs.pipe_file("memory/a.md", one)
    fs.pipe_file("memory/a.md", memory("a", "two"))
    fs.store.delete(blob_key(content_sha256(one)))
    h = History(fs)
    with pytest.raises(VersionError, match="missing from the store"):
        h.show("memory/a.md", h.log("memory/a.md").versions[0].id)


def test_a_grouped_write_needs_two_file_paths(tmp_path: Path) -> None:
    store = LocalFileStore(tmp_path / "ws")
    with pytest.raises(IsADirectoryError):
        store.write_after("", b"x", "memory/a.md", b"y")
    with pytest.raises(IsADirectoryError):
        store.write_after(".memfs/r.json", b"x", "", b"y")
    assert store.ls("") == []
    # the file already holds the bytes: a write of them is a no-op, and stores no record either
    store.write("memory/a.md", b"y")
    store.write_after(".memfs/r.json", b"x", "memory/a.md", b"y", expected_sha256="0" * 64)
    assert not store.exists(".memfs/r.json") and store.read("memory/a.md") == b"y"


@pytest.mark.parametrize("kind", ["local", "memory"])
def test_a_record_key_taken_on_every_try_refuses_the_change(tmp_path: Path, kind: str) -> None:
    from tests.conftest import make_store
    from tests.test_history import ids

    fs = mount(make_store(kind, tmp_path), now=lambda: T0, new_id=ids(*["aaaa00000000"] * 5))
    fs.pipe_file("memory/a.md", memory("a", "one"))
    with pytest.raises(OSError, match="nothing was changed"):
        fs.pipe_file("memory/a.md", memory("a", "two"))
    assert fs.raw.cat_file("memory/a.md") == memory("a", "one")
    assert len(record_keys(fs.store)) == 1
