"""Moves on S3 (the moto server of ``tests/test_s3.py``): S3 cannot rename, so a move is a GET,
a create-only PUT of the destination and a DELETE conditional on the bytes copied; it never
overwrites a destination, and a recorded rename stores no second blob."""

# ruff: noqa: F811  (the moto fixtures of tests/test_s3.py are imported, then taken as arguments)
from __future__ import annotations

import pytest

pytest.importorskip("s3fs")
pytest.importorskip("moto")

from memfs.conflicts import content_sha256
from memfs.errors import MoveConflictError, PathConflictError, PreconditionFailedError
from memfs.history import History
from memfs.stores import copy_then_delete, move_file, supports_moves
from memfs.versions import BLOBS_DIR, HistoryOptions, record_keys

from tests.test_moves import memory
from tests.test_s3 import S3Server, mount, prefix, s3_server  # noqa: F401


def test_a_store_move_on_s3_is_a_conditional_copy_and_delete(
    s3_server: S3Server, prefix: str
) -> None:
    store = mount(s3_server.endpoint, prefix).store
    assert not supports_moves(store)
    store.write("a/x.txt", b"x")
    before = s3_server.requests.copy()
    move_file(store, "a/x.txt", "b/x.txt", expected_sha256=content_sha256(b"x"))
    sent = s3_server.requests - before
    assert (sent["GET"], sent["PUT If-None-Match"], sent["DELETE If-Match"]) == (1, 1, 1)
    assert sent["PUT"] == sent["DELETE"] == 0  # nothing unconditional
    assert store.read("b/x.txt") == b"x" and not store.exists("a/x.txt")


def test_a_store_move_on_s3_never_overwrites_unread(s3_server: S3Server, prefix: str) -> None:
    store = mount(s3_server.endpoint, prefix).store
    store.write("a.txt", b"mine")
    store.write("b.txt", b"theirs")
    with pytest.raises(PathConflictError):
        move_file(store, "a.txt", "b.txt")
    with pytest.raises(PreconditionFailedError):
        move_file(store, "a.txt", "b.txt", replace_sha256=content_sha256(b"other"))
    with pytest.raises(PreconditionFailedError):
        move_file(store, "a.txt", "c.txt", expected_sha256=content_sha256(b"other"))
    assert (store.read("a.txt"), store.read("b.txt")) == (b"mine", b"theirs")
    assert not store.exists("c.txt")
    move_file(store, "a.txt", "b.txt", replace_sha256=content_sha256(b"theirs"))
    assert store.read("b.txt") == b"mine" and not store.exists("a.txt")


def test_an_edit_between_the_copy_and_the_delete_on_s3_is_kept(
    s3_server: S3Server, prefix: str
) -> None:
    store = mount(s3_server.endpoint, prefix).store
    store.write("a.txt", b"a")
    other = mount(s3_server.endpoint, prefix).store  # another pod
    write = store.write

    def write_then_edit(path: str, data: bytes, **kwargs: object) -> None:
        write(path, data, **kwargs)  # type: ignore[arg-type]
        if path == "b.txt":
            other.write("a.txt", b"edited", expected_sha256=content_sha256(b"a"))

    store.write = write_then_edit  # type: ignore[method-assign]
    with pytest.raises(MoveConflictError):
        copy_then_delete(store, "a.txt", "b.txt")
    assert (other.read("a.txt"), other.read("b.txt")) == (b"edited", b"a")


def test_a_rename_on_s3_records_one_version_and_refuses_a_taken_name(
    s3_server: S3Server, prefix: str
) -> None:
    fs = mount(s3_server.endpoint, prefix, history=HistoryOptions(), actor="tester")
    one, two = memory("a", "First."), memory("a", "Second.")
    fs.pipe_file("memory/a.md", one)
    fs.pipe_file("memory/a.md", two)
    fs.pipe_file("memory/c.md", memory("c", "C."))
    records = len(record_keys(fs.store))
    with pytest.raises(PathConflictError, match="already exists"):
        fs.mv("memory/a.md", "memory/c.md")
    assert len(record_keys(fs.store)) == records
    blobs = fs.store.ls(BLOBS_DIR)
    before = s3_server.requests.copy()
    fs.mv("memory/a.md", "memory/b.md")
    sent = s3_server.requests - before
    assert sent["PUT"] == sent["DELETE"] == 0 and sent["DELETE If-Match"] == 1
    assert fs.store.ls(BLOBS_DIR) == blobs and len(record_keys(fs.store)) == records + 2
    h = History(fs)
    src, dst = h.log("memory/a.md").versions, h.log("memory/b.md").versions
    assert (src[-1].record.operation, src[-1].record.moved_to) == ("deleted", "memory/b.md")
    assert [(v.record.operation, v.record.moved_from) for v in dst] == [("created", "memory/a.md")]
    h.restore("memory/a.md", src[-2].id)
    assert fs.raw.cat_file("memory/a.md") == two == fs.raw.cat_file("memory/b.md")
