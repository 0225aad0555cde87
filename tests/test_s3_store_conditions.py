"""The S3 store (memfs.stores.s3) against a moto server: a write onto a directory, a write from
a local file, a conditional delete of content that changed, and a conditional write that loses
the race to another writer (refused, or a no-op when that writer stored the very same bytes)."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

pytest.importorskip("s3fs")
pytest.importorskip("moto")

from memfs import FsspecFileStore, S3FileStore
from memfs.conflicts import content_sha256
from memfs.errors import PreconditionFailedError

from tests.test_s3 import BUCKET, S3Server, s3_filesystem, s3_server  # noqa: F401


@pytest.fixture
def store(s3_server: S3Server) -> S3FileStore:  # noqa: F811
    s = FsspecFileStore(
        s3_filesystem(s3_server.endpoint), root=f"{BUCKET}/items/{uuid.uuid4().hex[:12]}"
    )
    assert isinstance(s, S3FileStore)
    s.write("notes/a.txt", b"first")
    return s


def test_a_write_onto_a_directory_is_refused(store: S3FileStore) -> None:
    with pytest.raises(IsADirectoryError):
        store.write("notes", b"x")
    assert store.ls("notes") == ["notes/a.txt"]


def test_a_write_from_a_local_file_is_read_back(store: S3FileStore, tmp_path: Path) -> None:
    (tmp_path / "b.txt").write_bytes(b"from disk")
    store.write_from_path("notes/b.txt", str(tmp_path / "b.txt"))
    assert store.read("notes/b.txt") == b"from disk"


def test_a_conditional_delete_of_content_that_changed_is_refused(store: S3FileStore) -> None:
    with pytest.raises(PreconditionFailedError) as caught:
        store.delete("notes/a.txt", expected_sha256=content_sha256(b"something else"))
    assert caught.value.actual_sha256 == content_sha256(b"first")
    assert store.read("notes/a.txt") == b"first"


def _other_writer(store: S3FileStore, data: bytes) -> None:
    """Another pod's write, straight to the bucket (this store's remembered ETag goes stale)."""
    store.fs.pipe_file(f"{store.root}/notes/a.txt", data)


def test_a_conditional_write_that_loses_the_race_is_refused(store: S3FileStore) -> None:
    _other_writer(store, b"theirs")
    with pytest.raises(PreconditionFailedError) as caught:
        store.write("notes/a.txt", b"mine", expected_sha256=content_sha256(b"first"))
    assert caught.value.actual_sha256 == content_sha256(b"theirs")
    assert store.read("notes/a.txt") == b"theirs"


def test_a_conditional_write_beaten_by_the_same_bytes_is_a_no_op(store: S3FileStore) -> None:
    _other_writer(store, b"mine")
    store.write("notes/a.txt", b"mine", expected_sha256=content_sha256(b"first"))
    assert store.read("notes/a.txt") == b"mine"


def test_a_write_with_no_condition_is_always_made() -> None:
    from memfs.conflicts import check_precondition

    assert (
        check_precondition("a.txt", b"stored", b"new", expected_sha256=None, create=False) is False
    )
