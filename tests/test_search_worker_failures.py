"""Memory search (memfs.search) when its regular-expression process fails: it never starts in
time, or it dies; and a search over a workspace with no memory area, a bad context, or a file
removed while it is searched."""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path

import pytest
from memfs import InMemoryFileStore, MemFS, search
from memfs.search import SearchPatternError, search_memory

from tests.test_history_refusals import Racing

TODAY = dt.date(2026, 12, 1)
ROLE = b"---\nname: a\nmetadata:\n  type: user\n---\nThe user is a process engineer.\n"


@pytest.fixture
def fs() -> MemFS:
    fs = MemFS(InMemoryFileStore(), clock=lambda: TODAY)
    fs.pipe_file("memory/a.md", ROLE)
    return fs


def test_a_worker_that_does_not_finish_in_time_is_ended_and_the_search_refused(
    fs: MemFS, monkeypatch: pytest.MonkeyPatch
) -> None:
    # no time at all for the process to start: the caller's own wait runs out and kills it
    monkeypatch.setattr(search, "WORKER_START_S", -0.49)
    with pytest.raises(SearchPatternError) as caught:
        search_memory(fs, "process", regex=True, time_limit_s=0.5)
    assert str(caught.value).startswith(
        "The regular expression 'process' ran past the search's time limit (0.5 s)"
    )


def test_a_worker_that_dies_is_one_line_with_its_last_error(
    fs: MemFS, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # the worker imports `regex` from the caller's path: a broken one there makes it die
    (tmp_path / "regex.py").write_text("raise ImportError('this regex is broken')\n")
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    with pytest.raises(ChildProcessError) as caught:
        search_memory(fs, "process", regex=True)
    assert str(caught.value) == (
        "The regular-expression search process failed (exit 1: ImportError: this regex is "
        "broken); search for the text without regex, or report this."
    )


def test_a_pattern_whose_compile_runs_out_of_memory_says_so() -> None:
    # the worker's answer for MemoryError (tests/test_regex_worker.py forces that answer)
    assert search._refusal("'(?:x{60000}){60000}'", 2.0, ("memory", ""), []) == (
        "The regular expression '(?:x{60000}){60000}' needs more memory to compile than a "
        "search may use: its repeats multiply (such as (?:x{1000}){1000}). Simplify it, or "
        "search for the text as it is, without regex."
    )


def test_a_workspace_with_no_memory_area_has_nothing_to_find() -> None:
    empty = MemFS(InMemoryFileStore(), clock=lambda: TODAY)
    empty.pipe_file("README.md", b"process\n")
    assert search_memory(empty, "process").files == []


def test_a_negative_context_is_refused(fs: MemFS) -> None:
    with pytest.raises(SearchPatternError) as caught:
        search_memory(fs, "process", context=-1)
    assert str(caught.value) == "context must be 0 or more lines, not -1."


def test_a_file_removed_while_the_search_runs_is_left_out() -> None:
    store = Racing()
    fs = MemFS(store, clock=lambda: TODAY)
    fs.pipe_file("memory/a.md", ROLE)
    fs.pipe_file("memory/b.md", ROLE.replace(b"name: a", b"name: b"))
    store.before_read["memory/a.md"] = lambda: InMemoryFileStore.delete(store, "memory/a.md")
    assert [f.path for f in search_memory(fs, "process").files] == ["memory/b.md"]
