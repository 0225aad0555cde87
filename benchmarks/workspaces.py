"""The stores the benchmarks run on, generated once per run into one temp directory.

Each is a store shaped like a real Claude Code memory directory, from
:func:`memfs.generator.generate_workspace` on local disk. Generation writes plain files (no temp
file, no fsync): the benchmarks measure reads and the edit path, not how the fixtures were laid
down, and 10,000 fsyncs would dominate the run.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import tempfile
from functools import cached_property

from memfs import INDEX_FILE, MEMORY_DIR, LocalFileStore, MemFS
from memfs.generator import GeneratedWorkspace, generate_workspace
from memfs.paths import normalize

BENCH_TODAY = dt.date(2026, 7, 26)
"""A fixed clock (the day the real store the generator copies was measured) so every run
decorates the same bytes."""

GROWTH_SIZES = (10, 261, 1_000, 10_000)


def bench_clock() -> dt.date:
    return BENCH_TODAY


class _PlainWriteStore(LocalFileStore):
    """A local store whose writes skip the temp-file-and-fsync dance; fixtures only."""

    def write(
        self,
        path: str,
        data: bytes,
        *,
        expected_sha256: str | None = None,
        create: bool = False,
    ) -> None:
        if expected_sha256 is not None or create:
            raise NotImplementedError("fixture store: plain writes only")
        full = os.path.join(self.root, *normalize(path).split("/"))
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as f:
            f.write(data)


class Workspaces:
    """Lazily generated stores under one temp directory, removed by :meth:`close`."""

    def __init__(self, root: str | None = None) -> None:
        self._tmp = None if root else tempfile.mkdtemp(prefix="memfs-bench-")
        self.root = root or self._tmp or ""
        self.generated: dict[int, GeneratedWorkspace] = {}

    def close(self) -> None:
        if self._tmp:
            shutil.rmtree(self._tmp, ignore_errors=True)

    def __enter__(self) -> Workspaces:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def path(self, name: str) -> str:
        return os.path.join(self.root, name)

    def generated_dir(self, n_files: int) -> str:
        """A directory holding the generated store of ``n_files`` memories and its index."""
        d = self.path(f"ws-{n_files}")
        if n_files not in self.generated:
            # Written through the credential guard, as an agent's writes are: the generated
            # store (10,000-file index included) must store without a refusal.
            # No version history: a fixture is not a change anyone will want back, and the
            # rows that read it measure the store as the platform holds it.
            fs = MemFS(_PlainWriteStore(d), clock=bench_clock, history=False)
            self.generated[n_files] = generate_workspace(fs, n_files)
        return d

    @cached_property
    def empty_dir(self) -> str:
        d = self.path("empty")
        os.makedirs(d)
        return d

    def growth_dir(self, n_files: int) -> str:
        """``n_files`` memories (from the 10,000 store) under the 261 store's index, unchanged.

        Copies, not hard links: the local store refuses a file with a second name (it may be
        an outside file). The index is the same bytes at every size: what grows is only the
        memory directory the block must not depend on.
        """
        d = self.path(f"grow-{n_files}")
        if os.path.isdir(d):
            return d
        src = self.generated_dir(10_000)
        index_src = os.path.join(self.generated_dir(261), INDEX_FILE)
        paths = self.generated[10_000].memory_paths[:n_files]
        os.makedirs(os.path.join(d, MEMORY_DIR))
        for p in paths:
            shutil.copyfile(os.path.join(src, p), os.path.join(d, p))
        shutil.copyfile(index_src, os.path.join(d, INDEX_FILE))
        return d
