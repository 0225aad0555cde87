"""The cost of the two extra surfaces: the Anthropic memory tool and the MCP server.

* memory tool — ``MemFSMemoryTool`` on a local store against the SDK's reference
  ``BetaLocalFilesystemMemoryTool`` on the same files in a local directory: ``view /memories``
  (the listing reads every file once for its size: a FileStore has no stat), ``view`` of the
  median-sized memory file, a ``str_replace`` + its undo, and a ``rename`` + its undo with
  history on (the default: the rename records a version under each name) and off. memfs's
  rename is one ``renameat`` fsynced in both directories (crash-safe); the SDK's is one
  ``rename`` with no fsync.
* MCP — ``read_file`` of the same file through the MCP SDK's in-process client against the
  same call on :class:`~memfs.tools.FileToolExecutor` directly: the protocol's overhead.

The store is the generated 261-memory store (a real store's shape, plus ``MEMORY.md``).

    .venv/bin/python benchmarks/bench_surfaces.py

prints the table and writes ``benchmarks/results/surfaces-<date>.json``.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import anyio  # noqa: E402
from anthropic.tools import BetaLocalFilesystemMemoryTool  # noqa: E402
from mcp import Client  # noqa: E402
from memfs import InMemoryFileStore, LocalFileStore, MemFS  # noqa: E402
from memfs.generator import generate_workspace  # noqa: E402
from memfs.tools import FileToolExecutor  # noqa: E402

from memfs_anthropic import MemFSMemoryTool  # noqa: E402
from memfs_mcp import build_server  # noqa: E402

CLOCK_DATE = dt.date(2026, 12, 1)
REPEATS = 15


def median_s(fn: Callable[[], Any], repeats: int = REPEATS) -> float:
    fn()  # warm caches (frontmatter parse, page cache) the way a running agent has them
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def rename(tool: Any, name: str) -> Callable[[], None]:
    """A rename of the memory file ``name`` and its undo (the store is as it was)."""
    moved = name.removesuffix(".md") + "-renamed.md"

    def run() -> None:
        tool.call({"command": "rename", "old_path": name, "new_path": moved})
        tool.call({"command": "rename", "old_path": moved, "new_path": name})

    return run


def rename_rows(
    ref: Any, ours: MemFSMemoryTool, root: Path, fs: MemFS, name: str
) -> list[dict[str, Any]]:
    """Rename + undo against the SDK, history on (``fs``, the default) and off (a copy of the
    workspace mounted with ``history=False``). Interleaved rounds, so the machine's load
    shifts both sides alike; the ratio is the median's. ``durable_ms`` is the SDK's rename
    followed by an fsync of its directory: the least a rename that survives power loss costs
    on this disk, so the ratio against it is what memfs adds beyond durability."""
    off_root = root / "ws-off"
    off = MemFS(LocalFileStore(off_root), clock=lambda: CLOCK_DATE, history=False)
    for path in fs.raw.find(""):
        off.raw.pipe_file(path, fs.raw.cat_file(path))
    memories = root / "ref" / "memories"
    moved = name.removesuffix(".md") + "-renamed.md"

    def durable() -> None:
        for old, new in ((name, moved), (moved, name)):
            ref.call({"command": "rename", "old_path": old, "new_path": new})
            fd = os.open(memories, os.O_RDONLY)  # both names are in this directory
            try:
                os.fsync(fd)
            finally:
                os.close(fd)

    rows = []
    for label, tool in [
        ("rename + undo, history on", ours),
        ("rename + undo, history off", MemFSMemoryTool(off)),
    ]:
        base_times, cand_times, durable_times = [], [], []
        for _ in range(3):
            base_times.append(median_s(rename(ref, name)))
            cand_times.append(median_s(rename(tool, name)))
            durable_times.append(median_s(durable))
        base, cand = statistics.median(base_times), statistics.median(cand_times)
        durable_s = statistics.median(durable_times)
        rows.append(
            {
                "case": label,
                "baseline": "SDK reference",
                "baseline_ms": base * 1e3,
                "memfs_ms": cand * 1e3,
                "ratio": cand / base,
                "durable_ms": durable_s * 1e3,
                "ratio_vs_durable": cand / durable_s,
            }
        )
    return rows


OPS = ("create", "str_replace", "rename", "delete")
OP_ROUNDS = 21


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def op_rows(
    ref: Any, ours_on: MemFSMemoryTool, ours_off: MemFSMemoryTool, memories: Path, name: str
) -> list[dict[str, Any]]:
    """Each of the four writing commands alone, one call timed at a time, against the SDK's
    reference and against the reference followed by an fsync of its directory (``durable``:
    the SDK fsyncs a created or replaced file's bytes, never a directory, so its renames,
    deletes and new entries do not survive a power cut), memfs with history on and off.
    ``OP_ROUNDS`` rounds; in each the four sides take turns in a rotating order, and each op's
    setup or undo (the create before a delete, the rename back) runs untimed."""
    text = (
        "---\nname: bench-new\ndescription: a memory made to be timed\n"
        "metadata:\n  type: project\n---\nBody.\n"
    )
    edit_from, edit_to = "metadata:", "metadata: "
    moved = name.removesuffix(".md") + "-moved.md"
    sides: dict[str, Callable[[dict[str, Any]], Any]] = {
        "sdk": ref.call,
        "durable": lambda c: (ref.call(c), _fsync_dir(memories)),
        "history on": ours_on.call,
        "history off": ours_off.call,
    }
    times: dict[tuple[str, str], list[float]] = {}
    counter = iter(range(10**9))

    def timed(side: str, op: str, command: dict[str, Any]) -> None:
        t = time.perf_counter()
        sides[side](command)
        times.setdefault((op, side), []).append(time.perf_counter() - t)

    def one(side: str, op: str) -> None:
        call = sides[side]
        if op == "create":
            path = f"/memories/bench-new-{next(counter)}.md"
            timed(side, op, {"command": "create", "path": path, "file_text": text})
            call({"command": "delete", "path": path})
        elif op == "delete":
            path = f"/memories/bench-new-{next(counter)}.md"
            call({"command": "create", "path": path, "file_text": text})
            timed(side, op, {"command": "delete", "path": path})
        elif op == "str_replace":
            timed(
                side,
                op,
                {"command": "str_replace", "path": name, "old_str": edit_from, "new_str": edit_to},
            )
            call({"command": "str_replace", "path": name, "old_str": edit_to, "new_str": edit_from})
        else:
            timed(side, op, {"command": "rename", "old_path": name, "new_path": moved})
            call({"command": "rename", "old_path": moved, "new_path": name})

    order = list(sides)
    for r in range(OP_ROUNDS + 1):
        for op in OPS:
            for side in order[r % 4 :] + order[: r % 4]:
                one(side, op)
        if r == 0:
            times.clear()  # the first round warms every side
    rows = []
    for op in OPS:
        med = {side: statistics.median(times[(op, side)]) for side in sides}
        for side in ("history on", "history off"):
            rows.append(
                {
                    "case": f"{op}, {side}",
                    "baseline": "SDK reference",
                    "baseline_ms": med["sdk"] * 1e3,
                    "memfs_ms": med[side] * 1e3,
                    "ratio": med[side] / med["sdk"],
                    "durable_ms": med["durable"] * 1e3,
                    "ratio_vs_durable": med[side] / med["durable"],
                    "rounds": OP_ROUNDS,
                }
            )
    return rows


def main() -> int:
    src = MemFS(InMemoryFileStore(), clock=lambda: CLOCK_DATE)
    generate_workspace(src)
    root = Path(tempfile.mkdtemp(prefix="memfs-bench-surfaces-"))
    ref = BetaLocalFilesystemMemoryTool(str(root / "ref"))
    fs = MemFS(LocalFileStore(root / "ws"), clock=lambda: CLOCK_DATE)
    files = src.raw.find("")
    for path in files:
        data = src.raw.cat_file(path)
        fs.raw.pipe_file(path, data)
        target = root / "ref" / "memories" / path.removeprefix(fs.memory_dir + "/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    ours = MemFSMemoryTool(fs)
    memories = sorted(
        (p for p in files if fs.is_memory_file(p)), key=lambda p: len(src.raw.cat_file(p))
    )
    median_file = memories[len(memories) // 2]
    name = "/memories/" + median_file.removeprefix(fs.memory_dir + "/")
    first_line = next(  # the name: line is unique in a memory file
        ln for ln in fs.raw.cat_file(median_file).decode().splitlines() if ln.startswith("name:")
    )

    def edit(tool: Any) -> Callable[[], Any]:
        def run() -> None:
            tool.call(
                {
                    "command": "str_replace",
                    "path": name,
                    "old_str": first_line,
                    "new_str": first_line + " ",
                }
            )
            tool.call(
                {
                    "command": "str_replace",
                    "path": name,
                    "old_str": first_line + " ",
                    "new_str": first_line,
                }
            )

        return run

    rows: list[dict[str, Any]] = []
    for label, command in [
        ("view /memories (listing)", {"command": "view", "path": "/memories"}),
        (f"view {name}", {"command": "view", "path": name}),
    ]:
        base = median_s(lambda c=command: ref.call(c))  # type: ignore[misc]
        cand = median_s(lambda c=command: ours.call(c))  # type: ignore[misc]
        rows.append(
            {
                "case": label,
                "baseline": "SDK reference",
                "baseline_ms": base * 1e3,
                "memfs_ms": cand * 1e3,
                "ratio": cand / base,
            }
        )
    base, cand = median_s(edit(ref)), median_s(edit(ours))
    rows.append(
        {
            "case": "str_replace + undo",
            "baseline": "SDK reference",
            "baseline_ms": base * 1e3,
            "memfs_ms": cand * 1e3,
            "ratio": cand / base,
        }
    )

    rows += rename_rows(ref, ours, root, fs, name)
    off = MemFS(LocalFileStore(root / "ws-off"), clock=lambda: CLOCK_DATE, history=False)
    rows += op_rows(ref, ours, MemFSMemoryTool(off), root / "ref" / "memories", name)

    executor = FileToolExecutor(fs)
    args = {"path": median_file}

    async def over_mcp() -> float:
        async with Client(build_server(fs)) as client:
            await client.call_tool("read_file", args)
            times = []
            for _ in range(REPEATS):
                t = time.perf_counter()
                await client.call_tool("read_file", args)
                times.append(time.perf_counter() - t)
            return statistics.median(times)

    base = median_s(lambda: executor.execute("read_file", args))
    cand = anyio.run(over_mcp)
    rows.append(
        {
            "case": "MCP read_file (in-process client)",
            "baseline": "executor call",
            "baseline_ms": base * 1e3,
            "memfs_ms": cand * 1e3,
            "ratio": cand / base,
        }
    )

    print(f"store: {len(files)} files; median memory file {median_file}; median of {REPEATS}")
    print(f"{'case':44} {'baseline':>16} {'ms':>8} {'memfs ms':>9} {'ratio':>7}")
    for r in rows:
        print(
            f"{r['case']:44} {r['baseline']:>16} {r['baseline_ms']:8.2f} "
            f"{r['memfs_ms']:9.2f} {r['ratio']:6.2f}x"
        )
        if "durable_ms" in r:
            print(
                f"{'  against SDK + fsync of the directory':44} {'':>16} {r['durable_ms']:8.2f} "
                f"{'':9} {r['ratio_vs_durable']:6.2f}x"
            )
    out = Path(os.environ.get("MEMFS_BENCH_OUT", REPO / "benchmarks" / "results"))
    out = out / f"surfaces-{dt.date.today().isoformat()}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(
        json.dumps(
            {
                "command": ".venv/bin/python benchmarks/bench_surfaces.py",
                "python": platform.python_version(),
                "machine": platform.machine(),
                "files": len(files),
                "repeats": REPEATS,
                "rows": rows,
            },
            indent=2,
        )
        + "\n"
    )
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
