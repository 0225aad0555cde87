"""An object store URL with no bucket (``s3://``) names the account's root, not a bucket: the
opening does not ask the store whether a bucket named '' exists (no request is made), and the
store it gives is rooted there."""

from __future__ import annotations

from typing import Any

import pytest
from memfs.cli_workspace import open_store


def test_an_object_store_url_without_a_bucket_checks_no_bucket(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    s3fs = pytest.importorskip("s3fs")
    asked: list[Any] = []

    def info(self: Any, path: str, **kw: Any) -> Any:  # pragma: no cover - must not run
        asked.append(path)
        raise AssertionError(f"asked the store about {path!r}")

    monkeypatch.setattr(s3fs.S3FileSystem, "info", info)
    store = open_store("s3://")
    assert asked == []
    assert getattr(store, "root", None) == "" and repr(store) == "S3FileStore('s3://')"
