"""Memory records: one memory file as a dataclass, parsed tolerantly.

Real stores drift from the spec: kebab and snake names side by side, human titles as names,
files with no description, ``node_type`` / ``originSessionId`` keys, a top-level ``type`` from
an older format, frontmatter that is not YAML at all (Claude Code writes ``description: a: b``
unquoted), dates in ``metadata.modified`` or ``created:`` rather than ``metadata.recorded``.
None of that is an error here: every input yields a :class:`MemoryRecord` plus ``issues``
that say what drifted, each with a ``kind`` and whether it is *drift* (something a reader of
the store should fix: no description, unreadable frontmatter, an unknown type, a bad date) or
a *note* (a name written as a title, the older top-level ``type``) — so a report that counts
"files with findings" counts what means something.

The frontmatter block is read with :mod:`memfs.frontmatter_block`, the same code the
filesystem uses to decide staleness, so a record and the reminder never disagree about a date.
A changed record is written back through python-frontmatter's YAML handler (block style,
keys in the file's order); an unchanged one dumps to its original text byte for byte.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field, fields
from operator import attrgetter
from typing import Any, Literal

from memfs.frontmatter_block import (
    FrontmatterRead,
    ReadHow,
    _read_frontmatter,
    coerce_date,
    memory_dates,
    read_file_frontmatter,
    read_frontmatter,
)

MemoryType = Literal["user", "feedback", "project", "reference"]
MEMORY_TYPES: tuple[str, ...] = ("user", "feedback", "project", "reference")

NameStyle = Literal["kebab", "snake", "other"]

_KEBAB = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_SNAKE = re.compile(r"^[a-z0-9]+(?:_[a-z0-9]+)+$")
WIKILINK = re.compile(r"\[\[([^\[\]|#\n]+)(?:#[^\[\]|\n]*)?(?:\|([^\[\]\n]*))?\]\]")
"""``[[name]]``, ``[[name|label]]`` or ``[[name#heading]]``: group 1 names a memory, group 2 is
the label. In a memory body and in the index alike."""

_KNOWN_TOP = ("name", "description", "metadata")
_KNOWN_META = ("type", "recorded")
_KNOWN_TOP_SET = frozenset(_KNOWN_TOP)
_KNOWN_META_SET = frozenset(_KNOWN_META)

FindingKind = Literal[
    "encoding",
    "no-frontmatter",
    "unparseable",
    "not-yaml",
    "no-name",
    "no-description",
    "metadata-not-mapping",
    "top-level-type",
    "no-type",
    "unknown-type",
    "bad-date",
    "non-text-keys",
    "name-style",
]
NOTE_KINDS: frozenset[str] = frozenset({"name-style", "top-level-type"})
"""Findings that describe a file without saying anything is wrong with it: a name written as a
title (most real Claude Code names are) or in CamelCase, the older top-level ``type``."""


@dataclass(kw_only=True)
class Finding:
    """One thing a parse noticed about a file."""

    kind: FindingKind
    message: str
    """Starts with the file's path; says what is off and, where it helps, what was done."""

    @property
    def drift(self) -> bool:
        """Whether it is worth fixing (counted as a finding), not just a note."""
        return self.kind not in NOTE_KINDS


_PLAIN_NAME = re.compile(r"[A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)*")
_TYPE_PREFIXES = tuple(f"{t}_" for t in MEMORY_TYPES)


def _name_key(name: str) -> tuple[str, str] | None:
    """``(key, key without a type prefix)`` of a name; None when nothing is left of it."""
    base = name.strip().rpartition("/")[2]
    base = base[:-3] if base[-3:].lower() == ".md" else base
    if _PLAIN_NAME.fullmatch(base):  # most names: ASCII, no spaces or runs to fold
        key = base.lower().replace("-", "_")
    else:
        key = re.sub(r"[\s_-]+", "_", base.casefold()).strip("_")
        if not key:
            return None
    if key.startswith(_TYPE_PREFIXES):
        short = key.split("_", 1)[1]
        return key, short or key
    return key, key


def name_keys(name: str) -> frozenset[str]:
    """The spellings under which ``name`` (a file name, a stem, a title, a wikilink) matches.

    Case, ``-``, ``_`` and spaces fold together, and a leading type prefix may be dropped:
    ``[[project-contracts]]``, ``[[contracts]]``, ``project_contracts.md`` and
    ``Project Contracts`` all share a key.
    """
    keys = _name_key(name)
    return frozenset(keys) if keys else frozenset()


def name_style(name: str) -> NameStyle:
    """``kebab`` (``user-role``), ``snake`` (``feedback_index_not_column``) or ``other``."""
    if _KEBAB.match(name):
        return "kebab"
    if _SNAKE.match(name):
        return "snake"
    return "other"


def extract_wikilinks(text: str) -> list[str]:
    """Targets of ``[[wikilinks]]`` in ``text``, in order of first appearance, without repeats."""
    seen: dict[str, None] = {}  # a key set again keeps its first place
    # What WIKILINK.findall finds, tried only where a "[[" is: str.find jumps there, where the
    # pattern's own scan would try each character of the body (most of a memory file).
    find, match = text.find, WIKILINK.match
    at = find("[[")
    while at >= 0:
        m = match(text, at)
        if m is None:
            at = find("[[", at + 1)
            continue
        target = m.group(1).strip()
        if target:
            seen[target] = None
        at = find("[[", m.end())
    return list(seen)


@dataclass(kw_only=True)
class MemoryRecord:
    """One memory file. ``extra`` keeps every other top-level frontmatter key, in file order."""

    path: str = ""
    name: str
    description: str | None = None
    type: str | None = None
    """``metadata.type`` (or an older top-level ``type``); unknown values kept, with a finding."""
    recorded: dt.date | None = None
    body: str = ""
    extra: dict[Any, Any] = field(default_factory=dict)
    """YAML keys need not be text (``1:``, ``on:``, ``?``): they are kept as parsed."""
    metadata_extra: dict[Any, Any] = field(default_factory=dict)
    """Keys under ``metadata`` other than ``type`` and ``recorded``."""
    links: list[str] = field(default_factory=list)
    """``[[wikilink]]`` targets in the body."""
    has_frontmatter: bool = False
    frontmatter_read: ReadHow | None = None
    """How the frontmatter was read (``yaml``, ``lines`` or ``none``); None without one."""
    dates: dict[str, dt.date] = field(default_factory=dict)
    """Every readable date field (``metadata.modified``, ``created``, …) in precedence order."""
    issues: list[Finding] = field(default_factory=list)
    _original: str | None = field(default=None, repr=False)
    """The text parsed: an unchanged record dumps to it byte for byte."""
    _key_order: list[str] = field(default_factory=list, repr=False)
    _type_at_top: bool = field(default=False, repr=False)
    _unread: tuple[int, ...] = field(default=(), repr=False)

    @property
    def findings(self) -> list[str]:
        """The messages of every issue, drift and notes alike, in the order found."""
        return [i.message for i in self.issues]

    @property
    def drift(self) -> list[Finding]:
        """The issues worth fixing (not notes)."""
        return [i for i in self.issues if i.drift]

    @property
    def name_style(self) -> NameStyle:
        return name_style(self.name)

    @property
    def known_type(self) -> bool:
        return self.type in MEMORY_TYPES

    @property
    def readable(self) -> bool:
        """Whether memfs can read the memory's fields (name, description, type, date): the file
        has frontmatter and it was read, as YAML or line by line. The one test of it: the
        receipt reports an unreadable memory, the write rules keep a readable one readable."""
        return self.has_frontmatter and self.frontmatter_read != "none"

    def date(self, today: dt.date | None = None) -> tuple[str, dt.date] | None:
        """``(field, date)`` by the date precedence; a date after ``today`` is never taken."""
        for label, date in self.dates.items():
            if today is None or date <= today:
                return label, date
        return None

    def age_days(self, today: dt.date) -> int | None:
        """Days since the memory's date, or None when it carries no usable date."""
        found = self.date(today)
        return None if found is None else (today - found[1]).days

    def to_json_dict(self, *, body: bool = True) -> dict[str, Any]:
        """The record as JSON values: dates as ISO text, every frontmatter key as text.

        ``body=False`` leaves the body out (a listing of many records)."""
        out = {f.name: _json_safe(getattr(self, f.name)) for f in fields(self)}
        for name in [k for k in out if k.startswith("_")] + ([] if body else ["body"]):
            del out[name]
        return out

    def _editable(self) -> tuple[Any, ...]:
        return (
            self.name,
            self.description,
            self.type,
            self.recorded,
            self.body,
            self.extra,
            self.metadata_extra,
        )

    def frontmatter_dict(self) -> dict[str, Any]:
        """The frontmatter mapping this record stands for, keys in the file's original order."""
        meta: dict[str, Any] = {}
        if self.type is not None and not self._type_at_top:
            meta["type"] = self.type
        if self.recorded is not None:
            meta["recorded"] = self.recorded
        meta.update(self.metadata_extra)
        values: dict[str, Any] = {"name": self.name}
        if self.description is not None:
            values["description"] = self.description
        if meta:
            values["metadata"] = meta
        values.update(self.extra)
        if self._type_at_top and self.type is not None and "type" not in self.extra:
            values["type"] = self.type
        order = [k for k in self._key_order if k in values]
        order += [k for k in values if k not in order]
        return {k: values[k] for k in order}

    def dumps(self) -> str:
        """The file text: the original bytes when nothing changed, else re-serialised YAML.

        A changed record whose frontmatter had lines no reader could use is refused
        (ValueError): writing it back would drop them.
        """
        # Unchanged means: what the original text parses to now. Parsed afresh, without the
        # memo, so a value changed in place (shared with the memo) cannot hide the change.
        if self._original is not None:
            fresh = parse_memory(self._original, self.path, _read=_read_frontmatter)
            if fresh._editable() == self._editable():
                return self._original
        if self._unread:
            raise ValueError(
                f"{self.path or '<memory>'}: its frontmatter has lines that could not be read "
                f"(lines {', '.join(map(str, self._unread))}); edit the file's text instead."
            )
        # python-frontmatter loads only to write a record back: a reader (`memfs stats`) never does
        from frontmatter.default_handlers import YAMLHandler

        head = YAMLHandler().export(self.frontmatter_dict(), sort_keys=False, allow_unicode=True)
        return f"---\n{head.rstrip()}\n---\n{self.body}"


def _json_safe(value: Any) -> Any:
    if isinstance(value, dict):
        return {_json_key(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_safe(v) for v in value]
    if isinstance(value, dt.date | dt.datetime):
        return value.isoformat()
    if isinstance(value, Finding):
        return _json_safe(asdict(value))
    return value


def _json_key(key: Any) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, dt.date | dt.datetime):
        return key.isoformat()
    return json.dumps(key) if key is None or isinstance(key, bool | int | float) else str(key)


def _stem(path: str) -> str:
    base = path.rpartition("/")[2]
    return base[:-3] if base.endswith(".md") else base


class _Notes:
    """The findings of one parse, each message led by the file's path."""

    def __init__(self, path: str) -> None:
        self.where = path or "<memory>"
        self.issues: list[Finding] = []

    def __call__(self, kind: FindingKind, message: str) -> None:
        self.issues.append(Finding(kind=kind, message=f"{self.where}: {message}"))


def parse_memory(
    data: str | bytes,
    path: str = "",
    *,
    _read: Callable[[str], FrontmatterRead] = read_frontmatter,
) -> MemoryRecord:
    """Parse one memory file. Never raises for content: what drifted lands in ``issues``."""
    note = _Notes(path)
    file = read_file_frontmatter(data, _read)
    if file.undecodable:
        note("encoding", "not valid UTF-8; undecodable bytes were replaced")
    read = file.read
    _note_how_read(read, note)
    mapping = read.data if read is not None else None
    fm: dict[Any, Any] = dict(mapping or {})
    name = _name(fm, path, read is not None and mapping is not None, note)
    description = _description(fm, note)
    meta, raw_meta = _metadata(fm, note)
    type_, type_at_top = _type(fm, meta, mapping is not None, note)
    dates, recorded = _dates(read, meta, note)
    if name and name_style(name) == "other":
        note("name-style", f"name {name!r} is neither kebab-case nor snake_case")
    extra, meta_extra = _extras(fm, meta, raw_meta, type_at_top, recorded, note)
    body = file.body
    return MemoryRecord(
        path=path,
        name=name,
        description=description,
        type=type_,
        recorded=recorded,
        body=body,
        extra=extra,
        metadata_extra=meta_extra,
        links=extract_wikilinks(body),
        has_frontmatter=read is not None,
        frontmatter_read=None if read is None else read.how,
        dates=dates,
        issues=note.issues,
        _original=file.text,
        _key_order=list(map(str, fm)),
        _type_at_top=type_at_top,
        _unread=() if read is None else read.unread,
    )


def _note_how_read(read: FrontmatterRead | None, note: _Notes) -> None:
    if read is None:
        note("no-frontmatter", "no YAML frontmatter; name taken from the file name")
    elif read.how == "none":
        note(
            "unparseable",
            f"frontmatter is not a valid YAML mapping ({read.error}); fields could not be read",
        )
    elif read.how == "lines":
        skipped = (
            f"; lines {', '.join(map(str, read.unread))} could not be read, so no date is trusted"
            if read.unread
            else ""
        )
        note("not-yaml", f"frontmatter is {read.error}; read line by line{skipped}")


def _name(fm: dict[Any, Any], path: str, readable: bool, note: _Notes) -> str:
    """``name:``, else the file name (a finding when readable frontmatter left it out)."""
    raw_name = fm.get("name")
    if isinstance(raw_name, str) and raw_name.strip():
        return raw_name.strip()
    name = _stem(path) if path else ""
    if readable:
        note("no-name", f"no 'name' in frontmatter; using the file name {name!r}")
    return name


def _description(fm: dict[Any, Any], note: _Notes) -> str | None:
    raw_desc = fm.get("description")
    if raw_desc is None or (isinstance(raw_desc, str) and not raw_desc.strip()):
        note("no-description", "no description (the line that decides whether to read it)")
        return None
    return raw_desc.strip() if isinstance(raw_desc, str) else str(raw_desc)


def _metadata(fm: dict[Any, Any], note: _Notes) -> tuple[dict[Any, Any], Any]:
    """``(metadata as a mapping, metadata as written)``; a non-mapping is kept, with a finding."""
    raw_meta = fm.get("metadata")
    if raw_meta is not None and not isinstance(raw_meta, dict):
        note("metadata-not-mapping", "'metadata' is not a mapping; it is kept as an extra key")
    return (raw_meta if isinstance(raw_meta, dict) else {}), raw_meta


def _type(
    fm: dict[Any, Any], meta: dict[Any, Any], readable: bool, note: _Notes
) -> tuple[str | None, bool]:
    """``(type, given at top level)``: ``metadata.type``, else an older top-level ``type``."""
    type_at_top = False
    mtype: Any = meta.get("type")
    if mtype is None and "type" in fm and not isinstance(fm.get("type"), dict):
        mtype = fm["type"]
        type_at_top = True
        note("top-level-type", "type given at top level (older format), not metadata.type")
    type_: str | None = None if mtype is None else str(mtype).strip()
    if type_ is None:
        if readable:
            note("no-type", f"no metadata.type (one of {', '.join(MEMORY_TYPES)})")
    elif type_ not in MEMORY_TYPES:
        note("unknown-type", f"unknown type {type_!r}; expected one of {', '.join(MEMORY_TYPES)}")
    return type_, type_at_top


def _dates(
    read: FrontmatterRead | None, meta: dict[Any, Any], note: _Notes
) -> tuple[dict[str, dt.date], dt.date | None]:
    """``(every readable date by precedence, metadata.recorded)``; a bad one is a finding."""
    dated = read.dated if read is not None else None
    dates: dict[str, dt.date] = {}
    for label, value, date in memory_dates(dated or {}):
        if date is None:
            note("bad-date", f"{label} {value!r} is not a date")
        else:
            dates.setdefault(label, date)
    recorded = (
        dates.get("metadata.recorded") if dated is not None else coerce_date(meta.get("recorded"))
    )
    return dates, recorded


def _extras(
    fm: dict[Any, Any],
    meta: dict[Any, Any],
    raw_meta: Any,
    type_at_top: bool,
    recorded: dt.date | None,
    note: _Notes,
) -> tuple[dict[Any, Any], dict[Any, Any]]:
    """``(other top-level keys, other metadata keys)``, kept as parsed, in file order."""
    # Most files carry only the known keys: their extras are found without a pass over them.
    extra = (
        {} if fm.keys() <= _KNOWN_TOP_SET else {k: v for k, v in fm.items() if k not in _KNOWN_TOP}
    )
    if type_at_top:
        extra.pop("type", None)
    if raw_meta is not None and not isinstance(raw_meta, dict):
        extra["metadata"] = raw_meta
    meta_extra = (
        {}
        if meta.keys() <= _KNOWN_META_SET
        else {k: v for k, v in meta.items() if k not in _KNOWN_META}
    )
    if "recorded" in meta and recorded is None:
        meta_extra["recorded"] = meta["recorded"]
    odd_keys = (
        [k for k in [*extra, *meta_extra] if not isinstance(k, str)] if extra or meta_extra else []
    )
    if odd_keys:
        note(
            "non-text-keys",
            f"frontmatter keys {odd_keys!r} are not text in YAML (quote them, e.g. '1':)",
        )
    return extra, meta_extra


@dataclass(kw_only=True)
class WorthWriting:
    """A ``[[wikilink]]`` to a memory that does not exist yet: a note, not an error."""

    name: str
    linked_from: list[str]


class MemoryNames:
    """Find the memory a name means: by file stem or ``name:``, under :func:`name_keys`.

    A full spelling beats one that needed a type prefix dropped, on either side. The tables
    are built on the first lookup.
    """

    def __init__(self, records: Iterable[MemoryRecord]) -> None:
        self._records = records
        self._full: dict[str, str] = {}
        self._short: dict[str, str] = {}
        self._built = False

    @classmethod
    def of_paths(cls, paths: Iterable[str]) -> MemoryNames:
        """Names from the file names alone, for a caller that has not read the files."""
        return cls(MemoryRecord(path=p, name=_stem(p)) for p in paths)

    def _build(self) -> None:
        full, short = self._full, self._short
        for r in sorted(self._records, key=attrgetter("path")):
            stem = _stem(r.path) if r.path else ""
            for spelling in (stem, r.name) if r.name != stem else (stem,):
                keys = _name_key(spelling)
                if keys:
                    full.setdefault(keys[0], r.path)
                    short.setdefault(keys[1], r.path)
        self._built = True

    def find(self, name: str) -> str | None:
        """The path of the memory ``name`` matches, or None."""
        if not self._built:
            self._build()
        keys = _name_key(name)
        if keys is None:
            return None
        full, short = keys
        # A prefix may be dropped on one side, never swapped: feedback_x is not project_x.
        for table, key in ((self._full, full), (self._short, full), (self._full, short)):
            if key in table:
                return table[key]
        return None


def worth_writing(records: Iterable[MemoryRecord]) -> list[WorthWriting]:
    """Names that bodies link to but no record carries (by ``name`` or file stem).

    A link matches across case, ``-``/``_`` and a dropped type prefix, as
    :meth:`MemoryNames.find` matches (:func:`name_keys`).
    """
    records = list(records)
    exact = {r.name for r in records} | {_stem(r.path) for r in records if r.path}
    full: set[str] | None = None
    short: set[str] = set()
    missing: dict[str, list[str]] = {}
    for r in records:
        for target in r.links:
            if target in exact or (
                ("/" in target or target.endswith(".md")) and (_stem(target) in exact)
            ):
                continue
            if full is None:  # spellings are folded only once a link needs them
                full = set()
                for spelling in exact:
                    keys = _name_key(spelling)
                    if keys:
                        full.add(keys[0])
                        short.add(keys[1])
            keys = _name_key(target)
            if keys is None or not (keys[0] in full or keys[0] in short or keys[1] in full):
                missing.setdefault(target, []).append(r.path or r.name)
    return [WorthWriting(name=k, linked_from=v) for k, v in sorted(missing.items())]
