"""Object-store keys are injective: two workspace paths are never one key, on a real S3 API.

s3fs cuts ``?versionId=…`` off a key, gcsfs reads ``#`` as a generation, and an S3 XML listing
cannot carry every control character, so such a name would be stored, listed or read as
another. Every name is tried on moto's S3 server (the fixture of :mod:`tests.test_s3`): either
:func:`memfs.paths.normalize` refuses it with a clear error before any request, or it is
stored under exactly its own key, listed as itself and read back byte for byte.
"""

from __future__ import annotations

import pytest

pytest.importorskip("s3fs")
pytest.importorskip("moto")
pytest.importorskip("boto3")

import uuid

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from memfs import FsspecFileStore, MemFS, UnsafePathError
from memfs.paths import normalize
from memfs.tools import FileToolExecutor

from tests.conftest import TODAY
from tests.test_s3 import BUCKET, S3Server, s3_filesystem
from tests.test_s3 import s3_server as s3_server

CANDIDATES = [
    *map(chr, range(0x00, 0x100)),
    *"\u2028\u2029\ufeff\ufffe\uffff\u200b\u00a0\u0301\U0001f600\ud800\udfff",
    "::", "..", "%2e%2e", "%2f", "%20", "%", "+", "?versionId=1", "s3://", "memory::",
]  # fmt: skip


def _store(server: S3Server) -> FsspecFileStore:
    return FsspecFileStore(s3_filesystem(server.endpoint), root=f"{BUCKET}/keys/{uuid.uuid4().hex}")


def _keys(store: FsspecFileStore) -> list[str]:
    """Every key under the workspace but memfs's own version history (tests/test_history.py)."""
    keys = (k[len(store.root) + 1 :] for k in store.fs.find(store.root))
    return sorted(k for k in keys if not k.startswith(".memfs/"))


def test_s3fs_really_strips_a_version_id(s3_server: S3Server) -> None:
    """Why '?' is refused: below memfs, s3fs stores 'a.md?versionId=1' as 'a.md'."""
    store = _store(s3_server)
    store.fs.pipe_file(f"{store.root}/memory/a.md?versionId=1", b"through s3fs\n")
    assert _keys(store) == ["memory/a.md"]


def test_every_character_is_refused_or_stored_under_its_own_key(s3_server: S3Server) -> None:
    store = _store(s3_server)
    # A migration keeps what it writes as written, so no write reads the file first for its
    # date: one key's requests are the write's own (the names are what this test is about).
    fs = MemFS(store, clock=lambda: TODAY, credential_guard=False, history=False).migrating()
    accepted: dict[str, bytes] = {}
    refused = 0
    for i, piece in enumerate(CANDIDATES):
        for path in (f"memory/a{piece}b.md", f"memory/{piece}/c{i}.md", f"{piece}{i}"):
            try:
                rel = normalize(path)
            except UnsafePathError as e:
                refused += 1
                assert repr(path) in str(e) and len(str(e)) > 60
                with pytest.raises(UnsafePathError):
                    store.write(path, b"x")
                continue
            data = f"{i}:{path!r}\n".encode()
            fs.raw.pipe_file(rel, data)
            accepted[rel] = data
    assert refused >= 35 * 3  # C0, DEL, C1, '?', '#', lone surrogates, '?versionId='
    assert _keys(store) == sorted(accepted)  # one key per path, each exactly its own name
    assert store.ls("") == sorted(accepted)
    for rel, data in accepted.items():
        assert store.read(rel) == data, rel
    assert fs.find("") == sorted(accepted)
    listing = FileToolExecutor(fs).execute("list_files", {"path": "", "recursive": True})
    assert sorted(listing.splitlines()) == sorted(accepted)  # no name splits a line


def test_the_issue_paths_are_refused_on_every_surface(s3_server: S3Server) -> None:
    store = _store(s3_server)
    fs = MemFS(store, clock=lambda: TODAY)
    fs.pipe_file("memory/a.md", b"---\nname: a\n---\nold\n")
    stored = fs.raw.cat_file("memory/a.md")
    tools = FileToolExecutor(fs, read_before_write=False)
    for bad in ("memory/a.md?versionId=1", "memory/..?versionId=1", "memory/a.md#1"):
        for call in (
            lambda bad=bad: fs.pipe_file(bad, b"api_key = sk-live-0123456789abcdef\n"),
            lambda bad=bad: store.write(bad, b"x"),
            lambda bad=bad: fs.cat_file(bad),
            lambda bad=bad: fs.rm(bad),
        ):
            with pytest.raises(UnsafePathError, match="would be stored under another name"):
                call()
        out = tools.execute("write_file", {"path": bad, "content": "x"})
        assert out.startswith("Error:") and "another name" in out
    assert _keys(store) == ["memory/a.md"]
    assert fs.raw.cat_file("memory/a.md") == stored
    assert fs.ls("memory", detail=False) == ["memory/a.md"]


def test_keys_another_tool_stored_are_not_listed_when_memfs_cannot_name_them(
    s3_server: S3Server,
) -> None:
    store = _store(s3_server)
    fs = MemFS(store, clock=lambda: TODAY)
    fs.pipe_file("memory/a.md", b"a\n")
    for key in ("memory/b?c.md", "memory/x#y.md", "memory/.memfs-tmp-0123", "memory/tab\there"):
        store.fs.pipe_file(f"{store.root}/{key}", b"stored by another tool\n")
    assert fs.find("") == ["memory/a.md"]
    assert fs.ls("memory", detail=False) == ["memory/a.md"]
    assert [e["name"] for e in fs.ls("memory", detail=True)] == ["memory/a.md"]


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    names=st.lists(
        st.text(st.sampled_from("ab.?#%+:-_ \x00\n\r\t~é/\\*[]"), min_size=1, max_size=6),
        min_size=1,
        max_size=8,
    )
)
def test_distinct_accepted_paths_are_distinct_keys(s3_server: S3Server, names: list[str]) -> None:
    store = _store(s3_server)
    accepted: dict[str, bytes] = {}
    for n, name in enumerate(names):
        path = f"memory/{name}"
        try:
            rel = normalize(path)
        except UnsafePathError:
            continue
        if not rel.startswith("memory/") or any(
            a != rel and (a.startswith(rel + "/") or rel.startswith(a + "/")) for a in accepted
        ):
            continue  # a file and a directory of the same name: not what this tests
        accepted[rel] = f"{n}\n".encode()
        store.write(rel, accepted[rel])
    assert _keys(store) == sorted(accepted)
    for rel, data in accepted.items():
        assert store.read(rel) == data


def test_a_prefix_the_backend_would_strip_is_refused() -> None:
    """With no root prefix, s3fs strips a leading 's3::' (fsspec's chaining syntax); refused
    before any request is sent."""
    import s3fs

    store = FsspecFileStore(s3fs.S3FileSystem(anon=True, skip_instance_cache=True), root="")
    for path in ("s3::bucket/x.md", "s3a::bucket/y.md"):
        with pytest.raises(UnsafePathError, match="would read it as another name"):
            store.write(path, b"x")
