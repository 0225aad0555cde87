"""Optimistic concurrency: content hashes and the decision of a conditional write.

Two turns of the same item can edit the same memory at once; without a guard the later write
silently wins. The guard is the one Managed Agents uses: a write may carry the
``content_sha256`` of the bytes it was computed from, and the store refuses it when the stored
bytes have changed since. Creating a file that already exists with "create" semantics is
refused the same way. Writing exactly the bytes that are already stored is never a conflict:
nothing would be lost, and a retried write whose first attempt landed must succeed.

This module decides; the stores make the decision atomic (see :mod:`memfs.stores`), and
:meth:`MemFS.update <memfs.filesystem.MemFS.update>` is the read → change → conditional write
loop built on it.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from typing import TypeVar

from memfs.errors import (
    PathConflictError,
    PreconditionFailedError,
    UpdateConflictError,
    WriteConflictError,
)

T = TypeVar("T")

DEFAULT_ATTEMPTS = 8
"""Read → change → write rounds :meth:`MemFS.update <memfs.filesystem.MemFS.update>` (and a
move of one file) tries before giving up."""

_SHA256 = re.compile(r"[0-9a-fA-F]{64}")


def content_sha256(data: bytes) -> str:
    """Lowercase hex sha256 of stored bytes: the value a write's precondition names."""
    return hashlib.sha256(data).hexdigest()


def check_sha256(value: str) -> str:
    """``value`` as lowercase hex, or ValueError saying what an expected hash looks like."""
    if not isinstance(value, str) or not _SHA256.fullmatch(value):
        raise ValueError(
            f"expected_sha256 must be the 64-digit hex sha256 of the stored bytes, got {value!r}. "
            "Hash the raw bytes you read (memfs.conflicts.content_sha256) and pass that."
        )
    return value.lower()


def check_precondition(
    path: str,
    current: bytes | None,
    data: bytes,
    *,
    expected_sha256: str | None,
    create: bool,
) -> bool:
    """Decide a conditional write against the ``current`` stored bytes (None: no file).

    Raises the conflict error; returns True when a hash-conditioned write finds ``data``
    already stored (a no-op that succeeds), False when the caller should write. A create is
    refused whenever the path is taken, even by the same bytes (fsspec's ``mode="create"``).
    """
    if create:
        if current is not None:
            raise PathConflictError(path, None, content_sha256(current))
        return False
    if expected_sha256 is None:
        return False
    if current is not None and current == data:
        return True
    actual = None if current is None else content_sha256(current)
    if actual != expected_sha256:
        raise PreconditionFailedError(path, expected_sha256, actual)
    return False


def check_delete(path: str, current: bytes | None, expected_sha256: str | None) -> None:
    """Decide a conditional delete against the ``current`` stored bytes (None: no file).

    Raises :class:`~memfs.errors.PreconditionFailedError` when ``expected_sha256`` is given and
    the stored bytes do not hash to it (a missing file included): a move deletes its source only
    if nobody changed it since it was copied.
    """
    if expected_sha256 is None:
        return
    actual = None if current is None else content_sha256(current)
    if actual != expected_sha256:
        raise PreconditionFailedError(path, expected_sha256, actual)


def retrying(
    round_: Callable[[], T],
    *,
    attempts: int,
    on: type[WriteConflictError] = WriteConflictError,
    backoff: Callable[[int], object] | None = None,
) -> T:
    """What ``round_()`` returns, repeated while it raises a conflict of type ``on`` (another
    writer got in between its read and its write), at most ``attempts`` rounds, calling
    ``backoff(attempt)`` between them; then :class:`~memfs.errors.UpdateConflictError` naming
    the last conflict's path, raised from it. Each round must read afresh: that is what makes
    repeating it right."""
    if attempts < 1:
        raise ValueError(f"attempts must be at least 1, got {attempts}.")
    for attempt in range(1, attempts + 1):
        try:
            return round_()
        except on as e:
            last = e
            if attempt < attempts and backoff is not None:
                backoff(attempt)
    raise UpdateConflictError(
        last.path, last.expected_sha256, last.actual_sha256, attempts=attempts
    ) from last
