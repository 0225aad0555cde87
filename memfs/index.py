"""The ``MEMORY.md`` index (seed §3.2, §4.3): parse it, never rewrite it.

An index grows two tiers on its own: *hot* memories get a line each
(``- [Title](memory/x.md) — hook``) and *cold* ones are folded several to a line to save
context (a *packed* line). Packed lines come in whatever shape the agent chose; what they share
is several links on one line, so that is what is recognised: two or more markdown links, or
two or more bare ``*.md`` names, or ``[[wikilinks]]``. Everything else (headings, prose,
external links) is kept as an *other* line.

Links resolve relative to the index file's own directory. The index is never derived from
frontmatter and never repaired here (§5): this module only reads it.
"""

from __future__ import annotations

import posixpath
import re
from urllib.parse import unquote

from pydantic import BaseModel, Field

# [title](target) — titles may hold nested brackets one level deep; targets may be <wrapped>.
_MD_LINK = re.compile(
    r"\[((?:[^\[\]\n]|\[[^\[\]\n]*\])*)\]\(\s*(<[^>\n]*>|[^()\s]*(?:\([^()\s]*\)[^()\s]*)*)"
    r"(?:\s+\"[^\"\n]*\")?\s*\)"
)
_WIKILINK = re.compile(r"\[\[([^\[\]|#\n]+)(?:#[^\[\]|\n]*)?(?:\|([^\[\]\n]*))?\]\]")
_BARE_MD = re.compile(r"(?<![\w/(\[.-])((?:[\w.-]+/)*[\w.-]+\.md)\b(?![\w/(])")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_HOOK_SEP = re.compile(r"^\s*(?:—|–|--|-|:|：|·|\|)\s*")


class IndexEntry(BaseModel):
    """A line that points at one memory: ``- [title](path) — hook``."""

    line: int
    """1-based line number in the index."""
    title: str
    target: str
    """The link as written."""
    path: str
    """The link resolved against the index's directory (a workspace path)."""
    hook: str
    text: str


class PackedLine(BaseModel):
    """One line folding several (cold) memories."""

    line: int
    text: str
    paths: list[str]
    titles: list[str]


class OtherLine(BaseModel):
    line: int
    text: str


class MemoryIndex(BaseModel):
    index_path: str = "MEMORY.md"
    entries: list[IndexEntry] = Field(default_factory=list)
    packed: list[PackedLine] = Field(default_factory=list)
    other: list[OtherLine] = Field(default_factory=list)
    line_count: int = 0
    char_count: int = 0

    def linked_paths(self) -> set[str]:
        """Every workspace path the index links to, from entries and packed lines."""
        paths = {e.path for e in self.entries}
        for p in self.packed:
            paths.update(p.paths)
        return paths

    @property
    def folded_count(self) -> int:
        """How many memories the packed lines fold (distinct paths)."""
        return len({p for line in self.packed for p in line.paths})


def resolve_link(target: str, index_path: str = "MEMORY.md") -> str | None:
    """Workspace path of a link in the index, or None for external links and anchors."""
    t = target.strip()
    if t.startswith("<") and t.endswith(">"):
        t = t[1:-1].strip()
    if not t or t.startswith("#") or _SCHEME.match(t) or t.startswith("//"):
        return None
    t = unquote(t.split("#", 1)[0].split("?", 1)[0])
    if not t:
        return None
    base = posixpath.dirname(index_path.strip("/"))
    joined = t.lstrip("/") if t.startswith("/") else posixpath.join(base, t)
    norm = posixpath.normpath(joined)
    return "" if norm == "." else norm


def _wikilink_path(name: str, index_path: str) -> str:
    name = name.strip()
    if not name.endswith(".md"):
        name += ".md"
    # A wikilink names a memory, and memories live under memory/ beside the index.
    base = posixpath.dirname(index_path.strip("/"))
    return posixpath.normpath(posixpath.join(base, "memory", name))


def _links(line: str, index_path: str) -> list[tuple[str, str, str, int, int]]:
    """(title, target, path, start, end) of local links on ``line``."""
    found: list[tuple[str, str, str, int, int]] = []
    for m in _MD_LINK.finditer(line):
        path = resolve_link(m.group(2), index_path)
        if path:
            found.append((m.group(1).strip(), m.group(2), path, m.start(), m.end()))
    for m in _WIKILINK.finditer(line):
        if any(s <= m.start() < e for *_, s, e in found):
            continue
        title = (m.group(2) or m.group(1)).strip()
        found.append(
            (title, m.group(0), _wikilink_path(m.group(1), index_path), m.start(), m.end())
        )
    found.sort(key=lambda f: f[3])
    return found


def _bare_names(line: str, index_path: str) -> list[str]:
    stripped = _MD_LINK.sub(" ", line)
    out: list[str] = []
    for m in _BARE_MD.finditer(stripped):
        path = resolve_link(m.group(1), index_path)
        if path:
            out.append(path)
    return out


def parse_index(text: str, index_path: str = "MEMORY.md") -> MemoryIndex:
    """Split ``MEMORY.md`` into entries, packed lines and other lines. Never raises for text."""
    index = MemoryIndex(index_path=index_path, char_count=len(text))
    lines = text.splitlines()
    index.line_count = len(lines)
    for no, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        links = _links(raw, index_path)
        if len(links) >= 2:
            paths = list(dict.fromkeys(p for _, _, p, _, _ in links))
            if len(paths) >= 2:
                index.packed.append(
                    PackedLine(line=no, text=raw, paths=paths, titles=[t for t, *_ in links])
                )
                continue
        if links:
            title, target, path, _, end = links[0]
            hook = _HOOK_SEP.sub("", raw[end:], count=1).strip()
            index.entries.append(
                IndexEntry(line=no, title=title, target=target, path=path, hook=hook, text=raw)
            )
            continue
        bare = list(dict.fromkeys(_bare_names(raw, index_path)))
        if len(bare) >= 2 and _BULLET.match(raw):
            index.packed.append(PackedLine(line=no, text=raw, paths=bare, titles=[]))
            continue
        index.other.append(OtherLine(line=no, text=raw))
    return index
