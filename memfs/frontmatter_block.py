"""The YAML frontmatter block of a memory file: find it, read it leniently, date it, stamp it.

Kept separate from the record model because the filesystem needs only these things on its hot
path, and must never fail a read or a write because a file's frontmatter is broken.

Reading, in three tiers (:func:`read_frontmatter`):

1. the plain shape memory files use (``key: text`` lines and one ``metadata:`` block) is read
   without YAML, in microseconds, giving exactly what YAML would;
2. anything else goes to PyYAML's pure-Python safe loader — never the C loader, whose grammar
   differs at the edges (``tags: [c:, users]`` loads under one and is an error under the
   other), so a record does not depend on how PyYAML was installed;
3. frontmatter that is not YAML at all — Claude Code writes ``description: Cover letter
   standards: NYC, 1 page`` unquoted, or a value that opens with a quote and goes on after it —
   is read line by line: each top-level key and each child of a block such as ``metadata:``
   is parsed on its own, and a part YAML rejects is taken as the text a person reads there.
   The result says it was read that way (``how == "lines"``) and which lines it could not use.

Dates (:func:`memory_date`) are read with one precedence, documented in :data:`DATE_FIELDS`.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import Any, Literal, NamedTuple

import yaml

from memfs.errors import FrontmatterStampError


class _Loader(yaml.SafeLoader):
    """Safe loader that leaves timestamps as text, so a bad date is a bad date, not bad YAML.

    Pure Python on purpose: libyaml's C loader accepts and rejects different inputs.
    """


_Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
# ``!!binary`` stays its base64 text: frontmatter is text, and bytes do not survive JSON.
_Loader.add_constructor(
    "tag:yaml.org,2002:binary",
    yaml.SafeLoader.construct_yaml_str,  # type: ignore[type-var]
)

_OPEN = re.compile(r"\A(\ufeff?)---[ \t]*\r?\n")
_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.M)


def frontmatter_span(text: str) -> tuple[int, int, int] | None:
    """``(head start, closing fence start, body start)`` in ``text``; None without frontmatter.

    Positions, not slices: a caller that needs the head and the body copies each once (the
    body is most of a memory file)."""
    m = _OPEN.match(text)
    if not m:
        return None
    close = _CLOSE.search(text, m.end())
    if not close:
        return None
    return m.end(), close.start(), close.end()


def split_frontmatter(text: str) -> tuple[str, str, str] | None:
    """``(opening, yaml_text, rest)`` where ``rest`` starts at the closing fence; None if absent."""
    span = frontmatter_span(text)
    if span is None:
        return None
    start, close, _ = span
    return text[:start], text[start:close], text[close:]


# -- reading the block -------------------------------------------------------------------------

ReadHow = Literal["yaml", "lines", "none"]


class FrontmatterRead(NamedTuple):
    """What :func:`read_frontmatter` made of a frontmatter block."""

    data: dict[Any, Any] | None
    """The mapping; None when nothing could be read (``how == "none"``)."""
    how: ReadHow
    """``yaml`` (valid YAML, possibly through the plain-shape shortcut), ``lines`` (not YAML;
    read key by key), ``none`` (not a mapping, refused aliases, or nothing readable)."""
    error: str | None = None
    """Why it was not read as YAML, in one line; None when it was."""
    unread: tuple[int, ...] = ()
    """1-based line numbers in the block that line-by-line reading could not use."""

    @property
    def dated(self) -> dict[Any, Any] | None:
        """The mapping to take dates from: YAML, or line-by-line reading that used every line.

        Frontmatter with a line no reader could use gives no date: that line might have been
        the date, so nothing it leaves is trusted to say how old the memory is.
        """
        return self.data if self.how == "yaml" or not self.unread else None


def _read_frontmatter(yaml_text: str) -> FrontmatterRead:
    simple = parse_simple_mapping(yaml_text)
    if simple is not None:
        # tuple.__new__: NamedTuple's own __new__ is a Python call, once a file of a stats pass
        return tuple.__new__(FrontmatterRead, (simple, "yaml", None, ()))
    try:
        data = yaml.load(yaml_text, Loader=_Loader)
    except yaml.YAMLError as e:
        return _read_lines(yaml_text, _yaml_complaint(e))
    except (ValueError, TypeError, RecursionError) as e:
        return FrontmatterRead(None, "none", f"YAML could not be loaded ({type(e).__name__})")
    if data is None:
        return FrontmatterRead({}, "yaml")
    if not isinstance(data, dict):
        return FrontmatterRead(None, "none", f"the frontmatter is a {_kind(data)}, not a mapping")
    if _shares_containers(data):
        return FrontmatterRead(None, "none", "an alias makes two keys share one list or mapping")
    return FrontmatterRead(data, "yaml")


MEMO_ENTRIES = 2048
MEMO_MAX_TEXT = 4096
"""Frontmatter blocks up to this many characters are memoised, at most :data:`MEMO_ENTRIES` of
them: the memo holds at most 8 Mi characters of text (plus what was parsed from it), however
large the files. A longer block is read every time; memory frontmatter is a few hundred."""

_memo = lru_cache(maxsize=MEMO_ENTRIES)(_read_frontmatter)


def read_frontmatter(yaml_text: str) -> FrontmatterRead:
    """Read a frontmatter block (the text between the fences). Never raises.

    Memoised on the text: the same memory files are read on every turn of an item. The
    returned mapping is shared between callers; copy it before changing it.
    """
    if len(yaml_text) > MEMO_MAX_TEXT:
        return _read_frontmatter(yaml_text)
    return _memo(yaml_text)


read_frontmatter.cache_clear = _memo.cache_clear  # type: ignore[attr-defined]
read_frontmatter.cache_info = _memo.cache_info  # type: ignore[attr-defined]


class FileFrontmatter(NamedTuple):
    """A memory file taken apart by :func:`read_file_frontmatter`."""

    text: str
    """The file as text; bytes that are not UTF-8 replaced (``undecodable``)."""
    body: str
    """What follows the closing fence; without frontmatter, the text less a leading BOM."""
    read: FrontmatterRead | None
    """What the block between the fences gave; None when the file has no frontmatter."""
    undecodable: bool = False
    """Whether bytes that are not UTF-8 were replaced."""


def read_file_frontmatter(
    data: str | bytes, reader: Callable[[str], FrontmatterRead] | None = None
) -> FileFrontmatter:
    """Decode a memory file, find its frontmatter and read it (``reader``, by default
    :func:`read_frontmatter`). Never raises: the one place a whole file's frontmatter is read."""
    undecodable = False
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text, undecodable = data.decode("utf-8", errors="replace"), True
    else:
        text = data
    span = frontmatter_span(text)
    if span is None:
        body = text[1:] if text.startswith("\ufeff") else text
        return FileFrontmatter(text, body, None, undecodable)
    start, close, body_start = span  # the body is what follows the closing fence's line
    read = (reader or read_frontmatter)(text[start:close])
    # tuple.__new__: NamedTuple's own __new__ is a Python call, once a file of a stats pass
    return tuple.__new__(FileFrontmatter, (text, text[body_start:], read, undecodable))


def parse_yaml_mapping(yaml_text: str) -> dict[str, Any] | None:
    """The frontmatter as a dict when it is valid YAML and a mapping; otherwise None.

    Strict: frontmatter that only line-by-line reading understands is None here (the date
    stamp edits only what YAML reads the same way before and after). Also None when an alias
    makes two places share one list or mapping: a few lines of ``&a``/``*a`` (an "alias
    bomb") parse into a small object whose every comparison, copy or validation walks
    billions of paths, which would hang the write path on a memory file.
    """
    read = read_frontmatter(yaml_text)
    return read.data if read.how == "yaml" else None


parse_yaml_mapping.cache_clear = _memo.cache_clear  # type: ignore[attr-defined]


def _kind(data: Any) -> str:
    if isinstance(data, list):
        return "list"
    return "text" if isinstance(data, str) else type(data).__name__


def _yaml_complaint(e: yaml.YAMLError) -> str:
    problem = getattr(e, "problem", None) or str(e).splitlines()[0]
    mark = getattr(e, "problem_mark", None)
    where = f" (line {mark.line + 1})" if mark is not None else ""
    return f"not valid YAML: {problem}{where}"


# A key line: the key up to the first ':' that ends the line or is followed by a blank.
_KEY_LINE = re.compile(
    r"(?P<key>[^\s#'\"\[\]{},&*!|>%@`?:-][^:]*?|-[^\s:][^:]*?)"
    r"[ \t]*:(?:[ \t]+(?P<value>.*?))?[ \t]*"
)
_STRUCTURE_START = frozenset("[{&*!|>")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _blankish(line: str) -> bool:
    s = line.strip()
    return not s or s.startswith("#")


def _yaml_piece(lines: list[str]) -> Any:
    """YAML of one piece (a key and its children, dedented); raises on anything but a mapping."""
    data = yaml.load("\n".join(lines) + "\n", Loader=_Loader)
    if not isinstance(data, dict) or _shares_containers(data):
        raise ValueError("not a mapping")
    return data


def _read_lines(yaml_text: str, error: str) -> FrontmatterRead:
    lines = [line.rstrip("\r") for line in yaml_text.split("\n")]
    if lines and lines[-1] == "":
        lines.pop()
    unread: list[int] = []
    data = _read_block(lines, 1, unread)
    if not data:
        return FrontmatterRead(None, "none", error, tuple(unread))
    return FrontmatterRead(data, "lines", error, tuple(unread))


def _read_block(lines: list[str], first_no: int, unread: list[int]) -> dict[Any, Any]:
    """Read ``lines`` (one indentation level and what hangs under it) key by key."""
    out: dict[Any, Any] = {}
    level: int | None = None
    pieces: list[tuple[int, list[str]]] = []  # (line number, lines) per key at ``level``
    for no, line in enumerate(lines, first_no):
        if _blankish(line):
            if pieces:
                pieces[-1][1].append(line)
            continue
        ind = _indent(line)
        if "\t" in line[: ind + 1] or (level is not None and ind < level):
            unread.append(no)  # a tab in the indent, or a line left of the block
            continue
        if level is None:
            level = ind
        if ind == level:
            pieces.append((no, [line[level:]]))
        else:  # deeper: part of the key above (the first line set the level, so there is one)
            pieces[-1][1].append(line[level:])
    for no, piece in pieces:
        try:
            out.update(_yaml_piece(piece))
            continue
        except (yaml.YAMLError, ValueError, TypeError, RecursionError):
            pass
        _read_piece(piece, no, out, unread)
    return out


def _read_piece(piece: list[str], no: int, out: dict[Any, Any], unread: list[int]) -> None:
    """One key that YAML rejected: its value as text, or its children read key by key."""
    m = _KEY_LINE.fullmatch(piece[0])
    if m is None:
        unread.extend(no + i for i, line in enumerate(piece) if not _blankish(line))
        return
    key, value = m.group("key"), m.group("value")
    rest = piece[1:]
    if value is None or value == "":
        children = rest
        if all(_blankish(line) for line in children):
            out[key] = None
        elif children and next(c for c in children if not _blankish(c)).lstrip().startswith("-"):
            out[key] = [
                line.strip()[1:].strip() for line in children if line.strip().startswith("-")
            ]
        else:
            out[key] = _read_block(children, no + 1, unread)
        return
    if value[0] in _STRUCTURE_START:
        unread.extend(no + i for i, line in enumerate(piece) if not _blankish(line))
        return
    # A plain value may go on over more-indented lines: YAML folds them with one space.
    text = " ".join([value, *(line.strip() for line in rest if not _blankish(line))])
    out[key] = _unquoted(text)


def _unquoted(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'" and text[0] not in text[1:-1]:
        return text[1:-1]
    return text


# -- the plain shape, without YAML ---------------------------------------------------------------

_KEY = r"[A-Za-z_][A-Za-z0-9_\-]*"
_SIMPLE_LINE = re.compile(rf"^(  )?({_KEY}):(?: (.*))?$", re.M)
"""A line of the plain shape: ``key: value``, or a child ``  key: value`` (``.`` stops only at
``\n``, where the block's lines are split)."""


class _Resolver(yaml.resolver.Resolver):
    """YAML's own implicit typing of plain scalars, with timestamps left as text like _Loader."""


_Resolver.yaml_implicit_resolvers = _Loader.yaml_implicit_resolvers
_resolve = _Resolver().resolve
_STR = "tag:yaml.org,2002:str"
_SHORT = 128
"""Plain scalars up to this long are memoised (keys and types repeat across a store's files)."""


_MATCHERS = {
    first: tuple(rx.match for _tag, rx in resolvers)
    for first, resolvers in _Resolver.yaml_implicit_resolvers.items()
}


def _untyped(value: str) -> bool:
    """``_resolve(ScalarNode, value, (True, False)) == _STR`` without the resolver's own
    overhead (a second for 10,000 names starting with y, n, t, f or o): YAML tries the
    resolvers filed under the scalar's first character in order and types it by the first that
    matches, and none of the safe loader's gives the string tag, so it is text exactly when
    none matches."""
    return not any(match(value) for match in _MATCHERS.get(value[:1], ()))


if None in _MATCHERS or any(  # pragma: no cover - a PyYAML whose resolvers work otherwise
    tag == _STR for resolvers in _Resolver.yaml_implicit_resolvers.values() for tag, _ in resolvers
):

    def _untyped(value: str) -> bool:
        return _resolve(yaml.ScalarNode, value, (True, False)) == _STR


@lru_cache(maxsize=8192)  # only short values reach it: at most ~8192 x _SHORT characters
def _is_plain_text(value: str) -> bool:
    """Whether YAML reads the plain scalar ``value`` as a string (not a number, bool, null)."""
    return _untyped(value)


# YAML picks an implicit type by the scalar's first character; a plain scalar starting with
# none of these is text without asking (most descriptions, every CJK one).
# (PyYAML also allows resolvers keyed None, for any first character; the safe loader has none,
# and the fast-path property test would catch one.)
_TYPED_FIRST = frozenset(_Resolver.yaml_implicit_resolvers)


def _plain_text(value: str) -> bool:
    if value[:1] not in _TYPED_FIRST:
        return True
    if len(value) <= _SHORT:
        return _is_plain_text(value)
    return _untyped(value)


_PLAIN_UNSAFE_START = frozenset("-?:,[]{}#&*!|>'\"%@` ")


def _simple_scalar(value: str) -> str | None:
    """``value`` as the string YAML would read, or None unless it is certainly a plain string."""
    value = value.rstrip(" ")
    if not value:
        return None
    first = value[0]  # a quote opens a quoted scalar; one not closed at the end is not simple
    if first == '"':
        if len(value) < 2 or value[-1] != '"':
            return None
        inner = value[1:-1]
        if "\\" in inner or '"' in inner:
            return None
    elif first == "'":
        if len(value) < 2 or value[-1] != "'":
            return None
        inner = value[1:-1]
        if "'" in inner:
            return None
    elif (
        first in _PLAIN_UNSAFE_START
        or value[-1] == ":"
        or ": " in value
        or " #" in value
        or "\t#" in value
        or (first in _TYPED_FIRST and not _plain_text(value))
    ):
        return None
    else:
        inner = value
    return inner if inner.isprintable() else None


def parse_simple_mapping(yaml_text: str) -> dict[str, Any] | None:
    """Frontmatter in the plain shape memory files use, parsed without YAML; else None.

    Memory frontmatter is almost always ``key: text`` lines and one ``metadata:`` block of
    two-space ``key: text`` children (Claude Code writes ``metadata: `` with a trailing space).
    That subset is read here in a few microseconds, far faster than any YAML loader
    (``memfs stats`` parses every file). Anything else — numbers, booleans, quotes with
    escapes, comments, flow style, deeper nesting, CRLF — returns None and goes to YAML. A
    property test checks that whatever this returns equals YAML's result.
    """
    found = _SIMPLE_LINE.findall(yaml_text)
    # One match a line at most: any line the pattern does not take is outside the shape.
    if len(found) != yaml_text.count("\n") + (yaml_text[-1:] not in ("\n", "")):
        return None
    out: dict[str, Any] = {}
    parent: dict[str, Any] | None = None
    parents: list[dict[str, Any]] = []
    for indent, key, value in found:  # "" for a group that did not take part
        if key[0] in _TYPED_FIRST and not _plain_text(key):
            return None
        if indent:
            if parent is None:
                return None
            text = _simple_scalar(value) if value else None
            if text is None:
                return None
            parent[key] = text
        elif not value.strip(" "):
            parent = {}
            parents.append(parent)
            out[key] = parent
        else:
            text = _simple_scalar(value)
            if text is None:
                return None
            out[key] = text
            parent = None
    if not out:
        return None
    if all(parents):  # no key left without children: nothing reads as null
        return out
    return {k: (v if v != {} else None) for k, v in out.items()}


def _shares_containers(data: Any) -> bool:
    """Whether a list or mapping is reachable twice (an alias); linear in the parsed size."""
    seen: set[int] = set()
    stack = [data]
    while stack:
        node = stack.pop()
        if isinstance(node, (dict, list)):
            if id(node) in seen:
                return True
            seen.add(id(node))
            stack.extend(node.values() if isinstance(node, dict) else node)
    return False


# -- dates -----------------------------------------------------------------------------------------

DATE_FIELDS: tuple[tuple[str, str | None, str], ...] = (
    ("metadata.recorded", "metadata", "recorded"),
    ("metadata.modified", "metadata", "modified"),
    ("metadata.updated", "metadata", "updated"),
    ("modified", None, "modified"),
    ("updated", None, "updated"),
    ("metadata.created", "metadata", "created"),
    ("created", None, "created"),
)
"""Where a memory's date is read from, first match wins (``(label, parent key, key)``).

``metadata.recorded`` is what the filesystem stamps on a write, so it comes first; then when
the file says it was last changed (Claude Code writes ``metadata.modified``, an ISO datetime
ending in ``Z``; other tools a top-level ``updated:``); then when it was created. A
``last-accessed:`` date says when a file was read, not when its content was true, and is not
a date of the memory. A date later than today is never taken (the next field is tried).
"""


def coerce_date(value: Any) -> dt.date | None:
    """A date from a YAML value: a date, a datetime, or ISO 8601 text; anything else is None.

    An ISO datetime (``2026-09-08T19:29:56.864Z``, ``2026-09-08 19:29``) gives its date in
    UTC when it carries an offset, its own date when it does not.
    """
    if isinstance(value, str):
        text = value.strip()
        if len(text) < 10:
            return None
        try:
            return (
                dt.date.fromisoformat(text)
                if len(text) == 10
                else coerce_date(dt.datetime.fromisoformat(text))
            )
        except ValueError:
            return None
    if isinstance(value, dt.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(dt.UTC)
        return value.date()
    if isinstance(value, dt.date):
        return value
    return None


_LABELS = tuple(label for label, _, _ in DATE_FIELDS)
_NO_METADATA: dict[str, Any] = {}


def memory_dates(data: Mapping[Any, Any]) -> list[tuple[str, Any, dt.date | None]]:
    """Every date field of a frontmatter mapping, in :data:`DATE_FIELDS` order.

    ``(label, value as written, date or None when the value is not a date)``.
    """
    meta = data.get("metadata")
    m = meta.get if isinstance(meta, dict) else _NO_METADATA.get
    t = data.get
    # In DATE_FIELDS order, spelled out: this runs for every file of every stats pass.
    values = (m("recorded"), m("modified"), m("updated"), t("modified"), t("updated"),
              m("created"), t("created"))  # fmt: skip
    out = []  # a loop, not a comprehension: no function frame of its own (Python 3.11)
    for label, value in zip(_LABELS, values, strict=True):
        if value is not None:
            out.append((label, value, coerce_date(value)))
    return out


def memory_date(
    data: Mapping[Any, Any] | None, today: dt.date | None = None
) -> tuple[str, dt.date] | None:
    """``(label, date)`` of a memory by :data:`DATE_FIELDS`; dates after ``today`` are skipped."""
    if not data:
        return None
    for label, _, date in memory_dates(data):
        if date is not None and (today is None or date <= today):
            return label, date
    return None


_OPEN_BYTES = re.compile(rb"\A(?:\xef\xbb\xbf)?---[ \t]*\r?\n")
_CLOSE_BYTES = re.compile(rb"^(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.M)


def recorded_date_of(raw: bytes, today: dt.date | None = None) -> dt.date | None:
    """:func:`recorded_date` of a file's bytes, decoding only the frontmatter block.

    Every memory read asks this; the body can be 30 KB of CJK text whose decoding would cost
    more than the read itself. The fences are ASCII, so they sit at the same places in the
    bytes as in the text. Frontmatter that is not UTF-8 gives None, like broken YAML.
    """
    m = _OPEN_BYTES.match(raw)
    if not m:
        return None
    close = _CLOSE_BYTES.search(raw, m.end())
    if not close:
        return None
    try:
        head = raw[: close.end()].decode("utf-8")
    except UnicodeDecodeError:
        return None
    return recorded_date(head, today)


def recorded_date(text: str, today: dt.date | None = None) -> dt.date | None:
    """The date of a memory file (the staleness reminder's source), or None.

    Read with :data:`DATE_FIELDS`' precedence from frontmatter read as leniently as
    :func:`read_frontmatter` can (:attr:`FrontmatterRead.dated`); with ``today``, a date after
    it is never trusted. None when there is no frontmatter, a line of it no reader could use,
    or no date.
    """
    parts = split_frontmatter(text)
    if parts is None:
        return None
    found = memory_date(read_frontmatter(parts[1]).dated, today)
    return None if found is None else found[1]


# -- the write stamp -------------------------------------------------------------------------------

_DATE_KEY = re.compile(
    r"""(?:^|[\s{,?])["']?(?:recorded|modified|updated|created)["']?[ \t]*:""", re.M
)
_METADATA_KEY_LINE = re.compile(r"""^["']?metadata["']?[ \t]*:(?P<rest>.*)$""")
_RANK = {label: i for i, label in enumerate(_LABELS)}
_FIELD = {label: (parent, key) for label, parent, key in DATE_FIELDS}
RECORDED = "metadata.recorded"
"""The platform layout's date key, and the first the reader looks at."""

DateKey = Callable[[Sequence[str]], str]
"""Which date key a layout writes, given the date keys a file has (labels, in
:data:`DATE_FIELDS` order): :meth:`memfs.layout.Layout.date_key`."""


def _recorded_key(present: Sequence[str]) -> str:
    return RECORDED


def _key_line(key: str) -> re.Pattern[str]:
    return re.compile(rf"""^["']?{re.escape(key)}["']?[ \t]*:""")


def date_text(label: str, date: dt.date) -> str:
    """How the stamp writes ``date`` under ``label``: a ``modified`` key gets the ISO datetime
    Claude Code writes there (``2026-12-01T00:00:00.000Z``, the day's start in UTC: memfs dates
    a change to the day), every other key the ISO date."""
    if _FIELD[label][1] == "modified":
        return f"{date.isoformat()}T00:00:00.000Z"
    return date.isoformat()


def change_date(new: bytes, previous: bytes | None, today: dt.date) -> dt.date:
    """The date a write of ``new`` over ``previous`` (None: no file) gets: ``today`` when the
    body (everything after the frontmatter) changed; the date ``previous`` had when only its
    frontmatter changed (today when it had none the reader trusts). Never a date ``new`` holds.
    """
    if previous is None or _body_of(new) != _body_of(previous):
        return today
    return recorded_date_of(previous, today) or today


def _body_of(raw: bytes) -> bytes:
    m = _OPEN_BYTES.match(raw)
    close = _CLOSE_BYTES.search(raw, m.end()) if m else None
    return raw if close is None else raw[close.end() :]


class _CannotStamp(Exception):
    """Why the stamp cannot edit a frontmatter block (said in a refusal when it claims a date)."""


# What editing odd YAML may raise besides: never a reason to fail a write with no date claim.
_CANNOT = (_CannotStamp, yaml.YAMLError, IndexError, ValueError, TypeError, RecursionError)

_Plan = Callable[[dict[Any, Any] | None], tuple[list[str], dt.date] | None]
"""From the frontmatter as the reader dates it (None: no trusted reading), the date keys to set
and the date to set them to; None to leave the file as it is."""


def _change_plan(date: dt.date, date_key: DateKey) -> _Plan:
    """Set the layout's date key to ``date``, and every date key the reader would prefer over it
    that the file has, so the reader (and the layout's own tools) read ``date``."""

    def plan(dated: dict[Any, Any] | None) -> tuple[list[str], dt.date]:
        present = [label for label, _, _ in memory_dates(dated)] if dated else []
        key = date_key(present)
        above = [p for p in present if _RANK[p] < _RANK[key]]
        return sorted({*above, key}, key=_RANK.__getitem__), date

    return plan


def _clamp_plan(today: dt.date) -> _Plan:
    """Keep the file's own date; the one the reader would take first, if after ``today``,
    becomes ``today``."""

    def plan(dated: dict[Any, Any] | None) -> tuple[list[str], dt.date] | None:
        found = memory_date(dated, None)
        if found is None or found[1] <= today:
            return None
        return [found[0]], today

    return plan


def claims_date(head: str) -> bool:
    """Whether frontmatter text holds a key the reader could take a date from (any parser)."""
    return _DATE_KEY.search(head) is not None


def with_recorded(text: str, today: dt.date) -> str:
    """``text`` as a change made ``today`` stores it; never raises.

    ``metadata.recorded`` becomes ``today`` (one line; a copy given twice is dropped), whatever
    date the text held. Only those lines change: every other key, comment and the body stay
    byte-identical. Text without frontmatter, or whose frontmatter the stamp cannot edit (not a
    mapping, YAML aliases, metadata in flow style or not a mapping, metadata given twice), is
    returned unchanged; :func:`stamp_date` refuses such a write when the frontmatter claims a
    date.
    """
    try:
        return _stamped(text, today, _change_plan(today, _recorded_key))
    except _CANNOT:
        return text


def stamp_date(
    raw: bytes,
    date: dt.date,
    today: dt.date,
    path: str = "",
    *,
    date_key: DateKey = _recorded_key,
) -> bytes:
    """What the filesystem stores for a change of a memory dated ``date`` (not after ``today``).

    The key ``date_key`` picks (the layout's), and every date key the reader would prefer over
    it, are set to ``date``, so the reader dates the file ``date`` whatever the caller wrote
    there; a file that already reads so is kept byte for byte. Only the frontmatter is decoded,
    so a body that is not UTF-8 is kept byte for byte. Raises :class:`FrontmatterStampError`
    when the frontmatter claims a date (:func:`claims_date`) and the stamp cannot set a trusted
    one: frontmatter that is not UTF-8, that no reader can fully use, or that the stamp cannot
    edit. Without a date claim such a file is stored as written (it has no date, so no reminder).
    """
    return _stamp_bytes(raw, path, today, _change_plan(date, date_key), date_key(()))


def stamp_recorded(raw: bytes, today: dt.date, path: str = "") -> bytes:
    """:func:`stamp_date` of a change made ``today``, in the platform layout."""
    return _stamp_bytes(raw, path, today, _change_plan(today, _recorded_key), RECORDED)


def clamp_future_date(
    raw: bytes, today: dt.date, path: str = "", *, date_key: DateKey = _recorded_key
) -> bytes:
    """What a migration stores: the file's own date kept, a date after ``today`` made ``today``.

    Byte for byte when the date the reader takes first is not in the future (or there is none).
    Raises :class:`FrontmatterStampError` when that date is in the future and cannot be edited
    (saying how to write ``date_key``'s key, the layout's).
    """
    return _stamp_bytes(raw, path, today, _clamp_plan(today), date_key(()))


def _stamp_bytes(raw: bytes, path: str, today: dt.date, plan: _Plan, key: str) -> bytes:
    """``raw`` stamped by ``plan``; a refusal shows how to write ``key`` (the layout's date key)."""
    m = _OPEN_BYTES.match(raw)
    close = _CLOSE_BYTES.search(raw, m.end()) if m else None
    if m is None or close is None:
        return raw  # no frontmatter: nothing claims a date
    head_bytes = raw[: close.end()]
    try:
        head = head_bytes.decode("utf-8")
    except UnicodeDecodeError as e:
        if not claims_date(head_bytes.decode("utf-8", "replace")):
            return raw
        line = head_bytes.count(b"\n", 0, e.start) + 1
        raise _refusal(
            path,
            f"its frontmatter is not UTF-8 text (byte 0x{head_bytes[e.start]:02X} on line "
            f"{line}), so its date cannot be read; save the frontmatter as UTF-8",
            today,
            key,
        ) from None
    try:
        stamped = _stamped(head, today, plan)
    except _CANNOT as e:
        if not claims_date(head):
            return raw
        why = str(e) if isinstance(e, _CannotStamp) else "its frontmatter could not be edited"
        raise _refusal(path, why, today, key) from None
    return raw if stamped is head else stamped.encode("utf-8") + raw[close.end() :]


def _refusal(path: str, why: str, today: dt.date, key: str) -> FrontmatterStampError:
    """The refusal of a write to ``path``, showing ``key`` as the stamp would write it."""
    return FrontmatterStampError(path, why, today, key=key, value=date_text(key, today))


def _value(data: Mapping[Any, Any], label: str) -> Any:
    parent, key = _FIELD[label]
    if parent is None:
        return data.get(key)
    meta = data.get(parent)
    return meta.get(key) if isinstance(meta, dict) else None


def _stamped(text: str, today: dt.date, plan: _Plan) -> str:
    """The stamp of ``plan`` on ``text``, raising :class:`_CannotStamp` (with the reason) where
    it gives up; ``text`` itself when nothing changes."""
    parts = split_frontmatter(text)
    if parts is None:
        return text
    opening, head, rest = parts
    read = read_frontmatter(head)
    wanted = plan(read.dated)
    if wanted is None:
        return text
    labels, date = wanted
    if read.data is None:
        raise _CannotStamp(f"its frontmatter cannot be read ({read.error or 'not a mapping'})")
    if read.how == "lines" and read.unread:
        lines = ", ".join(map(str, read.unread[:5]))
        raise _CannotStamp(
            f"its frontmatter is {read.error or 'not valid YAML'}, and line(s) {lines} of it "
            "cannot be read at all, so no date in it can be trusted; quote a value that holds "
            "': ' or starts with [ { & * ! |"
        )
    if memory_date(read.dated, today) == (labels[0], date) and all(
        coerce_date(_value(read.data, label)) == date and _count(head, label, read) == 1
        for label in labels
    ):
        return text  # already dated so, each key given once: kept byte for byte
    new_head = head
    for label in labels:
        value = date_text(label, date)
        new_head = (
            _stamp_lines(new_head, label, value)
            if _plain(new_head, read)
            else _stamp_nodes(new_head, label, value)
        )
    _check_stamp(read, new_head, labels, date, today)
    return opening + new_head + rest


def _plain(head: str, read: FrontmatterRead) -> bool:
    """Whether ``head`` is edited by lines (the plain shape, or not YAML at all)."""
    return read.how == "lines" or parse_simple_mapping(head) is not None


def _count(head: str, label: str, read: FrontmatterRead) -> int:
    """How many times the date key ``label`` is given in ``head``."""
    if _plain(head, read):
        return _count_in_lines(head, label)
    return _count_in_nodes(head, label)


def _check_stamp(
    before: FrontmatterRead, new_head: str, labels: list[str], date: dt.date, today: dt.date
) -> None:
    """The stamp changed the keys ``labels`` alone, and the reader now dates the file ``date``."""
    after = read_frontmatter(new_head)
    if (
        (after.how != before.how and not (before.how == "lines" and after.how == "yaml"))
        or memory_date(after.dated, today) != (labels[0], date)
        or after.data is None
        or before.data is None
        or not _same_apart_from(before.data, after.data, labels, date)
    ):
        raise _CannotStamp(
            f"{labels[0]} cannot be set without changing other keys (an anchor or alias, "
            "a merge key or a multi-line value next to it)"
        )
    for label in labels:
        if _count(new_head, label, after) != 1:
            raise _CannotStamp(f"its frontmatter would still hold {label} more than once")


def _same_apart_from(
    before: dict[Any, Any], after: dict[Any, Any], labels: list[str], date: dt.date
) -> bool:
    if any(coerce_date(_value(after, label)) != date for label in labels):
        return False
    top = {_FIELD[label][1] for label in labels if _FIELD[label][0] is None}
    meta = {_FIELD[label][1] for label in labels if _FIELD[label][0] == "metadata"}

    def rest(data: dict[Any, Any]) -> tuple[dict[Any, Any], Any]:
        m = data.get("metadata")
        if isinstance(m, dict) or m is None:
            m = {k: v for k, v in (m or {}).items() if k not in meta}
        return {k: v for k, v in data.items() if k != "metadata" and k not in top}, m

    return rest(before) == rest(after)


# -- stamping by lines: the plain shape, and frontmatter only line-by-line reading understands

_LineSpan = tuple[int, int]


def _split_keep_ends(head: str) -> list[str]:
    # A head (the text between the fences) is empty or ends in "\n": the closing fence starts
    # a line. So every line here ends in "\n", and a line added after any of them starts one.
    # Split on "\n" only: str.splitlines also breaks on NEL, U+2028 and friends inside values.
    lines = head.split("\n")
    return [line + "\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])


def _metadata_block(lines: list[str]) -> tuple[int, int, str | None] | None:
    """``(metadata line, end of its block, child indent)``; None without a ``metadata:`` key.

    Raises :class:`_CannotStamp` for a metadata key given twice or holding a value on its line.
    """
    at = [i for i, line in enumerate(lines) if _METADATA_KEY_LINE.match(line.rstrip("\r\n"))]
    if not at:
        return None
    if len(at) > 1:
        raise _CannotStamp(
            f"metadata appears {len(at)} times in its frontmatter (lines "
            f"{', '.join(str(i + 1) for i in at)}), and readers disagree on which one counts; "
            "keep one metadata block"
        )
    i = at[0]
    m = _METADATA_KEY_LINE.match(lines[i].rstrip("\r\n"))
    assert m is not None
    rest = m.group("rest").strip()
    if rest and not rest.startswith("#"):
        kind = "in flow style ({...})" if rest.startswith("{") else f"written as {rest[:20]!r}"
        raise _CannotStamp(f"its metadata is {kind}, not a block of 'key: value' lines")
    child_indent: str | None = None
    end = i + 1
    for j in range(i + 1, len(lines)):
        body = lines[j].rstrip("\r\n")
        if body.strip() == "" or body.lstrip().startswith("#"):
            continue
        if not body[:1].isspace():
            break  # back at column 0: the metadata block ended
        if child_indent is None:
            child_indent = body[: len(body) - len(body.lstrip())]
        end = j + 1
    return i, end, child_indent


def _key_spans_in_lines(
    lines: list[str], start: int, end: int, indent: str, key: str
) -> list[_LineSpan]:
    """Line spans of each ``key`` at ``indent`` (with its continuation lines) in a block."""
    spans: list[_LineSpan] = []
    key_line = _key_line(key)
    j = start
    while j < end:
        body = lines[j].rstrip("\r\n")
        if body.startswith(indent) and key_line.match(body[len(indent) :]):
            k = j + 1
            last = j
            while k < end:
                nxt = lines[k].rstrip("\r\n")
                if nxt.strip() and not nxt.lstrip().startswith("#"):
                    if len(nxt) - len(nxt.lstrip()) <= len(indent):
                        break
                    last = k
                k += 1
            spans.append((j, last + 1))
            j = last + 1
        else:
            j += 1
    return spans


def _label_spans(
    lines: list[str], label: str
) -> tuple[list[_LineSpan], tuple[int, int, str | None] | None]:
    """The spans of ``label`` in ``lines`` and, for a key under metadata, its block."""
    parent, key = _FIELD[label]
    if parent is None:
        return _key_spans_in_lines(lines, 0, len(lines), "", key), None
    block = _metadata_block(lines)
    if block is None or block[2] is None:
        return [], block
    i, end, indent = block
    assert indent is not None
    return _key_spans_in_lines(lines, i + 1, end, indent, key), block


def _count_in_lines(head: str, label: str) -> int:
    try:
        return len(_label_spans(_split_keep_ends(head), label)[0])
    except _CannotStamp:
        return 0


def _stamp_lines(head: str, label: str, value: str) -> str:
    newline = "\r\n" if "\r\n" in head else "\n"
    lines = _split_keep_ends(head)
    parent, key = _FIELD[label]
    spans, block = _label_spans(lines, label)
    if parent is None:
        line = f"{key}: {value}{newline}"
        if not spans:
            if head.strip() in ("", "{}"):
                return line
            return "".join([*lines, line])
    elif block is None:
        entry = f"metadata:{newline}  {key}: {value}{newline}"
        if head.strip() in ("", "{}"):
            return entry
        return f"{head}{entry}"
    else:
        i, end, indent = block
        line = f"{indent or '  '}{key}: {value}{newline}"
        if indent is None:
            lines.insert(i + 1, line)
            return "".join(lines)
        if not spans:
            # Not there yet: add it as the last child, where a person would have written it.
            lines.insert(end, line)
            return "".join(lines)
    for a, b in reversed(spans[1:]):
        del lines[a:b]
    a, b = spans[0]
    lines[a:b] = [line]
    return "".join(lines)


# -- stamping by YAML nodes: everything else that is valid YAML ------------------------------------


def _compose(head: str) -> yaml.Node | None:
    try:
        return yaml.compose(head, Loader=_Loader)  # type: ignore[no-any-return]
    except (yaml.YAMLError, ValueError, TypeError, RecursionError) as e:
        raise _CannotStamp(f"its frontmatter is not valid YAML ({type(e).__name__})") from None


def _references(root: yaml.Node) -> dict[int, int]:
    """How many times each node is reached from ``root``: more than once means an alias."""
    seen: dict[int, int] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        seen[id(node)] = seen.get(id(node), 0) + 1
        if seen[id(node)] > 1:
            continue
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                stack.extend((k, v))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
    return seen


def _is_key(node: yaml.Node, name: str) -> bool:
    return (
        isinstance(node, yaml.ScalarNode)
        and node.tag == "tag:yaml.org,2002:str"
        and node.value == name
    )


def _line_of(text: str, index: int) -> int:
    """0-based number of the "\\n"-separated line holding ``index`` (YAML also breaks lines at
    a lone CR, NEL and U+2028, so its own line numbers can differ)."""
    return text.count("\n", 0, index)


def _root_mapping(root: yaml.Node) -> yaml.MappingNode:
    if not isinstance(root, yaml.MappingNode):  # pragma: no cover - an invariant guard: stamping
        # runs only on frontmatter the reader loaded as a mapping (same loader, one document)
        raise _CannotStamp("its frontmatter is not a mapping of keys")
    if root.flow_style and root.value:
        raise _CannotStamp("its frontmatter is one flow mapping ({...}), not 'key: value' lines")
    return root


def _metadata_node(root: yaml.Node | None, head: str) -> tuple[yaml.Node, yaml.Node] | None:
    """``(key, value)`` of the top-level ``metadata``; None when absent."""
    if root is None:
        return None
    pairs = [(k, v) for k, v in _root_mapping(root).value if _is_key(k, "metadata")]
    if len(pairs) > 1:
        lines = ", ".join(str(_line_of(head, k.start_mark.index) + 1) for k, _ in pairs)
        raise _CannotStamp(
            f"metadata appears {len(pairs)} times in its frontmatter (lines {lines}), and "
            "readers disagree on which one counts; keep one metadata block"
        )
    if not pairs:
        return None
    key, value = pairs[0]
    if _references(root).get(id(value), 0) > 1:
        raise _CannotStamp(
            "its metadata is a YAML alias (*name) or is aliased elsewhere, so its date cannot "
            "be set without changing another key too; write the metadata block out in full"
        )
    return key, value


def _count_in_nodes(head: str, label: str) -> int:
    parent, key = _FIELD[label]
    try:
        root = _compose(head)
        if parent is None:
            if root is None:  # pragma: no cover - an invariant guard: counted only once the
                return 0  # reader found this key in the frontmatter, so there is a root
            return sum(1 for k, _ in _root_mapping(root).value if _is_key(k, key))
        meta = _metadata_node(root, head)
    except _CannotStamp:
        return 0
    if meta is None or not isinstance(meta[1], yaml.MappingNode):
        return 0
    return sum(1 for k, _ in meta[1].value if _is_key(k, key))


def _pair_spans(head: str, pairs: list[tuple[yaml.Node, yaml.Node]], key: str) -> list[_LineSpan]:
    spans: list[_LineSpan] = []
    for k, v in pairs:
        if _is_key(k, key):
            end = max(v.end_mark.index, k.end_mark.index + 1)
            last = head.count("\n", 0, end - 1)
            spans.append((_line_of(head, k.start_mark.index), last + 1))
    return spans


def _replace_spans(lines: list[str], spans: list[_LineSpan], line: str) -> str:
    for a, b in reversed(spans[1:]):
        del lines[a:b]
    a, b = spans[0]
    lines[a:b] = [line]
    return "".join(lines)


def _stamp_nodes(head: str, label: str, value: str) -> str:
    newline = "\r\n" if "\r\n" in head else "\n"
    parent, key = _FIELD[label]
    root = _compose(head)
    lines = _split_keep_ends(head)
    if parent is None:
        if root is None:
            return _stamp_lines(head, label, value)
        spans = _pair_spans(head, _root_mapping(root).value, key)
        if not spans:
            return _stamp_lines(head, label, value)  # appended as the last top-level key
        return _replace_spans(lines, spans, f"{key}: {value}{newline}")
    meta = _metadata_node(root, head)
    if meta is None:
        return _stamp_lines(head, label, value)  # appends a metadata block
    meta_key, meta_value = meta
    if isinstance(meta_value, yaml.ScalarNode) and meta_value.tag == "tag:yaml.org,2002:null":
        # `metadata:` / `metadata: ~`: drop the null and give it one child.
        at = _line_of(head, meta_key.start_mark.index)
        line = lines[at]
        line_start = sum(len(x) for x in lines[:at])
        width = len(line.rstrip("\r\n"))
        col_start = min(max(meta_value.start_mark.index - line_start, 0), width)
        col_end = min(max(meta_value.end_mark.index - line_start, col_start), width)
        lines[at] = line[:col_start] + line[col_end:]
        lines.insert(at + 1, f"  {key}: {value}{newline}")
        return "".join(lines)
    if not isinstance(meta_value, yaml.MappingNode):
        kind = "a list" if isinstance(meta_value, yaml.SequenceNode) else "a single value"
        raise _CannotStamp(f"its metadata is {kind}, not a block of 'key: value' lines")
    if meta_value.flow_style:
        raise _CannotStamp(
            "its metadata is in flow style ({...}), not a block of 'key: value' lines"
        )
    # Not empty: YAML writes an empty mapping only in flow style (`{}`), refused just above.
    first_key = meta_value.value[0][0]
    first_line = lines[_line_of(head, first_key.start_mark.index)]
    indent = first_line[: len(first_line) - len(first_line.lstrip(" "))] or "  "
    new_line = f"{indent}{key}: {value}{newline}"
    spans = _pair_spans(head, meta_value.value, key)
    if not spans:
        last_key, last_value = meta_value.value[-1]
        end = max(last_value.end_mark.index, last_key.end_mark.index + 1)
        after = min(head.count("\n", 0, end - 1) + 1, len(lines))
        lines.insert(after, new_line)
        return "".join(lines)
    return _replace_spans(lines, spans, new_line)
