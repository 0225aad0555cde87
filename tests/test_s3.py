"""A workspace on S3: ``FsspecFileStore`` + s3fs against a real S3 API server (moto).

The fixture starts moto's server on 127.0.0.1 with a free port, the way s3fs's own suite does.
Two processes ("two pods") mount the same item prefix: one's writes are read by the other, the
decorated read, the read-only mount and fsspec's abstract suite pass, and concurrent edits go
through S3 conditional writes (``If-Match`` / ``If-None-Match``) without losing one.

moto checks both preconditions on ``PutObject`` (and ``If-Match`` on ``DeleteObject``), but its
handler checks and then stores with no lock around the two, under a threaded server; real S3
applies a conditional PUT atomically. The fixture therefore serialises moto's requests, so the
tests rest on what S3 guarantees rather than on a race not happening
(``test_what_moto_supports_of_conditional_writes`` measures how often it happens unserialised).
"""

from __future__ import annotations

import collections
import errno
import functools
import multiprocessing
import threading
import uuid
from collections.abc import Iterator
from typing import Any

import fsspec.tests.abstract as abstract
import pytest

s3fs = pytest.importorskip("s3fs")
pytest.importorskip("moto")
boto3 = pytest.importorskip("boto3")

from memfs import MemFS  # noqa: E402
from memfs.conflicts import content_sha256  # noqa: E402
from memfs.counting import CountingFileStore  # noqa: E402
from memfs.errors import (  # noqa: E402
    MoveConflictError,
    PathConflictError,
    PreconditionFailedError,
    UpdateConflictError,
)
from memfs.manifest import AgentManifest  # noqa: E402
from memfs.stores import FsspecFileStore  # noqa: E402
from memfs.tools import FileToolExecutor  # noqa: E402
from memfs.turns import build_chat_turn  # noqa: E402

from tests.conftest import TODAY  # noqa: E402

BUCKET = "memfs-items"
KEY, SECRET = "testing", "testing"


class S3Server:
    """moto's WSGI app behind a middleware that counts requests and can serialise them."""

    def __init__(self) -> None:
        from moto.moto_server.werkzeug_app import (
            DomainDispatcherApplication,
            MotoRequestHandler,
            create_backend_app,
        )
        from werkzeug.serving import make_server

        self.app = DomainDispatcherApplication(create_backend_app)
        self.serialise = True
        self.requests: collections.Counter[str] = collections.Counter()
        self._lock = threading.Lock()
        self._count_lock = threading.Lock()
        self.server = make_server(
            "127.0.0.1", 0, self, threaded=True, request_handler=MotoRequestHandler
        )
        self.endpoint = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def __call__(self, environ: dict[str, Any], start_response: Any) -> list[bytes]:
        kind = environ["REQUEST_METHOD"]
        if environ.get("HTTP_IF_MATCH"):
            kind += " If-Match"
        if environ.get("HTTP_IF_NONE_MATCH"):
            kind += " If-None-Match"
        if environ["REQUEST_METHOD"] == "GET" and "list-type" in environ.get("QUERY_STRING", ""):
            kind = "LIST"
        with self._count_lock:
            self.requests[kind] += 1
        if not self.serialise:
            return list(self.app(environ, start_response))
        with self._lock:  # check and store of a conditional PUT in one step, as S3 does
            return list(self.app(environ, start_response))

    def stop(self) -> None:
        self.server.shutdown()
        self.thread.join(timeout=10)


def s3_filesystem(endpoint: str) -> Any:
    return s3fs.S3FileSystem(
        key=KEY,
        secret=SECRET,
        client_kwargs={"endpoint_url": endpoint, "region_name": "us-east-1"},
        use_listings_cache=False,  # other pods write to the same prefix
        skip_instance_cache=True,
    )


def mount(endpoint: str, prefix: str, **kwargs: Any) -> MemFS:
    store = FsspecFileStore(s3_filesystem(endpoint), root=f"{BUCKET}/{prefix}")
    return MemFS(store, clock=lambda: TODAY, **kwargs)


def start_server() -> S3Server:
    """A moto server on a free port with the bucket made (the benchmarks start theirs here too)."""
    import logging

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    server = S3Server()
    boto3.client(
        "s3",
        endpoint_url=server.endpoint,
        aws_access_key_id=KEY,
        aws_secret_access_key=SECRET,
        region_name="us-east-1",
    ).create_bucket(Bucket=BUCKET)
    return server


@pytest.fixture(scope="module")
def s3_server() -> Iterator[S3Server]:
    server = start_server()
    yield server
    server.stop()


@pytest.fixture
def prefix() -> str:
    return f"items/{uuid.uuid4().hex[:12]}"


@pytest.fixture
def fs(s3_server: S3Server, prefix: str) -> MemFS:
    return mount(s3_server.endpoint, prefix)


def _sha(data: bytes) -> str:
    return content_sha256(data)


OLD_MEMORY = (
    b"---\nname: user-role\ndescription: the user's role\nmetadata:\n  type: user\n"
    b"  recorded: 2026-11-01\n---\nThe user is the on-call SRE for the payments team.\n"
)


# -- the rules of the filesystem hold on S3 --------------------------------------------------------


def test_decorated_read_and_raw_bytes_on_s3(fs: MemFS) -> None:
    fs.migrating().pipe_file("memory/user-role.md", OLD_MEMORY)
    assert fs.raw.cat_file("memory/user-role.md") == OLD_MEMORY
    view = fs.cat_file("memory/user-role.md").decode()
    assert view.startswith("<system-reminder>This memory is 30 days old.")
    assert view.endswith(OLD_MEMORY.decode())
    assert fs.info("memory/user-role.md")["size"] == len(view.encode())


def test_read_only_mount_on_s3(fs: MemFS) -> None:
    fs.pipe_file("MEMORY.md", b"- [Role](memory/user-role.md) - who the user is\n")
    ro = fs.read_only()
    assert ro.cat_file("MEMORY.md").startswith(b"- [Role]")
    for attempt in (
        lambda: ro.pipe_file("MEMORY.md", b"x"),
        lambda: ro.pipe_file("MEMORY.md", b"x", expected_sha256=_sha(b"x")),
        lambda: ro.rm("MEMORY.md"),
        lambda: ro.mkdir("memory"),
    ):
        with pytest.raises(PermissionError) as info:
            attempt()
        assert info.value.errno == errno.EROFS
    assert fs.cat_file("MEMORY.md").startswith(b"- [Role]")


class S3Fixtures(abstract.AbstractFixtures):
    @pytest.fixture
    def fs(self, s3_server: S3Server) -> MemFS:
        return mount(s3_server.endpoint, f"abstract/{uuid.uuid4().hex[:12]}")

    @pytest.fixture
    def fs_join(self) -> Any:
        import posixpath

        return posixpath.join

    @pytest.fixture
    def fs_path(self) -> str:
        return "base"

    @pytest.fixture
    def supports_empty_directories(self) -> bool:
        return False  # an object store has no empty directories (s3fs's own suite says the same)


# The copy/get/put classes make thousands of requests (glob edge cases list and read whole
# trees): minutes against moto on two cores, so they run with `-m slow`.
@pytest.mark.slow
class TestS3Copy(abstract.AbstractCopyTests, S3Fixtures):
    pass


@pytest.mark.slow
class TestS3Get(abstract.AbstractGetTests, S3Fixtures):
    pass


@pytest.mark.slow
class TestS3Put(abstract.AbstractPutTests, S3Fixtures):
    pass


class TestS3Pipe(abstract.AbstractPipeTests, S3Fixtures):
    pass


class TestS3Open(abstract.AbstractOpenTests, S3Fixtures):
    pass


# -- conditional writes ----------------------------------------------------------------------------


def test_conditional_writes_on_s3(fs: MemFS) -> None:
    store = fs.store
    assert isinstance(store, FsspecFileStore)
    store.write("memory/a.md", b"one")
    store.write("memory/a.md", b"two", expected_sha256=_sha(b"one"))
    with pytest.raises(PreconditionFailedError) as info:
        store.write("memory/a.md", b"three", expected_sha256=_sha(b"one"))
    assert (info.value.expected_sha256, info.value.actual_sha256) == (_sha(b"one"), _sha(b"two"))
    store.write("memory/a.md", b"two", expected_sha256=_sha(b"one"))  # already stored: fine
    with pytest.raises(PreconditionFailedError):
        store.write("memory/none.md", b"x", expected_sha256=_sha(b"one"))
    with pytest.raises(PathConflictError) as conflict:
        store.write("memory/a.md", b"two", create=True)
    assert conflict.value.actual_sha256 == _sha(b"two")
    store.write("memory/b.md", b"new", create=True)
    assert store.read("memory/a.md") == b"two" and store.read("memory/b.md") == b"new"


def test_a_write_from_another_pod_is_caught_by_if_match(s3_server: S3Server, prefix: str) -> None:
    pod_a, pod_b = mount(s3_server.endpoint, prefix), mount(s3_server.endpoint, prefix)
    pod_a.pipe_file("MEMORY.md", b"# index\n")
    seen = pod_a.raw.cat_file("MEMORY.md")  # pod A now knows this version's ETag
    pod_b.pipe_file("MEMORY.md", b"# index\n- from B\n")
    before = s3_server.requests.copy()
    with pytest.raises(PreconditionFailedError):
        pod_a.pipe_file("MEMORY.md", seen + b"- from A\n", expected_sha256=_sha(seen))
    sent = s3_server.requests - before
    assert sent["PUT If-Match"] == 1 and sent["PUT"] == 0  # refused by the server, not by a GET
    assert pod_a.cat_file("MEMORY.md") == b"# index\n- from B\n"


def test_a_conditional_write_after_a_read_costs_one_put(fs: MemFS, s3_server: S3Server) -> None:
    fs.pipe_file("MEMORY.md", b"# index\n")
    raw = fs.raw.cat_file("MEMORY.md")
    before = s3_server.requests.copy()
    fs.pipe_file("MEMORY.md", raw + b"- a\n", expected_sha256=_sha(raw))
    sent = s3_server.requests - before
    assert sent["PUT If-Match"] == 1 and sent["GET"] == 0 and sent["PUT"] == 0
    before = s3_server.requests.copy()
    fs.pipe_file("memory/new.md", b"x", mode="create")
    # the file's, and its version's record, holding the content (create-only too, memfs.versions)
    assert (s3_server.requests - before)["PUT If-None-Match"] == 2


def test_what_moto_supports_of_conditional_writes(s3_server: S3Server) -> None:
    """If-Match / If-None-Match on PutObject and If-Match on DeleteObject are checked; whether
    moto applies them atomically is measured: racers all PUT with the same If-Match at once."""
    client = boto3.client(
        "s3",
        endpoint_url=s3_server.endpoint,
        aws_access_key_id=KEY,
        aws_secret_access_key=SECRET,
        region_name="us-east-1",
    )
    key = f"probe/{uuid.uuid4().hex}"
    etag = client.put_object(Bucket=BUCKET, Key=key, Body=b"v0")["ETag"]

    def status(call: Any, **kw: Any) -> int:
        try:
            return int(call(Bucket=BUCKET, Key=key, **kw)["ResponseMetadata"]["HTTPStatusCode"])
        except client.exceptions.ClientError as e:
            return int(e.response["ResponseMetadata"]["HTTPStatusCode"])

    supported = {
        "PutObject If-None-Match:* on an existing key": status(
            client.put_object, Body=b"x", IfNoneMatch="*"
        ),
        "PutObject If-Match with a stale ETag": status(
            client.put_object, Body=b"x", IfMatch='"0000"'
        ),
        "DeleteObject If-Match with a stale ETag": status(client.delete_object, IfMatch='"0000"'),
        "PutObject If-Match with the current ETag": status(
            client.put_object, Body=b"v1", IfMatch=etag
        ),
    }
    assert list(supported.values()) == [412, 412, 412, 200]

    racers = 8
    clients = [
        boto3.client(
            "s3",
            endpoint_url=s3_server.endpoint,
            aws_access_key_id=KEY,
            aws_secret_access_key=SECRET,
            region_name="us-east-1",
        )
        for _ in range(racers)
    ]

    def race(serialise: bool) -> int:
        base = client.put_object(Bucket=BUCKET, Key=key, Body=b"base")["ETag"]
        start, wins = threading.Barrier(racers), []

        def racer(i: int) -> None:
            c = clients[i]
            start.wait()
            try:
                c.put_object(Bucket=BUCKET, Key=key, Body=f"racer {i}".encode(), IfMatch=base)
                wins.append(i)
            except c.exceptions.ClientError:
                pass

        s3_server.serialise = serialise
        try:
            threads = [threading.Thread(target=racer, args=(i,)) for i in range(racers)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        finally:
            s3_server.serialise = True
        return len(wins)

    rounds = 10
    unserialised = [race(False) for _ in range(rounds)]
    serialised = [race(True) for _ in range(rounds)]
    assert serialised == [1] * rounds  # what S3 guarantees, and what the fixture gives
    assert all(n >= 1 for n in unserialised)
    print(
        f"\n[moto] {', '.join(f'{k}: {v}' for k, v in supported.items())}; "
        f"{rounds} rounds of {racers} racing If-Match PUTs on one ETag: accepted per round "
        f"{unserialised} with moto's requests in parallel, {serialised} serialised"
    )


# -- two pods --------------------------------------------------------------------------------------


def _pod_b(endpoint: str, prefix: str, inbox: Any, outbox: Any) -> None:
    try:
        fs = mount(endpoint, prefix)
        inbox.get(timeout=60)  # pod A has written
        outbox.put(("read", fs.cat_file("memory/user-role.md").decode()))
        outbox.put(("index", fs.cat_file("MEMORY.md").decode()))
        fs.pipe_file("memory/project-deadline.md", b"---\nname: deadline\n---\nfreeze on Dec 5\n")
        try:
            fs.read_only().pipe_file("MEMORY.md", b"x")
            outbox.put(("ro", "written"))
        except PermissionError as e:
            outbox.put(("ro", f"refused errno {e.errno}"))
        outbox.put(("done", ""))
    except BaseException as e:
        outbox.put(("error", repr(e)))


def test_two_pods_share_one_item(s3_server: S3Server, prefix: str) -> None:
    ctx = multiprocessing.get_context("spawn")
    inbox, outbox = ctx.Queue(), ctx.Queue()
    pod = ctx.Process(target=_pod_b, args=(s3_server.endpoint, prefix, inbox, outbox))
    pod.start()
    try:
        fs = mount(s3_server.endpoint, prefix)
        fs.migrating().pipe_file("memory/user-role.md", OLD_MEMORY)
        fs.pipe_file("MEMORY.md", b"- [Role](memory/user-role.md) - who the user is\n")
        assert fs.ls("memory", detail=False) == ["memory/user-role.md"]  # lists before B writes
        inbox.put("written")
        got = {}
        while "done" not in got and "error" not in got:
            kind, value = outbox.get(timeout=120)
            got[kind] = value
        assert "error" not in got, got["error"]
        assert got["read"].startswith("<system-reminder>This memory is 30 days old.")
        assert got["index"].startswith("- [Role](memory/user-role.md)")
        assert got["ro"] == f"refused errno {errno.EROFS}"
        # Pod B's new file shows up here: no stale listing is served.
        assert fs.ls("memory", detail=False) == [
            "memory/project-deadline.md",
            "memory/user-role.md",
        ]
        assert fs.exists("memory/project-deadline.md")
        deadline = fs.raw.cat_file("memory/project-deadline.md")
        assert b"recorded: 2026-12-01" in deadline and deadline.endswith(b"freeze on Dec 5\n")
    finally:
        pod.join(timeout=60)
    assert pod.exitcode == 0


MEMORY = "memory/shared-log.md"
END = "<!-- end of log -->"


def _append(line: bytes, current: bytes | None) -> bytes:
    return (current or b"") + line


def _pod_editor(endpoint: str, prefix: str, pod: int, edits: int, start: Any, out: Any) -> None:
    try:
        fs = mount(endpoint, prefix, credential_guard=False)
        tools = FileToolExecutor(fs)
        reissued = 0
        start.wait()
        for i in range(edits):
            line = f"- pod {pod} edit {i}"
            while True:
                res = tools.execute(
                    "edit_file",
                    {"path": MEMORY, "old_string": END, "new_string": f"{line}\n{END}"},
                )
                if res.startswith("Edited"):
                    break
                assert "gave up after" in res, res
                reissued += 1
            appended = f"{line}\n".encode()
            while True:
                try:
                    fs.update("MEMORY.md", functools.partial(_append, appended))
                    break
                except UpdateConflictError:
                    reissued += 1
        out.put((pod, reissued, None))
    except BaseException as e:
        out.put((pod, 0, repr(e)))


def test_two_pods_editing_one_memory_lose_nothing(s3_server: S3Server, prefix: str) -> None:
    pods, edits = 2, 25
    fs = mount(s3_server.endpoint, prefix, credential_guard=False)
    fs.pipe_file(
        MEMORY, f"---\nname: shared-log\nmetadata:\n  recorded: 2026-12-01\n---\n{END}\n".encode()
    )
    fs.pipe_file("MEMORY.md", b"# index\n")
    ctx = multiprocessing.get_context("spawn")
    start, out = ctx.Barrier(pods), ctx.Queue()
    procs = [
        ctx.Process(target=_pod_editor, args=(s3_server.endpoint, prefix, p, edits, start, out))
        for p in range(pods)
    ]
    before = s3_server.requests.copy()
    for p in procs:
        p.start()
    results = [out.get(timeout=300) for _ in procs]
    for p in procs:
        p.join(timeout=60)
    assert [r[2] for r in results if r[2]] == []
    expected = {f"- pod {p} edit {i}" for p in range(pods) for i in range(edits)}
    for path in (MEMORY, "MEMORY.md"):
        lines = [ln for ln in fs.raw.cat_file(path).decode().splitlines() if ln.startswith("- pod")]
        assert len(lines) == len(set(lines)) and set(lines) == expected, path
    sent = s3_server.requests - before
    print(
        f"\n[s3 two pods] {pods}x{edits} edits to {MEMORY} and MEMORY.md: "
        f"{pods * edits} lines each, 0 lost; {sent['PUT If-Match']} If-Match PUTs, "
        f"{sent['PUT If-None-Match']} If-None-Match PUTs, {sent['PUT']} plain PUTs; "
        f"calls reissued after the retry bound: {sum(r[1] for r in results)}"
    )


# -- large conditional writes, conditional deletes and moves ---------------------------------------


def _stale_write_over_another_pods_update(s3_server: S3Server, prefix: str, size: int) -> Any:
    """Pod A reads a ``size``-byte file, pod B replaces it, pod A writes over it conditionally."""
    pod_a, pod_b = mount(s3_server.endpoint, prefix), mount(s3_server.endpoint, prefix)
    pod_a.pipe_file("docs/big.bin", b"a" * size)
    seen = pod_a.raw.cat_file("docs/big.bin")
    pod_b.pipe_file("docs/big.bin", b"pod B's update\n")
    before = s3_server.requests.copy()
    with pytest.raises(PreconditionFailedError):
        pod_a.pipe_file("docs/big.bin", seen + b"more", expected_sha256=_sha(seen))
    assert pod_b.raw.cat_file("docs/big.bin") == b"pod B's update\n"  # not overwritten
    return s3_server.requests - before


def test_s3fs_uploads_in_parts_from_its_single_put_size() -> None:
    """The threshold the S3 store steers clear of: s3fs's pipe_file sends one PutObject below
    min(5 GiB, 2 x chunksize), 100 MiB with its default chunksize, and a multipart upload from
    there on, which carries no If-Match."""
    from memfs.stores.s3 import MAX_CONDITIONAL_PUT_BYTES, S3FS_SINGLE_PUT_BYTES

    assert S3FS_SINGLE_PUT_BYTES == 100 * 2**20
    assert MAX_CONDITIONAL_PUT_BYTES == 5 * 2**30


def test_a_conditional_write_above_s3fs_single_put_size_keeps_its_precondition(
    s3_server: S3Server, prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # s3fs's multipart threshold lowered to 10 MiB (chunksize 5 MiB, S3's smallest part), so an
    # 11 MiB write is one pipe_file would upload in parts.
    pipe_file = s3fs.S3FileSystem._pipe_file
    monkeypatch.setattr(
        s3fs.S3FileSystem,
        "_pipe_file",
        functools.partialmethod(pipe_file, chunksize=5 * 2**20),
    )
    sent = _stale_write_over_another_pods_update(s3_server, prefix, 11 * 2**20)
    assert sent["PUT If-Match"] == 1 and sent["POST"] == 0 and sent["PUT"] == 0  # no multipart


@pytest.mark.slow
def test_a_conditional_write_of_101_mib_keeps_its_precondition(
    s3_server: S3Server, prefix: str
) -> None:
    sent = _stale_write_over_another_pods_update(s3_server, prefix, 101 * 2**20)
    assert sent["PUT If-Match"] == 1 and sent["POST"] == 0


def test_a_conditional_write_s3_cannot_check_is_refused_before_sending(
    fs: MemFS, s3_server: S3Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memfs.errors import ConditionalWriteTooLargeError
    from memfs.stores import s3 as s3_store

    monkeypatch.setattr(s3_store, "MAX_CONDITIONAL_PUT_BYTES", 1000)
    fs.pipe_file("docs/a.bin", b"x")
    before = s3_server.requests.copy()
    for attempt in (
        lambda: fs.pipe_file("docs/a.bin", b"y" * 1001, expected_sha256=_sha(b"x")),
        lambda: fs.pipe_file("docs/new.bin", b"y" * 1001, mode="create"),
    ):
        with pytest.raises(ConditionalWriteTooLargeError) as info:
            attempt()
        assert info.value.errno == errno.EFBIG and "Nothing was written" in str(info.value)
    assert s3_server.requests - before == collections.Counter()  # refused before any request
    fs.pipe_file("docs/a.bin", b"y" * 1001)  # without a precondition: one plain write


def test_a_conditional_delete_on_s3_is_one_delete_with_if_match(
    s3_server: S3Server, prefix: str
) -> None:
    pod_a, pod_b = mount(s3_server.endpoint, prefix), mount(s3_server.endpoint, prefix)
    pod_a.pipe_file("memory/a.md", b"one")
    seen = pod_a.raw.cat_file("memory/a.md")
    pod_b.pipe_file("memory/a.md", b"two")
    before = s3_server.requests.copy()
    with pytest.raises(PreconditionFailedError) as info:
        pod_a.store.delete("memory/a.md", expected_sha256=_sha(seen))
    assert info.value.actual_sha256 == _sha(b"two")
    sent = s3_server.requests - before
    assert sent["DELETE If-Match"] == 1 and sent["DELETE"] == 0  # refused by the server
    assert pod_b.raw.cat_file("memory/a.md") == b"two"
    pod_a.store.delete("memory/a.md", expected_sha256=_sha(b"two"))
    assert not pod_b.exists("memory/a.md")


def test_a_move_on_s3_keeps_an_edit_from_another_pod(s3_server: S3Server, prefix: str) -> None:
    pod_a, pod_b = mount(s3_server.endpoint, prefix), mount(s3_server.endpoint, prefix)
    pod_a.migrating().pipe_file("memory/a.md", OLD_MEMORY)
    store: Any = pod_a.store
    write = store.write

    def copy_then_other_pod_edits(path: str, data: bytes, **kwargs: Any) -> None:
        write(path, data, **kwargs)  # the move's copy: S3 cannot rename
        if path == "memory/b.md":
            pod_b.update("memory/a.md", lambda cur: (cur or b"") + b"- from pod B\n")

    store.write = copy_then_other_pod_edits
    with pytest.raises(MoveConflictError):
        pod_a.move("memory/a.md", "memory/b.md")
    assert pod_b.raw.cat_file("memory/a.md").endswith(b"- from pod B\n")
    assert pod_b.raw.cat_file("memory/b.md") == OLD_MEMORY


# -- store calls per turn --------------------------------------------------------------------------


def test_store_calls_per_turn_on_s3(s3_server: S3Server, prefix: str) -> None:
    setup = mount(s3_server.endpoint, prefix)
    setup.pipe_file("memory/user-role.md", OLD_MEMORY)
    setup.pipe_file("MEMORY.md", b"- [Role](memory/user-role.md) - who the user is\n")
    inner = setup.store
    assert isinstance(inner, FsspecFileStore)
    counting = CountingFileStore(inner)
    fs = MemFS(counting, clock=lambda: TODAY)
    tools = FileToolExecutor(fs)
    before = s3_server.requests.copy()
    # One chat turn: the index is injected, the agent reads a memory, edits it and the index.
    turn = build_chat_turn(
        transcript=[], user_message="I moved to the infra team", manifest=AgentManifest(), fs=fs
    )
    assert "memory/user-role.md" in turn.context_block
    steps = [
        ("read_file", {"path": "memory/user-role.md"}),
        (
            "edit_file",
            {
                "path": "memory/user-role.md",
                "old_string": "payments team",
                "new_string": "infra team",
            },
        ),
        (
            "edit_file",
            {
                "path": "MEMORY.md",
                "old_string": "who the user is",
                "new_string": "who the user is (infra on-call)",
            },
        ),
    ]
    for name, args in steps:
        assert not tools.execute(name, args).startswith("Error"), name
    sent = s3_server.requests - before
    store_calls = counting.total
    requests = sum(sent.values())
    assert sent["PUT If-Match"] == 2 and sent["PUT"] == 0  # both edits were conditional
    # inject: 1 GET; read_file: 1 GET; each edit: 1 GET + 1 conditional PUT, no LIST or HEAD,
    # and its version: the record, holding the content, a create-only PUT (memfs.versions); the
    # first change of each file in this process also lists its records and reads the newest
    # (1 LIST + 1 GET: is the content it replaces in a version? if not, it is copied first)
    assert sent["PUT If-None-Match"] == 2
    assert counting.counts == {"ls": 2, "read": 6, "write": 4}
    assert requests <= 12, dict(sent)
    assert setup.raw.cat_file("memory/user-role.md").endswith(b"infra team.\n")
    print(
        f"\n[s3 turn] context block + read_file + 2 edit_file: {store_calls} FileStore calls "
        f"({counting.counts}), {requests} S3 requests "
        f"({dict(sorted(sent.items()))})"
    )


# -- the command line against S3: one line per failure ----------------------------------------


def _cli(endpoint: str, *args: str, **env: str) -> Any:
    import os
    import subprocess
    import sys

    full = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    full.update(
        AWS_ACCESS_KEY_ID=KEY,
        AWS_SECRET_ACCESS_KEY=SECRET,
        AWS_DEFAULT_REGION="us-east-1",
        AWS_ENDPOINT_URL=endpoint,
        AWS_MAX_ATTEMPTS="1",
        **env,
    )
    return subprocess.run(
        [sys.executable, "-m", "memfs.cli", *args],
        capture_output=True,
        text=True,
        env=full,
        timeout=120,
    )


def _one_line(done: Any) -> str:
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr and done.stdout == ""
    (line,) = done.stderr.strip().splitlines()
    return str(line)


def test_a_mistyped_bucket_is_an_error_not_an_empty_workspace(s3_server: S3Server) -> None:
    url = "s3://no-such-bucket/items/1"
    for command in (["stats", url], ["log", url], ["cat", url, "MEMORY.md"]):
        line = _one_line(_cli(s3_server.endpoint, *command))
        assert line == (
            f"memfs {command[0]}: No bucket 'no-such-bucket' for '{url}', or none these "
            "credentials can see. Check the bucket name (memfs does not create buckets)."
        )
    # a prefix with nothing under it in a bucket that exists is an empty workspace: a new item
    empty = _cli(s3_server.endpoint, "stats", f"s3://{BUCKET}/items/{uuid.uuid4().hex[:8]}")
    assert empty.returncode == 0 and "files" in empty.stdout, empty.stderr


def test_an_unreachable_endpoint_is_one_line(s3_server: S3Server) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    line = _one_line(_cli(f"http://127.0.0.1:{port}", "stats", f"s3://{BUCKET}/items/1"))
    assert line == (
        f"memfs stats: cannot reach the storage endpoint http://127.0.0.1:{port} for "
        f"s3://{BUCKET}/items/1; check AWS_ENDPOINT_URL and the network."
    )


def test_a_missing_bucket_is_said_by_the_store_not_read_as_a_missing_file(
    s3_server: S3Server,
) -> None:
    """Below the CLI's check: a read and a write on a bucket that is gone each say so (the
    context block must not read "no MEMORY.md" out of a mistyped bucket)."""
    from memfs import BucketNotFoundError

    fs = MemFS(FsspecFileStore(s3_filesystem(s3_server.endpoint), root="gone-bucket/items/1"))
    said = (
        "No bucket 'gone-bucket' for 's3://gone-bucket/items/1', or none these credentials can "
        "see. Check the bucket name (memfs does not create buckets)."
    )
    for attempt in (
        lambda: fs.cat_file("MEMORY.md"),
        lambda: fs.pipe_file("notes.md", b"x"),
    ):
        with pytest.raises(BucketNotFoundError) as e:
            attempt()
        assert not isinstance(e.value, FileNotFoundError)
        assert e.value.strerror == said
