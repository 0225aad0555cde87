"""The YAML frontmatter block of a memory file: find it, parse it tolerantly, stamp its date.

Kept separate from the record model because the filesystem needs only these three things on
its hot path, and must never fail a read or a write because a file's YAML is broken.
"""

from __future__ import annotations

import datetime as dt
import re
from functools import lru_cache
from typing import Any

import yaml


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """Safe loader that leaves timestamps as text, so a bad date is a bad date, not bad YAML."""


_Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}

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


@lru_cache(maxsize=4096)
def parse_yaml_mapping(yaml_text: str) -> dict[str, Any] | None:
    """The frontmatter as a dict, or None when it is not valid YAML or not a mapping.

    Also None when an alias makes two places share one list or mapping: a few lines of
    ``&a``/``*a`` (an "alias bomb") parse into a small object whose every comparison, copy or
    validation walks billions of paths, which would hang the write path on a memory file.
    Cached on the text: the same memory files are read on every turn of an item.
    """
    simple = parse_simple_mapping(yaml_text)
    if simple is not None:
        return simple
    try:
        data = yaml.load(yaml_text, Loader=_Loader)
    except yaml.YAMLError:
        return None
    except (ValueError, TypeError, RecursionError):
        return None
    if data is None:
        return {}
    return data if isinstance(data, dict) and not _shares_containers(data) else None


_KEY = r"[A-Za-z_][A-Za-z0-9_\-]*"
_TOP_LINE = re.compile(rf"({_KEY}):(?: (.*))?")
_CHILD_LINE = re.compile(rf"  ({_KEY}):(?: (.*))?")


class _Resolver(yaml.resolver.Resolver):
    """YAML's own implicit typing of plain scalars, with timestamps left as text like _Loader."""


_Resolver.yaml_implicit_resolvers = _Loader.yaml_implicit_resolvers
_resolve = _Resolver().resolve
_STR = "tag:yaml.org,2002:str"


@lru_cache(maxsize=8192)  # keys and types repeat across every file of a store
def _is_plain_text(value: str) -> bool:
    """Whether YAML reads the plain scalar ``value`` as a string (not a number, bool, null)."""
    return _resolve(yaml.ScalarNode, value, (True, False)) == _STR


_PLAIN_UNSAFE_START = frozenset("-?:,[]{}#&*!|>'\"%@` ")


def _simple_scalar(value: str) -> str | None:
    """``value`` as the string YAML would read, or None unless it is certainly a plain string."""
    quoted = len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'"
    if quoted and not any(c in value[1:-1] for c in "\\\"'"):
        inner = value[1:-1]
    elif (
        not value
        or value[0] in _PLAIN_UNSAFE_START
        or value[-1] in " :"
        or ": " in value
        or " #" in value
        or not _is_plain_text(value)
    ):
        return None
    else:
        inner = value
    return inner if inner.isprintable() else None


def parse_simple_mapping(yaml_text: str) -> dict[str, Any] | None:
    """Frontmatter in the plain shape memory files use, parsed without YAML; else None.

    Memory frontmatter is almost always ``key: text`` lines and one ``metadata:`` block of
    two-space ``key: text`` children. That subset is read here in a few microseconds, ten times
    faster than PyYAML's C loader (``memfs stats`` parses every file). Anything else — numbers,
    booleans, quotes with escapes, comments, flow style, deeper nesting, CRLF — returns None and
    goes to YAML. A property test checks that whatever this returns equals YAML's result.
    """
    out: dict[str, Any] = {}
    parent: dict[str, Any] | None = None
    lines = yaml_text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for line in lines:
        child = _CHILD_LINE.fullmatch(line) if line.startswith("  ") else None
        if child is not None:
            if parent is None or not _is_plain_text(child.group(1)):
                return None
            text = _simple_scalar(child.group(2)) if child.group(2) is not None else None
            if text is None:
                return None
            parent[child.group(1)] = text
            continue
        top = _TOP_LINE.fullmatch(line)
        if top is None or not _is_plain_text(top.group(1)):
            return None
        if top.group(2) is None:
            parent = {}
            out[top.group(1)] = parent
        else:
            text = _simple_scalar(top.group(2))
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


def coerce_date(value: Any) -> dt.date | None:
    """A date from a YAML value: a date, a datetime, or ISO text; anything else is None."""
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value.strip()[:10])
        except ValueError:
            return None
    return None


_OPEN_BYTES = re.compile(rb"\A(?:\xef\xbb\xbf)?---[ \t]*\r?\n")
_CLOSE_BYTES = re.compile(rb"^(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.M)


def recorded_date_of(raw: bytes) -> dt.date | None:
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
    return recorded_date(head)


def recorded_date(text: str) -> dt.date | None:
    """``metadata.recorded`` of a memory file, or None (no frontmatter, bad YAML, no date)."""
    parts = split_frontmatter(text)
    if parts is None:
        return None
    data = parse_yaml_mapping(parts[1])
    if not data:
        return None
    meta = data.get("metadata")
    if not isinstance(meta, dict):
        return None
    return coerce_date(meta.get("recorded"))


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
