"""Memory records: one ``memory/*.md`` file as a pydantic model, parsed tolerantly.

Real stores drift from the spec (seed §4.6): kebab and snake names side by side, files with no
description, ``node_type`` / ``originSessionId`` keys, a top-level ``type`` from an older
format, YAML that no longer parses. None of that is an error here: every input yields a
:class:`MemoryRecord` plus a list of ``findings`` that say what drifted, so a report can count
it and a reader can still use the file.

The frontmatter block is found with :mod:`memfs.frontmatter_block`, the same code the
filesystem uses to decide staleness, so a record and the reminder never disagree about a date.
A changed record is written back through python-frontmatter's YAML handler (block style,
keys in the file's order); an unchanged one dumps to its original text byte for byte.
"""

from __future__ import annotations

import datetime as dt
import posixpath
import re
from collections.abc import Iterable
from typing import Any, Literal

from frontmatter.default_handlers import YAMLHandler
from pydantic import BaseModel, Field, PrivateAttr

from memfs.frontmatter_block import coerce_date, parse_yaml_mapping, split_frontmatter

MemoryType = Literal["user", "feedback", "project", "reference"]
MEMORY_TYPES: tuple[str, ...] = ("user", "feedback", "project", "reference")

NameStyle = Literal["kebab", "snake", "other"]

_KEBAB = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_SNAKE = re.compile(r"^[a-z0-9]+(?:_[a-z0-9]+)+$")
# [[name]] or [[name|label]] or [[name#heading]]; the target is what names a memory.
_WIKILINK = re.compile(r"\[\[([^\[\]|#\n]+)(?:#[^\[\]|\n]*)?(?:\|[^\[\]\n]*)?\]\]")

_YAML = YAMLHandler()
_KNOWN_TOP = ("name", "description", "metadata")
_KNOWN_META = ("type", "recorded")


def name_style(name: str) -> NameStyle:
    """``kebab`` (``user-role``), ``snake`` (``feedback_index_not_column``) or ``other``."""
    if _KEBAB.match(name):
        return "kebab"
    if _SNAKE.match(name):
        return "snake"
    return "other"


def extract_wikilinks(text: str) -> list[str]:
    """Targets of ``[[wikilinks]]`` in ``text``, in order of first appearance, without repeats."""
    seen: dict[str, None] = {}
    for m in _WIKILINK.finditer(text):
        target = m.group(1).strip()
        if target:
            seen.setdefault(target, None)
    return list(seen)


class MemoryRecord(BaseModel):
    """One memory file. ``extra`` keeps every other top-level frontmatter key, in file order."""

    path: str = ""
    name: str
    description: str | None = None
    type: str | None = None
    """``metadata.type`` (or an older top-level ``type``); unknown values kept, with a finding."""
    recorded: dt.date | None = None
    body: str = ""
    extra: dict[Any, Any] = Field(default_factory=dict)
    """YAML keys need not be text (``1:``, ``on:``, ``?``): they are kept as parsed."""
    metadata_extra: dict[Any, Any] = Field(default_factory=dict)
    """Keys under ``metadata`` other than ``type`` and ``recorded``."""
    links: list[str] = Field(default_factory=list)
    """``[[wikilink]]`` targets in the body."""
    has_frontmatter: bool = False
    findings: list[str] = Field(default_factory=list)

    _original: str | None = PrivateAttr(default=None)
    _snapshot: dict[str, Any] | None = PrivateAttr(default=None)
    _key_order: list[str] = PrivateAttr(default_factory=list)
    _type_at_top: bool = PrivateAttr(default=False)

    @property
    def name_style(self) -> NameStyle:
        return name_style(self.name)

    @property
    def known_type(self) -> bool:
        return self.type in MEMORY_TYPES

    def age_days(self, today: dt.date) -> int | None:
        """Days since ``recorded``, or None when the file carries no usable date."""
        return None if self.recorded is None else (today - self.recorded).days

    def _editable(self) -> dict[str, Any]:
        return self.model_dump(
            include={
                "name",
                "description",
                "type",
                "recorded",
                "body",
                "extra",
                "metadata_extra",
            }
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
        """The file text: the original bytes when nothing changed, else re-serialised YAML."""
        if self._original is not None and self._snapshot == self._editable():
            return self._original
        head = _YAML.export(self.frontmatter_dict(), sort_keys=False, allow_unicode=True)
        return f"---\n{head.rstrip()}\n---\n{self.body}"


def _stem(path: str) -> str:
    base = posixpath.basename(path)
    return base[:-3] if base.endswith(".md") else base


def parse_memory(data: str | bytes, path: str = "") -> MemoryRecord:
    """Parse one memory file. Never raises for content: what drifted lands in ``findings``."""
    findings: list[str] = []
    where = path or "<memory>"
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = data.decode("utf-8", errors="replace")
            findings.append(f"{where}: not valid UTF-8; undecodable bytes were replaced")
    else:
        text = data
    text_nobom = text[1:] if text.startswith("\ufeff") else text

    meta_map: dict[str, Any] | None = None
    body = text_nobom
    has_fm = False
    parts = split_frontmatter(text)
    if parts is None:
        findings.append(f"{where}: no YAML frontmatter; name taken from the file name")
    else:
        has_fm = True
        _, head, rest = parts
        # rest starts at the closing fence line; the body is what follows it.
        nl = rest.find("\n")
        body = "" if nl < 0 else rest[nl + 1 :]
        meta_map = parse_yaml_mapping(head)
        if meta_map is None:
            findings.append(
                f"{where}: frontmatter is not a valid YAML mapping; fields could not be read"
            )

    fm: dict[str, Any] = dict(meta_map or {})
    raw_name = fm.get("name")
    if isinstance(raw_name, str) and raw_name.strip():
        name = raw_name.strip()
    else:
        name = _stem(path) if path else ""
        if has_fm and meta_map is not None:
            findings.append(f"{where}: no 'name' in frontmatter; using the file name {name!r}")

    raw_desc = fm.get("description")
    description: str | None
    if raw_desc is None or (isinstance(raw_desc, str) and not raw_desc.strip()):
        description = None
        findings.append(f"{where}: no description (the line that decides whether to read it)")
    else:
        description = raw_desc.strip() if isinstance(raw_desc, str) else str(raw_desc)

    raw_meta = fm.get("metadata")
    meta: dict[str, Any] = raw_meta if isinstance(raw_meta, dict) else {}
    if raw_meta is not None and not isinstance(raw_meta, dict):
        findings.append(f"{where}: 'metadata' is not a mapping; it is kept as an extra key")

    type_at_top = False
    mtype: Any = meta.get("type")
    if mtype is None and "type" in fm and not isinstance(fm.get("type"), dict):
        mtype = fm["type"]
        type_at_top = True
        findings.append(f"{where}: type given at top level (older format), not metadata.type")
    type_: str | None = None if mtype is None else str(mtype).strip()
    if type_ is None:
        if meta_map is not None:
            findings.append(f"{where}: no metadata.type (one of {', '.join(MEMORY_TYPES)})")
    elif type_ not in MEMORY_TYPES:
        findings.append(
            f"{where}: unknown type {type_!r}; expected one of {', '.join(MEMORY_TYPES)}"
        )

    recorded = coerce_date(meta.get("recorded"))
    if "recorded" in meta and recorded is None:
        findings.append(f"{where}: metadata.recorded {meta.get('recorded')!r} is not a date")

    if name and name_style(name) == "other":
        findings.append(f"{where}: name {name!r} is neither kebab-case nor snake_case")

    extra = {k: v for k, v in fm.items() if k not in _KNOWN_TOP}
    if type_at_top:
        extra.pop("type", None)
    if raw_meta is not None and not isinstance(raw_meta, dict):
        extra["metadata"] = raw_meta
    meta_extra = {k: v for k, v in meta.items() if k not in _KNOWN_META}
    if "recorded" in meta and recorded is None:
        meta_extra["recorded"] = meta["recorded"]

    odd_keys = [k for k in [*extra, *meta_extra] if not isinstance(k, str)]
    if odd_keys:
        findings.append(
            f"{where}: frontmatter keys {odd_keys!r} are not text in YAML (quote them, e.g. '1':)"
        )

    record = MemoryRecord(
        path=path,
        name=name,
        description=description,
        type=type_,
        recorded=recorded,
        body=body,
        extra=extra,
        metadata_extra=meta_extra,
        links=extract_wikilinks(body),
        has_frontmatter=has_fm,
        findings=findings,
    )
    record._original = text
    record._snapshot = record._editable()
    record._key_order = [str(k) for k in fm]
    record._type_at_top = type_at_top
    return record


class WorthWriting(BaseModel):
    """A ``[[wikilink]]`` to a memory that does not exist yet: a note, not an error (§3.1)."""

    name: str
    linked_from: list[str]


def worth_writing(records: Iterable[MemoryRecord]) -> list[WorthWriting]:
    """Names that bodies link to but no record carries (by ``name`` or file stem)."""
    records = list(records)
    known = {r.name for r in records} | {_stem(r.path) for r in records if r.path}
    missing: dict[str, list[str]] = {}
    for r in records:
        for target in r.links:
            if target not in known and _stem(target) not in known:
                missing.setdefault(target, []).append(r.path or r.name)
    return [WorthWriting(name=k, linked_from=v) for k, v in sorted(missing.items())]
