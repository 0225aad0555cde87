"""A forked writer that reports each step it completes, killed once the parent has seen enough.

Crash tests kill a writer mid-write. Killing after a random sleep makes what the writer got done
depend on how loaded the machine is: a loaded one gets nothing written before the kill, and the
test measures the scheduler. Here the child writes one byte to a pipe after each completed step;
the parent reads until it has seen the steps it asked for, then kills (after an optional short
pause, which only moves the kill to a different point inside the next step). The count decides
what the test checks; time only bounds how long the parent waits for it.
"""

from __future__ import annotations

import os
import select
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass

WAIT_CAP_S = 120.0
"""How long the parent waits for the steps it asked for before failing: far past what a loaded
machine needs (a step is one file write), short of pytest's own timeout."""


@dataclass
class Kill:
    completed: int
    """Steps the child reported done before SIGKILL landed (every byte it wrote to the pipe)."""
    status: int
    """The child's wait status."""
    step_s: float | None
    """Seconds between the first and the last step the parent saw, per step (None under two):
    how long a step takes on this machine now, to draw the next pause from."""


def kill_after_steps(
    work: Callable[[Callable[[], None]], object], steps: int, *, pause_s: float = 0.0
) -> Kill:
    """Fork a child running ``work(step_done)``, where ``step_done()`` reports one finished step;
    SIGKILL it once it has reported ``steps`` (``0``: as soon as it runs), ``pause_s`` later."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: work until killed; never return into pytest
        try:
            os.close(read_end)
            work(lambda: _report(write_end))
        finally:
            os._exit(1)
    os.close(write_end)
    try:
        seen, step_s = _wait_for(read_end, pid, steps)
        if pause_s:
            time.sleep(pause_s)
        os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        return Kill(seen + _drain(read_end), status, step_s)
    finally:
        os.close(read_end)


def _report(fd: int) -> None:
    os.write(fd, b".")


def _wait_for(fd: int, pid: int, steps: int) -> tuple[int, float | None]:
    seen = 0
    deadline = time.monotonic() + WAIT_CAP_S
    first = last = 0.0
    while seen < steps:
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        chunk = os.read(fd, 4096) if ready else None
        if not chunk:  # timed out (None) or the child ended on its own (b"")
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            why = "ended" if chunk == b"" else f"took over {WAIT_CAP_S:.0f}s"
            raise AssertionError(f"the writer {why} after {seen} of {steps} steps")
        last = time.monotonic()
        if not seen:
            first = last
        seen += len(chunk)
    return seen, ((last - first) / (seen - 1) if seen > 1 and last > first else None)


def _drain(fd: int) -> int:
    """Bytes left in the pipe once the child is dead (its write end is closed, so EOF comes)."""
    n = 0
    while chunk := os.read(fd, 4096):
        n += len(chunk)
    return n
