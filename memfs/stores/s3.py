"""S3 through s3fs: conditional PUTs and DELETEs, ETag bookkeeping and S3's error codes.

A conditional write is one ``PutObject`` with ``If-Match: <etag>`` (the ETag of the version whose
bytes hash to ``expected_sha256``) or ``If-None-Match: *`` (a create), so the server decides
atomically across every pod sharing the prefix; a conditional delete is one ``DeleteObject``
with ``If-Match``. The store remembers the ETag of the last version it read or wrote of each key,
with the sha256 of its bytes, so a conditional write after a read needs no second GET.

Conditional writes never go through ``s3fs``'s ``pipe_file``: from :data:`S3FS_SINGLE_PUT_BYTES`
up it switches to a multipart upload and drops ``If-Match`` on the way (s3fs filters the
keyword out of ``CreateMultipartUpload``, which has no such parameter, and does not pass it to
``CompleteMultipartUpload``), so the write would silently replace a concurrent update. They are
issued here as one ``PutObject``, which carries its precondition up to S3's single-request limit
(:data:`MAX_CONDITIONAL_PUT_BYTES`); a larger one is refused with
:class:`~memfs.errors.ConditionalWriteTooLargeError` before anything is sent.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
from collections.abc import Iterator
from typing import Any

import fsspec
import fsspec.asyn

from memfs import errors
from memfs.conflicts import check_delete, check_precondition, check_sha256, content_sha256
from memfs.paths import is_reserved
from memfs.stores.fsspec import SPECIALISED, FsspecFileStore

_PRECONDITION_CODES = ("PreconditionFailed", "ConditionalRequestConflict", "412", "409")

MAX_CONDITIONAL_PUT_BYTES = 5 * 2**30
"""S3's limit for one ``PutObject``: the largest write a precondition can ride on."""


@functools.cache
def _s3fs_single_put_bytes() -> int:
    """The size from which s3fs's ``pipe_file`` uploads in parts: ``min(5 GiB, 2 × chunksize)``
    with its default ``chunksize`` (50 MiB in s3fs 2024-2026, so 100 MiB)."""
    try:
        from s3fs import S3FileSystem
    except ImportError:  # pragma: no cover - the s3 extra is not installed
        return 100 * 2**20
    chunksize = inspect.signature(S3FileSystem._pipe_file).parameters["chunksize"].default
    return min(5 * 2**30, 2 * int(chunksize))


def __getattr__(name: str) -> Any:
    # ``S3FS_SINGLE_PUT_BYTES``: from this size up, ``s3fs.S3FileSystem.pipe_file`` sends a
    # multipart upload, without ``If-Match``; conditional writes here never use it. Computed on
    # first use: importing s3fs takes half a second, and ``import memfs`` must not pay it.
    if name == "S3FS_SINGLE_PUT_BYTES":
        return _s3fs_single_put_bytes()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _error_codes(e: BaseException) -> set[str]:
    """S3's error codes on an s3fs error and the botocore error it was translated from."""
    codes = set()
    for err in (e, e.__cause__):
        response = getattr(err, "response", None)
        error = response.get("Error", {}) if isinstance(response, dict) else {}
        codes.add(str(error.get("Code", "")))
    return codes - {""}


def is_precondition_failure(e: BaseException) -> bool:
    """Whether an s3fs error is S3's 412 (or the 409 AWS returns for a racing conditional PUT)."""
    return bool(_error_codes(e) & set(_PRECONDITION_CODES))


def is_missing_bucket(e: BaseException) -> bool:
    """Whether an s3fs error is S3 saying the bucket itself does not exist."""
    return "NoSuchBucket" in _error_codes(e)


class S3FileStore(FsspecFileStore):
    """A workspace under ``bucket/prefix`` of an s3fs filesystem (built by FsspecFileStore)."""

    conditional_writes = True

    _etags: dict[str, tuple[str, str]]

    def _init_backend(self) -> None:
        self._etags = {}

    @contextlib.contextmanager
    def _bucket_must_exist(self) -> Iterator[None]:
        """A missing bucket said as one (:class:`~memfs.errors.BucketNotFoundError`), not as a
        missing file: a read would otherwise find "no MEMORY.md" in a mistyped bucket."""
        try:
            yield
        except FileNotFoundError as e:
            if not is_missing_bucket(e):
                raise
            bucket = self.fs._strip_protocol(self.root).split("/", 1)[0]
            raise errors.BucketNotFoundError(bucket, self.url) from None

    def write(  # type: ignore[override]
        self,
        path: str,
        data: bytes,
        *,
        expected_sha256: str | None = None,
        create: bool = False,
    ) -> None:
        with self._bucket_must_exist():
            self._write(path, data, expected_sha256=expected_sha256, create=create)

    def _write(self, path: str, data: bytes, *, expected_sha256: str | None, create: bool) -> None:
        rel, full = self._full(path)
        expected = None if expected_sha256 is None else check_sha256(expected_sha256)
        data = bytes(data)
        if (expected is not None or create) and len(data) > MAX_CONDITIONAL_PUT_BYTES:
            raise errors.ConditionalWriteTooLargeError(
                rel, len(data), MAX_CONDITIONAL_PUT_BYTES, "S3 (one PutObject)"
            )
        if expected is not None:
            self._put_if_match(rel, full, data, expected)  # only an existing object matches
            return
        # memfs's own keys (version history) are never directories: no LIST to ask
        if not rel or (not is_reserved(rel) and self.fs.isdir(full)):
            raise errors.is_a_directory(rel)
        if create:
            self._put_if_none_match(rel, full, data)
        else:
            self._remember(full, data, self.fs.pipe_file(full, data))

    def _call(self, method: str, full: str, **kwargs: Any) -> Any:
        """One S3 request on the key of ``full`` (s3fs translates its errors to OSError)."""
        bucket, key, _ = self.fs.split_path(full)  # type: ignore[attr-defined]
        s3: Any = self.fs
        try:
            return fsspec.asyn.sync(s3.loop, s3._call_s3, method, Bucket=bucket, Key=key, **kwargs)
        finally:
            s3.invalidate_cache(full)

    def _put(self, full: str, data: bytes, **precondition: str) -> Any:
        """One ``PutObject`` carrying ``precondition`` (``IfMatch=`` or ``IfNoneMatch=``)."""
        return self._call("put_object", full, Body=data, **precondition)

    def _get(self, full: str) -> tuple[bytes, str]:
        """One GET returning the bytes and the ETag of the same version."""
        bucket, key, _ = self.fs.split_path(full)  # type: ignore[attr-defined]
        s3: Any = self.fs

        async def get() -> tuple[bytes, str]:
            resp = await s3._call_s3("get_object", Bucket=bucket, Key=key)
            body = resp["Body"]
            try:
                data = await body.read()
            finally:
                body.close()
            return bytes(data), str(resp.get("ETag", ""))

        data, etag = fsspec.asyn.sync(s3.loop, get)
        self._etags[full] = (content_sha256(data), etag)
        return data, etag

    def _read(self, full: str) -> bytes:
        with self._bucket_must_exist():
            return self._get(full)[0]

    def _remember(self, full: str, data: bytes, response: Any) -> None:
        etag = response.get("ETag") if isinstance(response, dict) else None
        if etag:
            self._etags[full] = (content_sha256(data), str(etag))
        else:
            self._etags.pop(full, None)

    def _current(self, full: str) -> bytes | None:
        try:
            return self._get(full)[0]
        except FileNotFoundError:
            self._etags.pop(full, None)
            return None

    def _etag_of(self, rel: str, full: str, expected: str) -> tuple[str | None, bytes | None]:
        """The ETag of the version hashing to ``expected`` (remembered, else one GET), or
        ``(None, current bytes)`` when what is stored now does not hash to it."""
        known = self._etags.get(full)
        if known is not None and known[0] == expected:
            return known[1], None
        current = self._current(full)
        if current is None or content_sha256(current) != expected:
            return None, current
        return self._etags[full][1], None

    def _put_if_none_match(self, rel: str, full: str, data: bytes) -> None:
        try:
            response = self._put(full, data, IfNoneMatch="*")
        except OSError as e:
            if not isinstance(e, FileExistsError) and not is_precondition_failure(e):
                raise
            current = self._current(full)
            actual = None if current is None else content_sha256(current)
            raise errors.PathConflictError(rel, None, actual) from None
        self._remember(full, data, response)

    def _put_if_match(self, rel: str, full: str, data: bytes, expected: str) -> None:
        etag, current = self._etag_of(rel, full, expected)
        if etag is None:  # changed since it was read: a no-op if it already holds ``data``
            check_precondition(rel, current, data, expected_sha256=expected, create=False)
            return
        try:
            response = self._put(full, data, IfMatch=etag)
        except OSError as e:
            if not isinstance(e, FileNotFoundError) and not is_precondition_failure(e):
                raise
            current = self._current(full)
            if check_precondition(rel, current, data, expected_sha256=expected, create=False):
                return  # lost the race to a writer that stored the very same bytes
            # The expected bytes again under another ETag: only a multipart re-upload does that.
            raise errors.PreconditionFailedError(
                rel, expected, None if current is None else content_sha256(current)
            ) from None
        self._remember(full, data, response)

    def write_from_path(self, path: str, local_path: str) -> None:
        self._etags.pop(self._full(path)[1], None)
        super().write_from_path(path, local_path)

    def delete(self, path: str, *, expected_sha256: str | None = None) -> None:
        with self._bucket_must_exist():
            self._delete(path, expected_sha256)

    def _delete(self, path: str, expected_sha256: str | None) -> None:
        rel, full = self._full(path)
        if expected_sha256 is None:
            self._etags.pop(full, None)
            super().delete(path)
            return
        expected = check_sha256(expected_sha256)
        etag, current = self._etag_of(rel, full, expected)
        if etag is None:
            check_delete(rel, current, expected)
        try:
            self._call("delete_object", full, IfMatch=etag)  # DeleteObject, If-Match
        except OSError as e:
            if not isinstance(e, FileNotFoundError) and not is_precondition_failure(e):
                raise
            current = self._current(full)
            actual = None if current is None else content_sha256(current)
            raise errors.PreconditionFailedError(rel, expected, actual) from None
        finally:
            self._etags.pop(full, None)


def _is_s3(fs: fsspec.AbstractFileSystem) -> bool:
    return hasattr(fs, "_call_s3") and hasattr(fs, "split_path")


SPECIALISED.append((_is_s3, S3FileStore))
