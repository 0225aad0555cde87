"""Plain-text search over memory files: the one search behind ``memfs grep`` and the MCP tool
``search_memory``.

What is searched: every memory file of the workspace's layout (not the index, which every turn
already carries), line by line — its body and its frontmatter ``name`` and ``description``
fields (their lines, continuation lines included); other frontmatter keys (``metadata.type``,
dates) are not searched, so a search for "user" finds memories about users rather than every
memory of type ``user``. The pattern is a literal substring unless ``regex`` is set, and may be
matched ignoring case. A literal is searched in this process by Python's own engine (it
cannot backtrack). A regular expression (Python's ``re`` syntax, the ``regex`` library) is
bounded as a whole: at most :data:`MAX_PATTERN_CHARS` long, and compiled and matched together
under one time limit (:data:`TIME_LIMIT_S`) and a memory cap, in a process of its own
(:mod:`memfs.regex_worker`). Compiling cannot be interrupted and holds the interpreter lock, so
inside the MCP server it would stall every other session; in a child process only the caller's
thread waits, on a pipe. A pattern that backtracks without end (``(a|aa)+$``), one whose repeats
multiply at compile time (``(?:x{1000}){1000}``), one nested too deeply: each is refused with one
line that says why (:class:`SearchPatternError`). No embeddings and no index of its own: recall
stays "the index always in context, files read on demand", and this is a way to find the file
to read.

Files are read through :class:`~memfs.filesystem.MemFS` (so path confinement and the mount's
rules apply) in the raw view: a match is never inside the staleness reminder, and line numbers
are those of the stored file, the ones ``edit_file`` and an editor see. The formatted result
is escaped (:func:`memfs.tags.escape_for_agent`): a body holding ``<system-reminder>`` prints
inert, as any other surface shows it.
"""

from __future__ import annotations

import pickle
import re
import signal
import subprocess
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from memfs import errors
from memfs.errors import SearchPatternError
from memfs.frontmatter_block import frontmatter_span
from memfs.tags import escape_for_agent

if TYPE_CHECKING:
    from memfs.views import RawWorkspace

SEARCHED_FIELDS = ("name", "description")
"""The frontmatter fields searched besides the body."""

DEFAULT_CONTEXT = 1
"""Lines shown before and after each matching line."""

MAX_CONTEXT = 10

TIME_LIMIT_S = 2.0
"""Seconds a regular-expression search may spend compiling and matching, all files together."""

WORKER_START_S = 10.0
"""Beyond the time limit, how long the search waits for its process to start before ending it
(the limit itself is kept by the process, from when it has the job)."""

MAX_PATTERN_CHARS = 1_000
"""The longest pattern searched for: memory is searched line by line, and a longer pattern is a
pasted document or an attack on the compiler, never one line's text."""

SHOWN_PATTERN_CHARS = 100
"""How much of a pattern a message quotes."""

MAX_LINE_CHARS = 240
"""A longer line is shown cut around its first match, with '…' where it was cut."""

_KEY = re.compile(r"([A-Za-z_][\w-]*)[ \t]*:")

Part = Literal["name", "description", "body"]


@dataclass(frozen=True)
class Line:
    number: int
    """1-based line number in the stored file."""
    text: str
    part: Part
    match: bool = False
    start: int | None = None
    """Where the line's first match starts (a matching line only)."""


@dataclass
class FileMatches:
    """The lines shown for one memory file: matching lines and their context, in file order."""

    path: str
    lines: list[Line] = field(default_factory=list)

    @property
    def matches(self) -> int:
        return sum(1 for ln in self.lines if ln.match)


@dataclass
class SearchResult:
    pattern: str
    files_searched: int
    files: list[FileMatches] = field(default_factory=list)
    omitted: int = 0
    """Matching lines found beyond ``limit`` and not shown."""

    @property
    def matches(self) -> int:
        return sum(f.matches for f in self.files)


def check_pattern(pattern: str) -> None:
    """:class:`SearchPatternError` saying what to fix, for a pattern no search could use (a
    regular expression's own syntax is checked where it is compiled, under the time limit)."""
    if not pattern:
        raise SearchPatternError("The search pattern is empty; give the text to look for.")
    if "\n" in pattern or "\r" in pattern:
        raise SearchPatternError(
            "The search pattern holds a line break; memory is searched line by line, so search "
            "for one line's text."
        )
    if len(pattern) > MAX_PATTERN_CHARS:
        raise SearchPatternError(
            f"The search pattern is {len(pattern):,} characters long; the limit is "
            f"{MAX_PATTERN_CHARS:,}. Search for a shorter part of the line."
        )


class _Run:
    """A run of searched lines (inside which context is shown), kept as their numbers, texts
    and parts: a :class:`Line` is made only for a line that is shown."""

    __slots__ = ("numbers", "parts", "source", "texts")

    def __init__(
        self,
        numbers: Sequence[int],
        texts: Sequence[str],
        parts: Sequence[Part],
        source: str | None = None,
    ) -> None:
        self.numbers, self.texts, self.parts = numbers, texts, parts
        self.source = source
        """The text ``texts`` were split from (:func:`split_lines`), for a body."""

    def __len__(self) -> int:
        return len(self.texts)

    def line(self, i: int, *, start: int | None = None) -> Line:
        """Line ``i`` of the run; a matching one when its match's ``start`` is given."""
        if start is None:
            return Line(self.numbers[i], self.texts[i], self.parts[i])
        return Line(self.numbers[i], self.texts[i], self.parts[i], match=True, start=start)


def _body_run(text: str, first: int) -> _Run:
    texts = split_lines(text)
    return _Run(range(first, first + len(texts)), texts, ["body"] * len(texts), text)


def _runs(text: str) -> list[_Run]:
    """The runs of :func:`searchable_parts`."""
    span = frontmatter_span(text)
    if span is None:
        return [_body_run(text, 1)]
    start, close, body_start = span
    first = 1 + text.count("\n", 0, start)
    fields, head_count = _field_lines(text[start:close])
    return [
        _Run(
            [first + i for i, _, _ in fields], [ln for _, ln, _ in fields], [k for *_, k in fields]
        ),
        _body_run(text[body_start:], first + head_count + 1),
    ]


def searchable_parts(text: str) -> list[list[Line]]:
    """The searched lines of a memory file's text, as runs inside which context is shown:
    the ``name`` and ``description`` lines of the frontmatter, then the body."""
    return [[run.line(i) for i in range(len(run))] for run in _runs(text)]


def _field_lines(head: str) -> tuple[list[tuple[int, str, Part]], int]:
    """``(index, text, field)`` of each searched frontmatter line, and how many lines the
    head has."""
    fields: list[tuple[int, str, Part]] = []
    key: str | None = None
    head_lines = split_lines(head)
    for i, ln in enumerate(head_lines):
        if m := _KEY.match(ln):  # a top-level key; indented and blank lines continue one
            key = m.group(1)
        if key in SEARCHED_FIELDS:
            fields.append((i, ln, key))  # type: ignore[arg-type]
    return fields, len(head_lines)


def split_lines(text: str) -> list[str]:
    """Lines as an editor and ``edit_file`` count them: split at ``\n`` only (``str.splitlines``
    would also split at form feeds and U+2028), a trailing ``\r`` dropped."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [ln.removesuffix("\r") for ln in lines]


_new = object.__new__


def _line(number: int, text: str, part: Part, start: int | None = None) -> Line:
    """``Line(number, text, part, match=start is not None, start=start)``, built as unpickling
    builds it: a frozen dataclass's ``__init__`` sets each field through
    ``object.__setattr__``, and a search that shows 90,000 lines made as many."""
    ln: Line = _new(Line)
    ln.__dict__.update(number=number, text=text, part=part, match=start is not None, start=start)
    return ln


def _literal_file(
    path: str, text: str, literal: re.Pattern[str], context: int, keep: int | None
) -> tuple[FileMatches, int] | None:
    """What :func:`_with_context` shows of ``text`` for the lines of :func:`searchable_parts`
    that hold ``literal`` (the first ``keep`` of them), and how many hold it; None if none
    does.

    The body is searched as one text and never split: a literal holds no line break
    (:func:`check_pattern`), so each match lies in one line, and the first match that starts
    in a line is the one a search of that line finds. Only the lines shown are cut out, found
    from the match by the line breaks around it."""
    span = frontmatter_span(text)
    if span is None:
        fields: list[tuple[int, str, Part]] = []
        body_start, body_first = 0, 1
    else:
        start, close, body_start = span
        first = 1 + text.count("\n", 0, start)
        head_count = text.count("\n", start, close)  # its lines, as split_lines counts them
        if close > start and text[close - 1] != "\n":
            head_count += 1
        body_first = first + head_count + 1
        # the head's searched lines, only if the head holds the literal at all
        fields = (
            [] if literal.search(text, start, close) is None else _field_lines(text[start:close])[0]
        )
    m = literal.search(text, body_start)
    field_hits = [
        (i, f.start()) for i, (_, ln, _) in enumerate(fields) if (f := literal.search(ln))
    ]
    if m is None and not field_hits:
        return None
    shown: dict[int, Line] = {}
    found = 0
    if field_hits:
        numbers = [first + i for i, _, _ in fields]
        for i, at in field_hits:
            found += 1
            if keep is not None and found > keep:
                continue
            for j in range(max(0, i - context), min(len(fields), i + context + 1)):
                if j != i and numbers[j] not in shown:
                    shown[numbers[j]] = _line(numbers[j], fields[j][1], fields[j][2])
            shown[numbers[i]] = _line(numbers[i], fields[i][1], fields[i][2], at)
    size = len(text)
    line, counted = 0, body_start  # the body line (0-based) that holds ``counted``
    while m is not None:
        at = m.start()
        line += text.count("\n", counted, at)
        counted = at
        begin = text.rfind("\n", body_start, at) + 1 or body_start
        end = text.find("\n", at)
        found += 1
        if keep is None or found <= keep:
            number = body_first + line
            b, k = begin, number
            while k > number - context and b > body_start:  # the context before
                k -= 1
                prev = text.rfind("\n", body_start, b - 1) + 1 or body_start
                if k not in shown:
                    shown[k] = _line(k, text[prev : b - 1].removesuffix("\r"), "body")
                b = prev
            e, k = end, number
            while k < number + context and e >= 0 and e + 1 < size:  # the context after
                k += 1
                nxt = text.find("\n", e + 1)
                if k not in shown:
                    shown[k] = _line(
                        k, text[e + 1 : nxt if nxt >= 0 else size].removesuffix("\r"), "body"
                    )
                e = nxt
            own = text[begin : end if end >= 0 else size].removesuffix("\r")
            shown[number] = _line(number, own, "body", at - begin)
        if end < 0:
            break
        m = literal.search(text, end + 1)
    return FileMatches(path, [shown[n] for n in sorted(shown)]), found


def _regex_matches(
    pattern: str, ignore_case: bool, files: list[tuple[str, list[_Run]]], limit_s: float
) -> list[list[tuple[int, int]]]:
    """``(line index, first match's start)`` of each line of each file's runs (joined) that
    matches ``pattern``, compiled and matched in :mod:`memfs.regex_worker` under ``limit_s``;
    each way it can fail is one line."""
    texts = [_texts(runs) for _, runs in files]
    job = pickle.dumps(
        (sys.path, pattern, ignore_case, limit_s, texts), protocol=pickle.HIGHEST_PROTOCOL
    )
    # -S -P: no site, and not the script's directory (memfs/) on the path; it takes ours.
    proc = subprocess.Popen(
        [sys.executable, "-S", "-P", str(Path(__file__).with_name("regex_worker.py"))],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        out, err = proc.communicate(job, timeout=limit_s + WORKER_START_S)
    except subprocess.TimeoutExpired:  # the worker's own timer failed to end it
        proc.kill()
        out, err = proc.communicate()
    compiled = out.startswith(b"C")
    shown = _shown(pattern)
    if proc.returncode != 0:
        if proc.returncode in (-signal.SIGALRM, -signal.SIGKILL):
            raise SearchPatternError(_too_slow(shown, limit_s, compiled=compiled))
        last = err.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no message"]
        raise ChildProcessError(
            f"The regular-expression search process failed (exit {proc.returncode}: {last[0]}); "
            "search for the text without regex, or report this."
        )
    answer = pickle.loads(out[1:] if compiled else out)
    if answer[0] == "hits":
        return answer[1]  # type: ignore[no-any-return]
    raise SearchPatternError(_refusal(shown, limit_s, answer, files))


def _refusal(
    shown: str, limit_s: float, answer: tuple[Any, ...], files: list[tuple[str, list[_Run]]]
) -> str:
    """The one line for a worker's answer that is not hits (see :mod:`memfs.regex_worker`)."""
    kind = answer[0]
    without = "or search for the text as it is, without regex."
    if kind == "invalid":
        where = f" at position {answer[2]}" if answer[2] is not None else ""
        return f"Invalid regular expression {shown}: {answer[1]}{where}. Fix it, {without}"
    if kind == "nested":
        return (
            f"The regular expression {shown} is nested too deeply to compile. Use fewer nested "
            f"groups, {without}"
        )
    if kind == "memory":
        return (
            f"The regular expression {shown} needs more memory to compile than a search may "
            "use: its repeats multiply (such as (?:x{1000}){1000}). Simplify it, " + without
        )
    if kind == "compiling":
        return _too_slow(shown, limit_s, compiled=False)
    path, runs = files[answer[1]]  # "timeout": matching, at this line
    run, i = _locate(runs, answer[2])
    where = f", at {path} line {run.numbers[i]}"
    return _too_slow(shown, limit_s, compiled=True, where=where)


def _too_slow(shown: str, limit_s: float, *, compiled: bool, where: str = "") -> str:
    why = (
        "it backtracks too much. Simplify it (no nested repeats such as (a+)+ or (a|aa)+)"
        if compiled
        else "it is too large to compile in time, or its repeats multiply (such as "
        "(?:x{1000}){1000}). Simplify it"
    )
    return (
        f"The regular expression {shown} ran past the search's time limit ({limit_s:g} s"
        f"{where}): {why}, or search for the text as it is, without regex."
    )


def _shown(pattern: str) -> str:
    """The pattern as a message quotes it: whole up to a point, then cut."""
    if len(pattern) <= SHOWN_PATTERN_CHARS:
        return repr(pattern)
    return repr(pattern[:SHOWN_PATTERN_CHARS]) + f"… ({len(pattern):,} characters)"


def _texts(runs: list[_Run]) -> list[str]:
    """The lines of a file's runs, joined: what a match's line index counts."""
    return [text for run in runs for text in run.texts]


def _locate(runs: list[_Run], flat: int) -> tuple[_Run, int]:
    """The run holding line ``flat`` of the runs joined, and the line's index in it."""
    for run in runs[:-1]:
        if flat < len(run):
            return run, flat
        flat -= len(run)
    return runs[-1], flat


def _with_context(
    path: str, runs: list[_Run], hits: list[tuple[int, int]], context: int, keep: int | None
) -> FileMatches:
    """The first ``keep`` matching lines of one file (``hits`` index its lines, runs joined)
    with their context; context never crosses from one run into the next."""
    shown: dict[int, Line] = {}
    for n, (flat, start) in enumerate(hits):
        if keep is not None and n >= keep:
            break
        run, i = _locate(runs, flat)
        for j in range(max(0, i - context), min(len(run), i + context + 1)):
            if j != i and run.numbers[j] not in shown:
                shown[run.numbers[j]] = run.line(j)
        shown[run.numbers[i]] = run.line(i, start=start)
    return FileMatches(path, [shown[n] for n in sorted(shown)])


def memory_paths(fs: RawWorkspace, files: Iterable[str] | None = None) -> list[str]:
    """Every memory file of the workspace's layout, sorted. A workspace with no memory
    directory has none; a workspace whose directory is gone is the store's error (nothing
    could be read), never an empty memory.

    ``files``: every file of the workspace, from a listing the caller just made
    (``fs.find("")``); the memory files are taken from it. When it holds none, the memory
    directory is listed after all, so that one that is a link or is gone is refused as
    before, not read as an empty memory."""
    if files is not None:
        found = sorted(p for p in files if fs.is_memory_file(p))
        if found:
            return found
    return sorted(p for p in fs.find(fs.layout.memory_dir) if fs.is_memory_file(p))


def needle_bytes(pattern: str) -> bytes | None:
    """The stored bytes every file holding the literal ``pattern`` (matched with its case)
    holds, or None when the bytes cannot tell: a file is decoded with each invalid byte
    replaced by U+FFFD, so a pattern holding U+FFFD may match where its bytes are not, and a
    pattern holding a lone surrogate has no bytes. Anywhere else a match in the text is the
    pattern's UTF-8 bytes in the file: the decoder reads each valid sequence as itself."""
    if "\ufffd" in pattern:
        return None
    try:
        return pattern.encode("utf-8")
    except UnicodeEncodeError:
        return None


def search_memory(
    fs: RawWorkspace,
    pattern: str,
    *,
    regex: bool = False,
    ignore_case: bool = False,
    context: int = DEFAULT_CONTEXT,
    limit: int | None = None,
    time_limit_s: float = TIME_LIMIT_S,
    files: Iterable[str] | None = None,
) -> SearchResult:
    """Search the memory files of ``fs`` (see the module docstring); at most ``limit``
    matching lines are kept, the others counted in ``omitted``. A regular expression that
    runs past ``time_limit_s`` raises :class:`SearchPatternError` (nothing is returned).
    ``files`` as :func:`memory_paths` takes it."""
    if context < 0:
        raise SearchPatternError(f"context must be 0 or more lines, not {context}.")
    check_pattern(pattern)
    raw = fs.raw
    texts: list[tuple[str, str]] = []
    needle = None if regex or ignore_case else needle_bytes(pattern)
    searched_files = 0
    for path, data in raw.cat_many(memory_paths(fs, files)):
        if isinstance(data, FileNotFoundError | IsADirectoryError | errors.UnsafePathError):
            continue  # removed, or swapped for a link, since it was listed
        if isinstance(data, OSError):
            raise data
        searched_files += 1
        if needle is not None and needle not in data:
            continue  # no line of it can hold the literal: not decoded
        texts.append((path, data.decode("utf-8", errors="replace")))
    if regex:
        searched = [(path, _runs(text)) for path, text in texts]
        hits = _regex_matches(pattern, ignore_case, searched, time_limit_s)
    else:  # a literal cannot backtrack: Python's own engine, in this process, no limit needed
        literal = re.compile(re.escape(pattern), re.IGNORECASE if ignore_case else 0)
        result = SearchResult(pattern, files_searched=searched_files)
        kept = 0  # matching lines shown so far: result.matches, counted as they come
        for path, text in texts:
            got = _literal_file(
                path, text, literal, context, None if limit is None else max(limit - kept, 0)
            )
            if got is not None:
                kept += _add(result, *got)
        return result
    result = SearchResult(pattern, files_searched=searched_files)
    kept = 0
    for (path, runs), found in zip(searched, hits, strict=True):
        keep = None if limit is None else max(limit - kept, 0)
        kept += _add(result, _with_context(path, runs, found, context, keep), len(found))
    return result


def _add(result: SearchResult, shown: FileMatches, found: int) -> int:
    """Add one file's shown lines to ``result`` (``found`` its matching lines, shown or not);
    how many matching lines it showed."""
    matches = shown.matches
    result.omitted += found - matches
    if shown.lines:
        result.files.append(shown)
    return matches


def _clip(ln: Line) -> str:
    text = ln.text
    if len(text) <= MAX_LINE_CHARS:
        return text
    start = max(0, (ln.start or 0) - MAX_LINE_CHARS // 3)  # around the line's first match
    end = start + MAX_LINE_CHARS
    return ("…" if start else "") + text[start:end] + ("…" if end < len(text) else "")


def format_matches(result: SearchResult) -> str:
    """grep's format, escaped for an agent: ``path:line:text`` for a matching line,
    ``path-line-text`` for context, ``--`` between runs that are not adjacent."""
    out: list[str] = []
    for found in result.files:
        previous: int | None = None
        for ln in found.lines:
            if out and (previous is None or ln.number != previous + 1):
                out.append("--")
            sep = ":" if ln.match else "-"
            text = ln.text if len(ln.text) <= MAX_LINE_CHARS else _clip(ln)
            out.append(f"{found.path}{sep}{ln.number}{sep}{text}")
            previous = ln.number
    return escape_for_agent("\n".join(out))


def describe(result: SearchResult) -> str:
    """One line saying what was found, for a person or an agent."""
    searched = f"{result.files_searched} memory file{'s' if result.files_searched != 1 else ''}"
    if not result.files:
        return escape_for_agent(
            f"No match for {result.pattern!r} in the names, descriptions or bodies of {searched}."
        )
    lines = result.matches
    text = (
        f"{lines} matching line{'s' if lines != 1 else ''} in {len(result.files)} of "
        f"{searched} for {result.pattern!r}"
    )
    if result.omitted:
        text += f"; {result.omitted} more not shown (narrow the pattern)"
    return escape_for_agent(text + ".")
