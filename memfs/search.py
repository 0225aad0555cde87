"""Plain-text search over memory files: the one search behind ``memfs grep`` and the MCP tool
``search_memory``.

What is searched: every memory file of the workspace's layout (not the index, which every turn
already carries), line by line — its body and its frontmatter ``name`` and ``description``
fields (their lines, continuation lines included); other frontmatter keys (``metadata.type``,
dates) are not searched, so a search for "user" finds memories about users rather than every
memory of type ``user``. The pattern is a literal substring unless ``regex`` is set, and may be
matched ignoring case. A regular expression is matched by the ``regex`` library (Python's ``re``
syntax) under a time limit for the whole search (:data:`TIME_LIMIT_S`): a pattern that
backtracks without end, such as ``(a|aa)+$``, is refused with a line that says so instead of
holding the MCP server or the command forever. No embeddings and no index of its own: recall
stays "the index always in context, files read on demand", and this is a way to find the file
to read.

Files are read through :class:`~memfs.filesystem.MemFS` (so path confinement and the mount's
rules apply) in the raw view: a match is never inside the staleness reminder, and line numbers
are those of the stored file, the ones ``edit_file`` and an editor see. The formatted result
is escaped (:func:`memfs.tags.escape_for_agent`): a body holding ``<system-reminder>`` prints
inert, as any other surface shows it.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any, Literal

import regex as _regex
from pydantic import BaseModel, ConfigDict, Field

from memfs import errors
from memfs.errors import SearchPatternError
from memfs.filesystem import MemFS
from memfs.frontmatter_block import split_frontmatter
from memfs.tags import escape_for_agent

SEARCHED_FIELDS = ("name", "description")
"""The frontmatter fields searched besides the body."""

DEFAULT_CONTEXT = 1
"""Lines shown before and after each matching line."""

MAX_CONTEXT = 10

TIME_LIMIT_S = 2.0
"""Seconds a regular-expression search may spend matching, over all files together."""

MAX_LINE_CHARS = 240
"""A longer line is shown cut around its first match, with '…' where it was cut."""

_KEY = re.compile(r"([A-Za-z_][\w-]*)[ \t]*:")

Part = Literal["name", "description", "body"]


class SearchArgs(BaseModel):
    """The arguments of a memory search, as a tool call sends them."""

    model_config = ConfigDict(extra="ignore")

    pattern: str = Field(
        description="Text to find (case-sensitive substring unless regex or ignore_case is set)."
    )
    regex: bool = Field(default=False, description="Treat pattern as a Python regular expression.")
    ignore_case: bool = Field(default=False, description="Match regardless of letter case.")
    context: int = Field(
        default=DEFAULT_CONTEXT,
        ge=0,
        le=MAX_CONTEXT,
        description="Lines of context to show before and after each matching line.",
    )


@dataclass(frozen=True)
class Line:
    number: int
    """1-based line number in the stored file."""
    text: str
    part: Part
    match: bool = False


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
    rx: Any
    """The pattern as it was compiled: an ``re`` pattern for a literal, a ``regex`` one for a
    regular expression (searched under the time limit)."""
    files_searched: int
    files: list[FileMatches] = field(default_factory=list)
    omitted: int = 0
    """Matching lines found beyond ``limit`` and not shown."""

    @property
    def matches(self) -> int:
        return sum(f.matches for f in self.files)


def compile_pattern(pattern: str, *, regex: bool = False, ignore_case: bool = False) -> Any:
    """The compiled pattern, or :class:`SearchPatternError` saying what to fix."""
    if not pattern:
        raise SearchPatternError("The search pattern is empty; give the text to look for.")
    if "\n" in pattern or "\r" in pattern:
        raise SearchPatternError(
            "The search pattern holds a line break; memory is searched line by line, so search "
            "for one line's text."
        )
    if not regex:  # a literal cannot backtrack: Python's own engine, no limit needed
        return re.compile(re.escape(pattern), re.IGNORECASE if ignore_case else 0)
    try:
        return _regex.compile(pattern, _regex.V0 | (_regex.IGNORECASE if ignore_case else 0))
    except _regex.error as e:
        where = f" at position {e.pos}" if e.pos is not None else ""
        raise SearchPatternError(
            f"Invalid regular expression {pattern!r}: {e.msg}{where}. Fix it, or search for the "
            "text as it is, without regex."
        ) from None


def searchable_parts(text: str) -> list[list[Line]]:
    """The searched lines of a memory file's text, as runs inside which context is shown:
    the ``name`` and ``description`` lines of the frontmatter, then the body."""
    parts = split_frontmatter(text)
    if parts is None:
        return [_lines(text, 1, "body")]
    opening, head, rest = parts
    first = 1 + opening.count("\n")
    fields: list[Line] = []
    key: str | None = None
    head_lines = split_lines(head)
    for i, ln in enumerate(head_lines):
        if m := _KEY.match(ln):  # a top-level key; indented and blank lines continue one
            key = m.group(1)
        if key in SEARCHED_FIELDS:
            fields.append(Line(first + i, ln, key))  # type: ignore[arg-type]
    nl = rest.find("\n")
    body = "" if nl < 0 else rest[nl + 1 :]
    return [fields, _lines(body, first + len(head_lines) + 1, "body")]


def split_lines(text: str) -> list[str]:
    """Lines as an editor and ``edit_file`` count them: split at ``\n`` only (``str.splitlines``
    would also split at form feeds and U+2028), a trailing ``\r`` dropped."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [ln.removesuffix("\r") for ln in lines]


def _lines(text: str, first: int, part: Part) -> list[Line]:
    return [Line(first + i, ln, part) for i, ln in enumerate(split_lines(text))]


class _Matcher:
    """``search`` of one pattern under one deadline shared by every line of every file."""

    def __init__(self, rx: Any, pattern: str, limit_s: float) -> None:
        self.rx, self.pattern, self.limit_s = rx, pattern, limit_s
        self.limited = isinstance(rx, _regex.Pattern)
        self.deadline = time.monotonic() + limit_s

    def search(self, text: str, path: str, line: int) -> bool:
        if not self.limited:
            return self.rx.search(text) is not None
        try:
            left = max(self.deadline - time.monotonic(), 0.001)
            return self.rx.search(text, timeout=left) is not None
        except TimeoutError:
            raise SearchPatternError(
                f"The regular expression {self.pattern!r} ran past the search's time limit "
                f"({self.limit_s:g} s, at {path} line {line}): it backtracks too much. Simplify "
                "it (no nested repeats such as (a+)+ or (a|aa)+), or search for the text as it "
                "is, without regex."
            ) from None


def _matches_in(
    path: str, text: str, matcher: _Matcher, context: int, keep: int | None
) -> tuple[FileMatches, int]:
    """The first ``keep`` matching lines of one file with their context, and how many
    lines match in all."""
    shown: dict[int, Line] = {}
    total = 0
    for run in searchable_parts(text):
        for i, ln in enumerate(run):
            if not matcher.search(ln.text, path, ln.number):
                continue
            total += 1
            if keep is not None and total > keep:
                continue
            for j in range(max(0, i - context), min(len(run), i + context + 1)):
                if j != i and run[j].number not in shown:
                    shown[run[j].number] = run[j]
            shown[ln.number] = Line(ln.number, ln.text, ln.part, match=True)
    return FileMatches(path, [shown[n] for n in sorted(shown)]), total


def memory_paths(fs: MemFS) -> list[str]:
    """Every memory file of the workspace's layout, sorted."""
    try:
        found = fs.find(fs.layout.memory_dir)
    except FileNotFoundError:
        return []
    return sorted(p for p in found if fs.is_memory_file(p))


def search_memory(
    fs: MemFS,
    pattern: str,
    *,
    regex: bool = False,
    ignore_case: bool = False,
    context: int = DEFAULT_CONTEXT,
    limit: int | None = None,
    time_limit_s: float = TIME_LIMIT_S,
) -> SearchResult:
    """Search the memory files of ``fs`` (see the module docstring); at most ``limit``
    matching lines are kept, the others counted in ``omitted``. A regular expression that
    runs past ``time_limit_s`` raises :class:`SearchPatternError` (nothing is returned)."""
    if context < 0:
        raise SearchPatternError(f"context must be 0 or more lines, not {context}.")
    rx = compile_pattern(pattern, regex=regex, ignore_case=ignore_case)
    raw = fs.raw
    paths = memory_paths(fs)
    result = SearchResult(pattern, rx, files_searched=len(paths))
    matcher = _Matcher(rx, pattern, time_limit_s)
    for path in paths:
        try:
            data = raw.cat_file(path)
        except (FileNotFoundError, IsADirectoryError, errors.UnsafePathError):
            result.files_searched -= 1  # removed, or swapped for a link, since it was listed
            continue
        keep = None if limit is None else max(limit - result.matches, 0)
        text = data.decode("utf-8", errors="replace")
        found, total = _matches_in(path, text, matcher, context, keep)
        result.omitted += total - found.matches
        if found.lines:
            result.files.append(found)
    return result


def _clip(text: str, rx: Any) -> str:
    if len(text) <= MAX_LINE_CHARS:
        return text
    try:  # the line matched once already; cut around the match, or from the start if slow
        m = rx.search(text, timeout=0.1) if isinstance(rx, _regex.Pattern) else rx.search(text)
    except TimeoutError:
        m = None
    start = max(0, (m.start() if m else 0) - MAX_LINE_CHARS // 3)
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
            out.append(f"{found.path}{sep}{ln.number}{sep}{_clip(ln.text, result.rx)}")
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
