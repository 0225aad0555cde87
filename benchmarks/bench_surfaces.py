"""The cost of the two extra surfaces: the Anthropic memory tool and the MCP server.

* memory tool — ``MemFSMemoryTool`` on a local store against the SDK's reference
  ``BetaLocalFilesystemMemoryTool`` on the same files in a local directory: ``view /memories``
  (the listing reads every file once for its size: a FileStore has no stat), ``view`` of the
  median-sized memory file, and a ``str_replace`` + its undo.
* MCP — ``read_file`` of the same file through the MCP SDK's in-process client against the
  same call on :class:`~memfs.tools.FileToolExecutor` directly: the protocol's overhead.

The store is the generated 261-memory store (a real store's shape, plus ``MEMORY.md``).

    .venv/bin/python benchmarks/bench_surfaces.py

prints the table and writes ``benchmarks/results/surfaces-<date>.json``.
"""

from __future__ import annotations

import datetime as dt
import json
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
    out = REPO / "benchmarks" / "results" / f"surfaces-{dt.date.today().isoformat()}.json"
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
    print(f"wrote {out.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
