"""fsspec's own conformance suite (the one s3fs and gcsfs run) against MemFS on every backend."""

from __future__ import annotations

import posixpath

import fsspec.tests.abstract as abstract
import pytest
from memfs import MemFS

from tests.conftest import BACKENDS, TODAY, make_store


class MemFSFixtures(abstract.AbstractFixtures):
    @pytest.fixture(params=BACKENDS)
    def fs(self, request, tmp_path_factory):
        store = make_store(request.param, tmp_path_factory.mktemp(request.param))
        return MemFS(store, clock=lambda: TODAY)

    @pytest.fixture
    def fs_join(self):
        return posixpath.join

    @pytest.fixture
    def fs_path(self):
        return "base"


class TestMemFSCopy(abstract.AbstractCopyTests, MemFSFixtures):
    pass


class TestMemFSGet(abstract.AbstractGetTests, MemFSFixtures):
    pass


class TestMemFSPut(abstract.AbstractPutTests, MemFSFixtures):
    pass


class TestMemFSPipe(abstract.AbstractPipeTests, MemFSFixtures):
    pass


class TestMemFSOpen(abstract.AbstractOpenTests, MemFSFixtures):
    pass
