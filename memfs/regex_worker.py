"""The process a regular-expression memory search runs in (:mod:`memfs.search` starts it).

Compiling a regular expression cannot be interrupted and holds the interpreter lock: a pattern
such as ``(?:x{1000}){1000}`` takes seconds of CPU and hundreds of MB to compile, during which
no other thread of the process runs (another MCP session's ``ping`` included). So the pattern
is compiled and matched here, in a short-lived child process that the search's time limit
ends from the inside (a real-time interval timer, whose default action terminates the process)
and whose address space is capped, while the caller's thread only waits on a pipe.

Run as a script (``python -S -P regex_worker.py``): it imports no part of memfs. The job comes
pickled on stdin — ``(sys_path, pattern, ignore_case, time_limit_s, files)``, ``files`` a list of
lists of line texts — with only builtin types in it, so unpickling needs no import. The answer
is ``b"C"`` once the pattern is compiled, then one pickled tuple:

* ``("hits", [[(line_index, match_start), ...] per file])``;
* ``("invalid", message, position_or_None)``: the pattern does not compile;
* ``("nested", "")``: too deeply nested for the parser;
* ``("memory", "")``: compiling or matching ran out of the memory allowed;
* ``("timeout", file_index, line_index)``: matching reached the time limit at that line;
* ``("compiling",)``: compiling reached the time limit (or nothing at all: the timer ended the
  process while compiling held the interpreter lock).
"""

from __future__ import annotations

import os
import pickle
import sys
import threading
import time
from typing import Any

MEMORY_LIMIT_BYTES = 1 << 30
"""Address space allowed above what the job itself needs: a pattern whose repeats multiply
fails with MemoryError here instead of exhausting the machine."""

REPORT_MARGIN_S = 0.25
"""The watchdog says where the search stopped this long before the timer ends the process (a
quarter of the limit when that is shorter): long enough for a thread on a loaded machine to be
scheduled again, and a search it cuts short is refused the same way the timer would refuse it."""


def _limit(time_limit_s: float, job_bytes: int) -> None:
    try:
        import resource
        import signal
    except ImportError:  # pragma: no cover - not POSIX; the suite runs on Linux only
        return  # the parent's own kill at the limit still applies
    # SIGALRM's default action terminates: nothing inside this process can outlast the limit.
    signal.setitimer(signal.ITIMER_REAL, time_limit_s)
    cap = MEMORY_LIMIT_BYTES + 8 * job_bytes
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    # A lower limit already set is kept; a cap below soft is below hard too (soft <= hard).
    if soft == resource.RLIM_INFINITY or soft > cap:
        resource.setrlimit(resource.RLIMIT_AS, (cap, hard))


class _Progress:
    """Where the search is, for the watchdog thread: it answers for a search that ran out of
    time (matching releases the interpreter lock, so it gets to run), and the timer ends the
    process when it cannot (compiling holds the lock)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.at: tuple[int, int] | None = None
        self.done = False

    def answer(self, answer: Any) -> None:
        with self.lock:
            if self.done:
                return
            self.done = True
            sys.stdout.buffer.write(pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL))
            sys.stdout.buffer.flush()

    def watch(self, seconds: float) -> None:
        time.sleep(max(seconds, 0.0))
        at = self.at
        self.answer(("timeout", *at) if at is not None else ("compiling",))
        os._exit(0)


def _search(pattern: str, ignore_case: bool, progress: _Progress, files: list[list[str]]) -> Any:
    import regex

    try:
        rx = regex.compile(pattern, regex.V0 | (regex.IGNORECASE if ignore_case else 0))
    except regex.error as e:
        return ("invalid", e.msg, e.pos)
    except RecursionError:
        return ("nested", "")
    sys.stdout.buffer.write(b"C")
    sys.stdout.buffer.flush()
    hits: list[list[tuple[int, int]]] = []
    for f, lines in enumerate(files):
        found: list[tuple[int, int]] = []
        for i, text in enumerate(lines):
            progress.at = (f, i)
            m = rx.search(text, concurrent=True)  # concurrent: without the interpreter lock
            if m is not None:
                found.append((i, m.start()))
        hits.append(found)
    return ("hits", hits)


def main() -> None:
    data = sys.stdin.buffer.read()
    sys_path, pattern, ignore_case, time_limit_s, files = pickle.loads(data)
    _limit(time_limit_s, len(data))
    progress = _Progress()
    report_in = time_limit_s - min(REPORT_MARGIN_S, time_limit_s / 4)
    threading.Thread(target=progress.watch, args=(report_in,), daemon=True).start()
    sys.path[:] = sys_path  # the caller's, so this imports the `regex` the caller would
    try:
        answer = _search(pattern, ignore_case, progress, files)
    except MemoryError:
        answer = ("memory", "")
    progress.answer(answer)


if __name__ == "__main__":
    main()
