"""Version history on S3 (moto, the fixture of ``tests/test_s3.py``): records and blobs are
create-only PUTs (``If-None-Match: *``), two pods writing one file keep one chain of versions,
and a crash between the version and the file is explained and restored."""

# ruff: noqa: F811  (the moto fixtures of tests/test_s3.py are imported, then taken as arguments)
from __future__ import annotations

import functools
import itertools
import multiprocessing
from typing import Any

import pytest

pytest.importorskip("s3fs")
pytest.importorskip("moto")

from memfs.history import History
from memfs.versions import BLOBS_DIR, record_keys

from tests.conftest import TODAY
from tests.test_history import DiesBeforeFileWrite, Killed, Ticks, _plus, memory
from tests.test_s3 import S3Server, mount, prefix, s3_server  # noqa: F401


@pytest.mark.parametrize(("limit", "blobs"), [(None, 0), (0, 2)], ids=["inline", "blobs"])
def test_versions_on_s3_are_create_only_puts_and_hidden(
    s3_server: S3Server, prefix: str, limit: int | None, blobs: int
) -> None:
    from memfs.versions import HistoryOptions

    options = HistoryOptions() if limit is None else HistoryOptions(inline_limit=limit)
    fs = mount(s3_server.endpoint, prefix, history=options)
    before = s3_server.requests.copy()
    fs.pipe_file("memory/role.md", memory("role", "Process engineer."), mode="create")
    sent = s3_server.requests - before
    # (the blob,) the record, the file: each create-only
    assert sent["PUT If-None-Match"] == 2 + (blobs > 0) and sent["PUT"] == 0
    fs.pipe_file("memory/role.md", memory("role", "Quality engineer."))
    assert len(record_keys(fs.store)) == 2 and len(fs.store.ls(BLOBS_DIR)) == blobs
    assert fs.find("") == ["memory/role.md"] and fs.ls("", detail=False) == ["memory"]
    h = History(fs)
    first = h.log("memory/role.md").versions[0].id
    h.restore("memory/role.md", first)
    assert fs.raw.cat_file("memory/role.md") == memory("role", "Process engineer.")
    assert [v.status for v in h.log("memory/role.md").versions] == [
        "applied",
        "applied",
        "current",
    ]


def test_a_crash_after_the_version_on_s3_restores_cleanly(s3_server: S3Server, prefix: str) -> None:
    from memfs import MemFS
    from memfs.versions import HistoryOptions

    fs = mount(s3_server.endpoint, prefix)
    clock = Ticks()
    fs = MemFS(fs.store, clock=lambda: TODAY, history=HistoryOptions(now=clock))
    fs.pipe_file("memory/role.md", memory("role", "old"))
    dying = MemFS(
        DiesBeforeFileWrite(fs.store, "memory/role.md"),
        clock=lambda: TODAY,
        history=HistoryOptions(now=clock),
    )
    with pytest.raises(Killed):
        dying.pipe_file("memory/role.md", memory("role", "new"))
    log = History(fs).log("memory/role.md")
    assert [v.status for v in log.versions] == ["current", "recorded, not applied"]
    History(fs).restore("memory/role.md", log.versions[-1].id)
    assert fs.raw.cat_file("memory/role.md") == memory("role", "new")


def _pod(endpoint: str, where: str, pod: int, edits: int, start: Any, out: Any) -> None:
    try:
        fs = mount(endpoint, where, actor=f"pod {pod}")
        start.wait()
        for i in range(edits):
            line = f"- pod {pod} edit {i}\n".encode()
            while True:
                try:
                    fs.update("MEMORY.md", functools.partial(_plus, line))
                    break
                except FileExistsError:
                    continue
        out.put((pod, None))
    except BaseException as e:
        out.put((pod, repr(e)))


def test_two_pods_on_s3_keep_one_chain_of_versions(s3_server: S3Server, prefix: str) -> None:
    fs = mount(s3_server.endpoint, prefix)
    fs.pipe_file("MEMORY.md", b"# index\n")
    ctx = multiprocessing.get_context("spawn")
    pods, edits = 2, 10
    start, out = ctx.Barrier(pods), ctx.Queue()
    procs = [
        ctx.Process(target=_pod, args=(s3_server.endpoint, prefix, p, edits, start, out))
        for p in range(pods)
    ]
    for p in procs:
        p.start()
    results = [out.get(timeout=300) for _ in procs]
    for p in procs:
        p.join(timeout=60)
    assert [r for _, r in results if r] == []
    log = History(fs).log("MEMORY.md")
    applied = [v for v in log.versions if v.status in ("applied", "current")]
    assert len(applied) == pods * edits + 1
    assert len(log.versions) == len(applied)  # no record of a write that did not land
    for a, b in itertools.pairwise(applied):
        assert b.record.parent == a.record.sha256
    assert {v.record.actor for v in applied[1:]} == {"pod 0", "pod 1"}
