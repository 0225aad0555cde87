"""The regular-expression worker (memfs.regex_worker) spoken to over its pipe, as memfs.search
does: the job pickled on stdin, ``b"C"`` once the pattern is compiled, then one pickled answer.

tests/test_search.py drives the same worker through ``search_memory`` (``python -S -P``); here
it is started without ``-S``, so the interpreter's site hooks run in it as in any child process
the suite starts (the coverage measurement's among them), and each answer is checked as sent.
"""

from __future__ import annotations

import io
import pickle
import resource
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from memfs import regex_worker

WORKER = Path(regex_worker.__file__)


def ask(
    pattern: str,
    files: list[list[str]],
    *,
    time_limit_s: float = 5.0,
    ignore_case: bool = False,
    before: Callable[[], None] | None = None,
) -> tuple[int, bool, Any]:
    """The worker's exit status, whether it said the pattern compiled, and its answer (None
    when it wrote none)."""
    job = pickle.dumps((sys.path, pattern, ignore_case, time_limit_s, files))
    proc = subprocess.run(
        [sys.executable, "-P", str(WORKER)],
        input=job,
        capture_output=True,
        preexec_fn=before,
        timeout=time_limit_s + 60,
        check=False,
    )
    out = proc.stdout
    compiled = out.startswith(b"C")
    rest = out[1:] if compiled else out
    return proc.returncode, compiled, pickle.loads(rest) if rest else None


def test_hits_are_the_first_match_of_each_matching_line_per_file() -> None:
    files = [["abc", "x", "cbb"], [], ["bb"]]
    assert ask("b+", files) == (0, True, ("hits", [[(0, 1), (2, 1)], [], [(0, 0)]]))
    assert ask("B", files, ignore_case=True) == (
        0,
        True,
        ("hits", [[(0, 1), (2, 1)], [], [(0, 0)]]),
    )
    assert ask("B", files) == (0, True, ("hits", [[], [], []]))


def test_a_pattern_that_does_not_compile_is_answered_with_the_parsers_message() -> None:
    assert ask("(", [["a"]]) == (0, False, ("invalid", "missing )", 1))
    assert ask("a{2,1}", [["a"]]) == (
        0,
        False,
        (
            "invalid",
            "min repeat greater than max repeat",
            2,
        ),
    )


def test_a_pattern_nested_past_the_parsers_depth_is_answered_nested() -> None:
    pattern = "(" * 900 + "a" + ")" * 900
    assert ask(pattern, [["a"]]) == (0, False, ("nested", ""))


def _address_space(limit_bytes: int) -> Callable[[], None]:
    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))

    return cap


def test_compiling_past_the_memory_cap_is_answered_memory_and_a_lower_cap_is_kept() -> None:
    # 300 MB is far below the worker's own cap: the worker keeps it (setting its own, higher,
    # cap would fail) and the repeats that multiply run out of it within a second or two
    status = ask("(?:x{60000}){60000}", [["x"]], before=_address_space(300 << 20))
    assert status == (0, False, ("memory", ""))


ANSWERED_AT_THE_LIMIT = (0, -signal.SIGALRM)
"""The watchdog answers a margin before the timer, then exits; on a loaded machine (or one
whose exit saves measurements) the timer may end the process after the answer is out."""


def test_matching_at_the_time_limit_is_answered_with_the_file_and_line_it_reached() -> None:
    files = [["fine"], ["fine", "a" * 60 + "b", "never reached"]]
    returncode, compiled, answer = ask("(a|aa)+$", files, time_limit_s=1.0)
    assert (compiled, answer) == (True, ("timeout", 1, 1))
    assert returncode in ANSWERED_AT_THE_LIMIT


def test_a_pattern_still_being_parsed_at_the_time_limit_is_answered_compiling() -> None:
    # the regex parser is Python code, so the watchdog thread runs while it parses 900,000
    # characters (20 s or more) and answers before the timer ends the process: at 1.75 s, the
    # limit less the whole margin, so a thread not scheduled for a while still answers in time
    returncode, compiled, answer = ask("(?:ab|cd)" * 100_000, [["ab"]], time_limit_s=2.0)
    assert (compiled, answer) == (False, ("compiling",))
    assert returncode in ANSWERED_AT_THE_LIMIT


def test_compiling_that_holds_the_interpreter_lock_is_ended_by_the_timer() -> None:
    # compiling these repeats is one C call: SIGALRM ends it. The watchdog answers only if it
    # ran before that call took the interpreter lock (a loaded machine); either way the
    # pattern never compiled and the process did not outlive the limit
    returncode, compiled, answer = ask("(?:x{1000}){1000}", [["x"]], time_limit_s=0.2)
    assert compiled is False
    if returncode == 0:  # the watchdog answered first, then ended the process itself
        assert answer == ("compiling",)
    else:
        assert returncode == -signal.SIGALRM
        assert answer in (None, ("compiling",))


class _Stdout:
    def __init__(self) -> None:
        self.buffer = io.BytesIO()


def test_only_the_first_answer_is_written(monkeypatch: pytest.MonkeyPatch) -> None:
    # the watchdog and the search may both reach the end at the limit: one answer goes out
    out = _Stdout()
    monkeypatch.setattr(sys, "stdout", out)
    progress = regex_worker._Progress()
    progress.answer(("hits", [[(0, 0)]]))
    progress.answer(("timeout", 0, 0))
    assert pickle.loads(out.buffer.getvalue()) == ("hits", [[(0, 0)]])
    assert len(out.buffer.getvalue()) == len(
        pickle.dumps(("hits", [[(0, 0)]]), protocol=pickle.HIGHEST_PROTOCOL)
    )
