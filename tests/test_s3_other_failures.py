"""S3 answers other than success and a failed precondition, on a conditional request.

The moto server answers a conditional PUT or DELETE with success or 412; a real S3 may also
answer 403, 503 (SlowDown) or a 412 for bytes that did not change (a multipart re-upload of
the same content gives them a new ETag). Each is injected at the one request it answers, on a
store against the moto server, and must reach the caller as itself, the object untouched.
"""

from __future__ import annotations

import errno
from collections.abc import Iterator
from typing import Any

import pytest
from memfs import PreconditionFailedError
from memfs.conflicts import content_sha256

from tests.test_s3 import S3Server, mount, start_server


@pytest.fixture(scope="module")
def server() -> Iterator[S3Server]:
    s = start_server()
    yield s
    s.stop()


def _store(server: S3Server, name: str) -> Any:
    return mount(server.endpoint, f"other-failures/{name}", history=False).store


class _Answer(OSError):
    """An s3fs error carrying S3's error code the way s3fs translates botocore's."""

    def __init__(self, code: str) -> None:
        super().__init__(errno.EIO, f"S3 answered {code}")
        self.response = {"Error": {"Code": code}}


def _failing(store: Any, monkeypatch: pytest.MonkeyPatch, code: str, what: str) -> None:
    real = store._call

    def call(method: str, *args: Any, **kwargs: Any) -> Any:
        if method == what and ("IfMatch" in kwargs or "IfNoneMatch" in kwargs):
            raise _Answer(code)
        return real(method, *args, **kwargs)

    monkeypatch.setattr(store, "_call", call)


def test_a_create_only_put_answered_slow_down_raises_it(server, monkeypatch) -> None:
    store = _store(server, "create")
    _failing(store, monkeypatch, "SlowDown", "put_object")
    with pytest.raises(_Answer, match="SlowDown"):
        store.write("memory/a.md", b"new", create=True)
    monkeypatch.undo()
    assert not store.exists("memory/a.md")


def test_a_conditional_put_answered_access_denied_raises_it(server, monkeypatch) -> None:
    store = _store(server, "put")
    store.write("memory/a.md", b"old")
    _failing(store, monkeypatch, "AccessDenied", "put_object")
    with pytest.raises(_Answer, match="AccessDenied"):
        store.write("memory/a.md", b"new", expected_sha256=content_sha256(b"old"))
    monkeypatch.undo()
    assert store.read("memory/a.md") == b"old"


def test_a_412_for_bytes_that_did_not_change_is_a_failed_precondition(server, monkeypatch) -> None:
    # the object still holds what the writer read, under an ETag the writer does not know
    store = _store(server, "reupload")
    store.write("memory/a.md", b"old")
    _failing(store, monkeypatch, "PreconditionFailed", "put_object")
    with pytest.raises(PreconditionFailedError):
        store.write("memory/a.md", b"new", expected_sha256=content_sha256(b"old"))
    monkeypatch.undo()
    assert store.read("memory/a.md") == b"old"


def test_a_conditional_delete_answered_slow_down_raises_it(server, monkeypatch) -> None:
    store = _store(server, "delete")
    store.write("memory/a.md", b"old")
    store.read("memory/a.md")  # the ETag known, so the delete carries If-Match
    _failing(store, monkeypatch, "SlowDown", "delete_object")
    with pytest.raises(_Answer, match="SlowDown"):
        store.delete("memory/a.md", expected_sha256=content_sha256(b"old"))
    monkeypatch.undo()
    assert store.read("memory/a.md") == b"old"
