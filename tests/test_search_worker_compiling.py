"""A regular expression whose compiling runs out of time: the worker's watchdog answers
"compiling" (it got the interpreter lock before the timer ended the process), and the search
refuses with the too-large-to-compile line, naming the limit, and returns nothing."""

from __future__ import annotations

import pickle
from typing import Any

import pytest
from memfs import InMemoryFileStore, MemFS
from memfs import search as search_mod
from memfs.search import SearchPatternError, search_memory

from tests.conftest import TODAY
from tests.test_history import memory


class _Watchdog:
    """The worker as its watchdog leaves it when time ran out while compiling: no ``C`` (not
    compiled), the ``("compiling",)`` answer, exit 0 (the watchdog's ``os._exit(0)``)."""

    returncode = 0

    def __init__(self, args: list[str], **kw: Any) -> None:
        self.args = args

    def communicate(self, job: bytes | None = None, timeout: float | None = None) -> Any:
        assert job is not None and pickle.loads(job)[1] == "(?:x{1000}){1000}"
        return pickle.dumps(("compiling",)), b""

    def kill(self) -> None:  # pragma: no cover - communicate never times out here
        pass


def test_a_pattern_whose_compiling_runs_past_the_limit_is_refused_as_too_large(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fs = MemFS(InMemoryFileStore(), clock=lambda: TODAY)
    fs.pipe_file("memory/a.md", memory("a", "xxxx"))
    monkeypatch.setattr(search_mod.subprocess, "Popen", _Watchdog)
    with pytest.raises(SearchPatternError) as got:
        search_memory(fs, "(?:x{1000}){1000}", regex=True, time_limit_s=0.5)
    assert str(got.value) == (
        "The regular expression '(?:x{1000}){1000}' ran past the search's time limit (0.5 s): "
        "it is too large to compile in time, or its repeats multiply (such as "
        "(?:x{1000}){1000}). Simplify it, or search for the text as it is, without regex."
    )
