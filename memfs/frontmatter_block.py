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
from collections.abc import Mapping
from functools import lru_cache
from typing import Any, Literal, NamedTuple

import yaml


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


def split_frontmatter(text: str) -> tuple[str, str, str] | None:
    """``(opening, yaml_text, rest)`` where ``rest`` starts at the closing fence; None if absent."""
    m = _OPEN.match(text)
    if not m:
        return None
    close = _CLOSE.search(text, m.end())
    if not close:
        return None
    return text[: m.end()], text[m.end() : close.start()], text[close.start() :]


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
        return FrontmatterRead(simple, "yaml")
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
        elif pieces:
            pieces[-1][1].append(line[level:])
        else:
            unread.append(no)
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
_TOP_LINE = re.compile(rf"({_KEY}):(?: (.*))?")
_CHILD_LINE = re.compile(rf"  ({_KEY}):(?: (.*))?")


class _Resolver(yaml.resolver.Resolver):
    """YAML's own implicit typing of plain scalars, with timestamps left as text like _Loader."""


_Resolver.yaml_implicit_resolvers = _Loader.yaml_implicit_resolvers
_resolve = _Resolver().resolve
_STR = "tag:yaml.org,2002:str"
_SHORT = 128
"""Plain scalars up to this long are memoised (keys and types repeat across a store's files)."""


@lru_cache(maxsize=8192)  # only short values reach it: at most ~8192 x _SHORT characters
def _is_plain_text(value: str) -> bool:
    """Whether YAML reads the plain scalar ``value`` as a string (not a number, bool, null)."""
    return _resolve(yaml.ScalarNode, value, (True, False)) == _STR


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
    return _resolve(yaml.ScalarNode, value, (True, False)) == _STR


_PLAIN_UNSAFE_START = frozenset("-?:,[]{}#&*!|>'\"%@` ")


def _simple_scalar(value: str) -> str | None:
    """``value`` as the string YAML would read, or None unless it is certainly a plain string."""
    value = value.rstrip(" ")
    if len(value) >= 2 and value[0] == value[-1] == '"':
        inner = value[1:-1]
        if "\\" in inner or '"' in inner:
            return None
    elif len(value) >= 2 and value[0] == value[-1] == "'":
        inner = value[1:-1]
        if "'" in inner:
            return None
    elif (
        not value
        or value[0] in _PLAIN_UNSAFE_START
        or value[-1] == ":"
        or ": " in value
        or " #" in value
        or "\t#" in value
        or (value[0] in _TYPED_FIRST and not _plain_text(value))
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
    out: dict[str, Any] = {}
    parent: dict[str, Any] | None = None
    lines = yaml_text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for line in lines:
        child = _CHILD_LINE.fullmatch(line) if line.startswith("  ") else None
        if child is not None:
            key = child.group(1)
            if parent is None or not (
                _is_plain_text(key) if len(key) <= _SHORT else _plain_text(key)
            ):
                return None
            text = _simple_scalar(child.group(2)) if child.group(2) is not None else None
            if text is None:
                return None
            parent[key] = text
            continue
        top = _TOP_LINE.fullmatch(line)
        if top is None:
            return None
        key = top.group(1)
        if not (_is_plain_text(key) if len(key) <= _SHORT else _plain_text(key)):
            return None
        value = top.group(2)
        if value is None or not value.strip(" "):
            parent = {}
            out[top.group(1)] = parent
        else:
            text = _simple_scalar(value)
            if text is None:
                return None
            out[top.group(1)] = text
            parent = None
    return {k: (v if v != {} else None) for k, v in out.items()} if out else None


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
    return [(lb, v, coerce_date(v)) for lb, v in zip(_LABELS, values, strict=True) if v is not None]


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

_METADATA_LINE = re.compile(r"^metadata:[ \t]*(?:#.*)?$")
_CHILD_INDENT = re.compile(r"^([ \t]+)\S")


def with_recorded(text: str, today: dt.date) -> str:
    """``text`` with ``metadata.recorded: today`` unless it already has a valid past date.

    Edits the frontmatter as text, one line, so every other key, comment and the body stay
    byte-identical. Text without frontmatter, or with YAML that cannot be parsed, is returned
    unchanged: the write still happens, it just carries no trusted date.
    """
    parts = split_frontmatter(text)
    if parts is None:
        return text
    opening, head, rest = parts
    data = parse_yaml_mapping(head)
    if data is None:
        return text
    meta = data.get("metadata")
    current = coerce_date(meta.get("recorded")) if isinstance(meta, dict) else None
    if current is not None and current <= today:
        return text
    if meta is not None and not isinstance(meta, dict):
        return text  # `metadata: something-else`: not ours to restructure
    new_head = _set_recorded_line(head, today)
    if new_head is None:
        return text
    check = parse_yaml_mapping(new_head)
    if not check or not _same_apart_from_recorded(data, check, today):
        return text
    return opening + new_head + rest


def _set_recorded_line(head: str, today: dt.date) -> str | None:
    newline = "\r\n" if "\r\n" in head else "\n"
    # Split on "\n" only: str.splitlines also breaks on NEL, U+2028 and friends inside values.
    lines = head.split("\n")
    lines = [line + "\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])
    stamp = today.isoformat()
    for i, line in enumerate(lines):
        if not _METADATA_LINE.match(line.rstrip("\r\n")):
            continue
        child_indent: str | None = None
        last_child = i
        for j in range(i + 1, len(lines)):
            body = lines[j].rstrip("\r\n")
            if body.strip() == "" or body.lstrip().startswith("#"):
                continue
            m = _CHILD_INDENT.match(body)
            if not m:
                break  # back at column 0: the metadata block ended
            last_child = j
            if child_indent is None:
                child_indent = m.group(1)
            if m.group(1) == child_indent and body[len(child_indent) :].startswith("recorded:"):
                lines[j] = f"{child_indent}recorded: {stamp}{newline}"
                return "".join(lines)
        # Not there yet: add it as the last child, where a person would have written it.
        if not lines[last_child].endswith("\n"):
            lines[last_child] += newline
        lines.insert(last_child + 1, f"{child_indent or '  '}recorded: {stamp}{newline}")
        return "".join(lines)
    if any(line.startswith("metadata:") for line in lines):
        return None  # flow style (`metadata: {type: user}`): leave it alone
    if head.strip() in ("", "{}"):
        return f"metadata:{newline}  recorded: {stamp}{newline}"
    tail = "" if head.endswith("\n") else newline
    return f"{head}{tail}metadata:{newline}  recorded: {stamp}{newline}"


def _same_apart_from_recorded(
    before: dict[str, Any], after: dict[str, Any], today: dt.date
) -> bool:
    meta_after = after.get("metadata")
    if not isinstance(meta_after, dict) or coerce_date(meta_after.get("recorded")) != today:
        return False
    strip = {k: v for k, v in after.items() if k != "metadata"}
    if strip != {k: v for k, v in before.items() if k != "metadata"}:
        return False
    meta_before = before.get("metadata") or {}
    return {k: v for k, v in meta_after.items() if k != "recorded"} == {
        k: v for k, v in meta_before.items() if k != "recorded"
    }
