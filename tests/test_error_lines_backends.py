"""Error classes and storage-failure lines (memfs.errors): a bare write conflict, errors that
cross a process boundary intact, an aiohttp connection failure, a backend's own refusal."""

from __future__ import annotations

import pickle

import aiohttp
import botocore.exceptions
from aiohttp.client_reqrep import ConnectionKey
from memfs import errors


def test_a_write_conflict_of_no_finer_kind_says_the_stored_file_changed() -> None:
    e = errors.WriteConflictError("memory/a.md", "ab" * 32, None)
    assert (
        str(e)
        == "[Errno 17] Write to 'memory/a.md' refused: the stored file changed.: 'memory/a.md'"
    )
    assert isinstance(e, FileExistsError)


def test_errors_with_their_own_arguments_survive_a_pickle_round_trip() -> None:
    for e in (
        errors.ConditionalWriteTooLargeError("memory/a.md", 6 << 30, 5 << 30, "S3"),
        errors.BucketNotFoundError("items", "s3://items/42"),
    ):
        back = pickle.loads(pickle.dumps(e))
        assert (type(back), str(back), back.args) == (type(e), str(e), e.args)


def _connector_error(host: str | None, *, ssl: bool) -> aiohttp.ClientConnectorError:
    key = ConnectionKey(host, 443 if ssl else 9000, ssl, ssl, None, None, None)  # type: ignore[arg-type]
    return aiohttp.ClientConnectorError(key, OSError(111, "Connection refused"))  # type: ignore[arg-type]


def test_an_unreachable_endpoint_from_aiohttp_is_named_by_its_connection_key() -> None:
    line = errors.describe_storage_failure(_connector_error("minio.local", ssl=False), "s3://b/42")
    assert line == (
        "cannot reach the storage endpoint http://minio.local:9000 for s3://b/42; check the URL "
        "and the network."
    )
    line = errors.describe_storage_failure(_connector_error("s3.example", ssl=True))
    assert line == (
        "cannot reach the storage endpoint https://s3.example:443; check the URL and the network."
    )
    line = errors.describe_storage_failure(_connector_error("", ssl=True))
    assert line == "cannot reach the storage endpoint; check the URL and the network."


def test_a_backend_refusal_of_no_known_kind_is_its_own_words_on_one_line() -> None:
    e = botocore.exceptions.ClientError(
        {"Error": {"Code": "SlowDown", "Message": "Please reduce\nyour request rate."}}, "PutObject"
    )
    line = errors.describe_storage_failure(e, "s3://b/42")
    assert line.startswith("the storage backend refused the request for s3://b/42: An error ")
    assert "\n" not in line and "Please reduce your request rate." in line
