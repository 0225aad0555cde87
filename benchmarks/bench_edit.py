"""Row 9: ``edit_file`` through the agent's tool executor against a direct edit on disk.

The candidate is one ``FileToolExecutor.execute("edit_file", …)`` call on a memory file of the
median size: argument validation, the raw read, the exactly-once match, and the write through
MemFS (credential guard, reminder strip, date stamp, the store's locked atomic write). The
baseline does the least a correct edit can: read, check the text occurs once, replace, and the
same durable atomic write (temp file, fsync, rename, fsync of the directory). Each side flips
one line back and forth, so the file keeps its size.
"""

from __future__ import annotations

import os
import statistics
import tempfile

from memfs import LocalFileStore, MemFS
from memfs.counting import CountingFileStore
from memfs.tools import FileToolExecutor

from benchmarks.harness import Row, compare, fmt_ratio, fmt_us, store_calls
from benchmarks.workspaces import Workspaces, bench_clock

TARGET = 1.5


def direct_edit(host: str, old: str, new: str) -> None:
    """Read, replace exactly once, durable atomic write: the baseline."""
    with open(host, "rb") as f:
        text = f.read().decode("utf-8")
    if text.count(old) != 1:
        raise ValueError(f"{old!r} does not occur exactly once in {host}")
    data = text.replace(old, new, 1).encode("utf-8")
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(host), prefix=".bench-")
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, host)
    dfd = os.open(os.path.dirname(host), os.O_RDONLY)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)


class _Flipper:
    """Alternates an edit and its undo, so every call is a real one-line change."""

    def __init__(self, edit, old: str, new: str) -> None:  # type: ignore[no-untyped-def]
        self.edit, self.pair, self.forward = edit, (old, new), True

    def __call__(self) -> object:
        old, new = self.pair if self.forward else self.pair[::-1]
        self.forward = not self.forward
        return self.edit(old, new)


def run(ws: Workspaces, repeats: int = 41) -> list[Row]:
    root = ws.generated_dir(261)
    gen = ws.generated[261]
    median = statistics.median_low(gen.sizes)
    i = gen.sizes.index(median)
    rel = gen.memory_paths[i]
    # A second copy of the file for the baseline, so the two sides never touch the same bytes.
    twin = rel[: -len(".md")] + "-direct.md"
    with open(os.path.join(root, rel), "rb") as f:
        original = f.read()
    with open(os.path.join(root, twin), "wb") as out:
        out.write(original)
    name_line = next(
        line for line in original.decode("utf-8").splitlines() if line.startswith("name: ")
    )
    old, new = name_line + "\n", name_line + "-edited\n"

    counting = CountingFileStore(LocalFileStore(root))
    ex = FileToolExecutor(MemFS(counting, clock=bench_clock))

    def tool_edit(o: str, n: str) -> str:
        out = ex.execute("edit_file", {"path": rel, "old_string": o, "new_string": n})
        if not out.startswith("Edited"):
            raise RuntimeError(out)
        return out

    host_twin = os.path.join(root, twin)
    candidate = _Flipper(tool_edit, old, new)
    c = compare(
        _Flipper(lambda o, n: direct_edit(host_twin, o, n), old, new),
        candidate,
        baseline_label="read + replace + durable atomic write",
        candidate_label="FileToolExecutor edit_file",
        repeats=repeats,
        number=2,  # an even count: each batch ends where it started
    )
    calls = store_calls(counting, candidate, times=2)
    per_op = calls.per_operation(2)
    os.unlink(host_twin)
    return [
        Row(
            id="9",
            what="`edit_file` through the tool executor (median memory file)",
            baseline="direct read-replace-atomic-write on disk (fsync file + directory)",
            target=f"≤ {TARGET}×",
            measured=f"{fmt_ratio(c)}; {fmt_us(c.candidate.min_s)} vs {fmt_us(c.baseline.min_s)}",
            met=c.ratio_paired <= TARGET,
            store_calls=per_op,
            figures={**c.summary(), "path": rel, "bytes": median, "store_calls": per_op},
        )
    ]
