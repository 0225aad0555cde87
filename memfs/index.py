"""The ``MEMORY.md`` index: parse it, never rewrite it. The one link rule lives here.

An index grows two tiers on its own: *hot* memories get a line each
(``- [Title](memory/x.md) — hook``) and *cold* ones are folded several to a line to save
context (a *packed* line). Lines come in whatever shape the agent chose, and real indexes also
name files of the repository around them (``CLAUDE.md``, ``docs/plan.md``). One rule decides
what on a line is a **memory reference**, in every layout:

* a markdown link ``[title](target)`` to a ``.md`` path is a **memory link** when the target,
  resolved against the index's directory, lies in the memory area — or is a plain file name
  (``x.md``, no directory), which names the memory of that name wherever the layout keeps
  memories. It is *broken* when no memory file is there. A link that leaves the memory area
  (``../../CLAUDE.md``, a workspace file outside ``memory/``) or the web is not a memory link;
* a ``[[wikilink]]`` names a memory by name (:class:`~memfs.records.MemoryNames`: case,
  ``-``/``_`` and a dropped type prefix fold together); broken when none carries the name;
* a bare or backticked name (``x.md``, ```sub/x.md```, ``see notes.md.``) is a reference only
  when it resolves to a memory file that exists: relative to the index's directory, relative
  to the memory area, or as the file name of exactly one memory file. Any other name —
  ``CLAUDE.md``, ``BACKLOG.md``, ``docs/plan.md`` beside a ``.claude/memory/`` store — is prose;
* everything else is prose.

Text inside an HTML comment (``<!-- one line per memory: - [Title](slug.md) -->``, on one line
or, when a line starts with ``<!--``, across several up to ``-->``) is never a memory reference:
Markdown does not render it, and real indexes keep their templates and examples there. An
unclosed ``<!--`` inside a line is text, as in Markdown.

Two or more distinct memory references on a line make it a **packed** line; exactly one makes
it an **entry** (a line that links a memory), and the text after that reference is its hook;
none makes it an *other* line (headings, prose, links to code or to the web). A second memory
named in a hook ("see also memory/b.md") therefore counts as linked, and a table row that
points at one memory beside a source file is an entry, not a fold of cold memories.

Which memory files exist is the caller's to say (``memory_files``): stats, import, export and
the eval judge pass the files they see. Without it (a write receipt, which sees one file) every
bare name the layout could hold counts, as if the file were there. Without a layout
(``layout=None`` and an ``index_path`` given) every local link and bare markdown name counts
as a memory reference, resolved relative to the index.

The index is never derived from frontmatter and never repaired here: this module only reads it.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Literal, NamedTuple
from urllib.parse import unquote

from memfs.layout import INDEX_NAME, PLATFORM, Layout
from memfs.records import WIKILINK as _WIKILINK
from memfs.records import MemoryNames

# [title](target) — titles may hold nested brackets one level deep; targets may be <wrapped>.
_MD_LINK = re.compile(
    r"\[((?:[^\[\]\n]|\[[^\[\]\n]*\])*)\]\(\s*(<[^>\n]*>|[^()\s]*(?:\([^()\s]*\)[^()\s]*)*)"
    r"(?:\s+\"[^\"\n]*\")?\s*\)"
)
MARKDOWN_LINK = _MD_LINK
"""An inline markdown link; group 1 is its text, group 2 its target as written."""
# A bare name: a run of path characters ending in ".md" with none just before it and none just
# after it ("x.md.bak" and "x.mdx" are not markdown names; "x.md." ends a sentence, "x.md(" and
# "=x.md" are punctuation around a name).
_BARE_MD = re.compile(r"(?<![\w./-])((?:[\w.-]+/)*[\w.-]+\.md)(?![\w/-]|\.\w)")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
_HOOK_SEP = re.compile(r"^\s*(?:—|–|--|-|:|：|·|\|)\s*")

RefKind = Literal["link", "wikilink", "bare"]


class IndexRef(NamedTuple):
    """One reference on an index line."""

    kind: RefKind
    title: str
    """The link's text, the wikilink's label or name; empty for a bare name."""
    target: str
    """As written (a wikilink with its brackets)."""
    path: str
    """The target resolved against the index's directory (a wikilink: the memory it names)."""
    memory_path: str | None
    """The memory file it names, or None when it is not a memory reference."""
    start: int
    end: int


@dataclass(kw_only=True)
class IndexEntry:
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
    memory_path: str = ""
    """The memory file the line names (``path``, or where a plain file name puts it)."""


@dataclass(kw_only=True)
class PackedLine:
    """One line folding several (cold) memories."""

    line: int
    text: str
    paths: list[str]
    titles: list[str]
    memory_paths: list[str] = field(default_factory=list)


@dataclass(kw_only=True)
class OtherLine:
    line: int
    text: str


@dataclass(kw_only=True)
class MemoryIndex:
    index_path: str = INDEX_NAME
    entries: list[IndexEntry] = field(default_factory=list)
    packed: list[PackedLine] = field(default_factory=list)
    other: list[OtherLine] = field(default_factory=list)
    line_count: int = 0
    char_count: int = 0
    _refs: list[tuple[int, IndexRef]] = field(default_factory=list, repr=False)

    def linked_paths(self) -> set[str]:
        """Every memory file the index names, from entries and packed lines."""
        paths = {e.memory_path or e.path for e in self.entries}
        for p in self.packed:
            paths.update(p.memory_paths or p.paths)
        return paths

    def refs(self) -> list[tuple[int, IndexRef]]:
        """``(line, reference)`` for every memory reference, in line order."""
        return list(self._refs)

    @property
    def folded_count(self) -> int:
        """How many memories the packed lines fold (distinct paths)."""
        return len({p for line in self.packed for p in (line.memory_paths or line.paths)})


def markdown_file_links(text: str, index_path: str = INDEX_NAME) -> list[str]:
    """Workspace paths of the ``.md`` files the index's markdown links point to (in order)."""
    base = posixpath.dirname(index_path.strip("/"))  # resolve_link's, found once per index
    paths = (_resolve(target, base) for _title, target in _MD_LINK.findall(text))
    return [p for p in paths if p and p.endswith(".md")]


def resolve_link(target: str, index_path: str = INDEX_NAME) -> str | None:
    """Workspace path of a link in the index, or None for external links and anchors."""
    return _resolve(target, posixpath.dirname(index_path.strip("/")))


def _resolve(target: str, base: str) -> str | None:
    t = target.strip()
    if t.startswith("<") and t.endswith(">"):
        t = t[1:-1].strip()
    if not t or t.startswith("#") or _SCHEME.match(t) or t.startswith("//"):
        return None
    t = t.split("#", 1)[0].split("?", 1)[0]
    if "%" in t:  # unquote's own test, without its call for the common link
        t = unquote(t)
    if not t:
        return None
    joined = t.lstrip("/") if t.startswith("/") else (f"{base}/{t}" if base else t)
    if "." in joined.replace(".md", "") or "//" in joined or joined.endswith("/"):
        joined = posixpath.normpath(joined)  # only a "." segment or a doubled "/" changes
    return "" if joined == "." else joined


def _plain_name(target: str) -> str | None:
    """The file name when ``target`` is a plain markdown file name (no directory), else None."""
    t = target.strip()
    if t.startswith("<") and t.endswith(">"):
        t = t[1:-1].strip()
    t = unquote(t.split("#", 1)[0].split("?", 1)[0])
    return t if t.endswith(".md") and "/" not in t and t not in (".md", INDEX_NAME) else None


class _Resolver:
    """Memory references for one index: its path and (optionally) the layout it lives in."""

    def __init__(
        self,
        index_path: str,
        layout: Layout | None,
        memory_files: Collection[str] | None = None,
        names: MemoryNames | None = None,
    ) -> None:
        self.index_path = index_path
        self.base = posixpath.dirname(index_path)
        self.layout = layout
        self.area = layout.memory_dir + "/" if layout is not None and layout.memory_dir else ""
        self.files = memory_files
        self._names = names
        self._by_basename: dict[str, list[str]] | None = None

    def named(self, name: str) -> str | None:
        """The existing memory file ``name`` (a wikilink's target) matches, or None."""
        if self._names is None:
            self._names = MemoryNames.of_paths(self.files or ())
        return self._names.find(name)

    def bare(self, target: str, path: str) -> str | None:
        """The memory file a bare name resolves to; with the files known, only one that exists."""
        memory = self.memory_of(target, path)
        files = self.files
        if files is None or memory in files:
            return memory
        if path.startswith("../") or path == "..":
            return None  # leaves the workspace
        if self.layout is not None:  # a name written relative to the memory area
            inside = _resolve(target, self.layout.memory_dir)
            if inside and inside in files:
                return inside
        if "/" in target:
            return None  # a path names that path; only a plain file name is looked for
        if self._by_basename is None:  # a file name the memory area holds exactly once
            by_name: dict[str, list[str]] = {}
            for p in files:  # posixpath.basename, without its call a file
                by_name.setdefault(p[p.rfind("/") + 1 :], []).append(p)
            self._by_basename = by_name
        found = self._by_basename.get(posixpath.basename(path), ())
        return found[0] if len(found) == 1 else None

    def memory_of(self, target: str, path: str) -> str | None:
        if path.startswith("../") or path in ("", ".."):
            return None  # leaves the workspace
        layout = self.layout
        if layout is None:
            return path if path != self.index_path else None
        # layout.is_memory_file, spelled out: it runs for every link of the index
        if path.endswith(".md") and path.startswith(self.area) and path != self.index_path:
            return path
        name = _plain_name(target)
        if name is not None and not layout.in_memory_area(path):
            return layout.memory_path(name)
        return None

    def wikilink(self, name: str) -> str:
        if self.layout is not None:
            return self.layout.memory_path(name)
        name = name.strip().lstrip("/")  # a wikilink names a memory, never an absolute path
        if not name.endswith(".md"):
            name += ".md"
        base = posixpath.dirname(self.index_path)
        # No layout: a root index keeps memories under memory/, any other one beside itself.
        return posixpath.normpath(posixpath.join(base or PLATFORM.memory_dir, name))

    def refs(self, line: str) -> list[IndexRef]:
        """The memory references on ``line``, in order."""
        found: list[IndexRef] = []
        spans: list[tuple[int, int]] = []
        inside = 0  # occurrences of ".md" inside the links found
        area, index_path = self.area, self.index_path
        for m in _MD_LINK.finditer(line):
            start, end = m.span()
            spans.append((start, end))
            inside += line.count(".md", start, end)
            target = m.group(2)
            path = _resolve(target, self.base)
            if not path:
                continue
            # The common case first: a link straight to a memory file (is_memory_file, inlined).
            if (
                path.endswith(".md")
                and path.startswith(area)
                and path != index_path
                and self.layout is not None
                and not path.startswith("../")
            ):
                memory: str | None = path
            else:
                memory = self.memory_of(target, path)
            if memory is not None:
                title = m.group(1).strip()
                found.append(_ref(("link", title, target, path, memory, start, end)))
        wikilinks = "[[" in line
        if wikilinks:
            for m in _WIKILINK.finditer(line):
                start, end = m.span()
                if any(s <= start < e for s, e in spans):
                    continue
                spans.append((start, end))
                inside += line.count(".md", start, end)
                path = self.wikilink(m.group(1))
                if self.files is not None and path not in self.files:
                    path = self.named(m.group(1)) or path
                title = (m.group(2) or m.group(1)).strip()
                found.append(_ref(("wikilink", title, m.group(0), path, path, start, end)))
        # Bare names: only when ".md" occurs outside the links already found (the common
        # index line has its one ".md" inside its link).
        if line.count(".md") > inside:
            rest = line
            for s, e in spans:
                rest = rest[:s] + " " * (e - s) + rest[e:]
            for m in _BARE_MD.finditer(rest):
                target = m.group(1)
                path = _resolve(target, self.base)
                if path:
                    memory = self.bare(target, path)
                    if memory is not None:
                        found.append(_ref(("bare", "", target, path, memory, *m.span())))
            if len(found) > 1:
                found.sort(key=lambda r: r.start)
        elif wikilinks and len(found) > 1:
            found.sort(key=lambda r: r.start)
        return found


def _uncommented(line: str, open_comment: bool) -> tuple[str, bool]:
    """``line`` with HTML comment text blanked to spaces (columns kept), and whether a comment
    is still open at its end."""
    if not open_comment and "<!--" not in line:
        return line, False
    out, at = [], 0
    while at < len(line):
        if open_comment:
            close = line.find("-->", at)
            stop = len(line) if close < 0 else close + 3
            out.append(" " * (stop - at))
            at, open_comment = stop, close < 0
        else:
            begin = line.find("<!--", at)
            if begin < 0:
                out.append(line[at:])
                break
            out.append(line[at:begin])
            if line.find("-->", begin + 4) < 0 and line[:begin].strip():
                # Markdown opens a comment across lines only at a line's start; an unclosed
                # "<!--" inside a sentence is text, and must not hide the index below it.
                out.append(line[begin:])
                break
            at, open_comment = begin, True
    return "".join(out), open_comment


def _ref(fields: tuple[RefKind, str, str, str, str | None, int, int]) -> IndexRef:
    # NamedTuple's generated __new__ is a Python function; the tuple constructor is not.
    return tuple.__new__(IndexRef, fields)


def parse_index(
    text: str,
    index_path: str | None = None,
    *,
    layout: Layout | None = None,
    memory_files: Collection[str] | None = None,
    names: MemoryNames | None = None,
) -> MemoryIndex:
    """Split an index into entries, packed lines and other lines. Never raises for text.

    ``layout`` decides what a memory reference is; ``index_path`` defaults to the layout's.
    With neither, the platform layout. With only ``index_path``, no layout (see the module).
    ``memory_files`` are the memory files that exist (workspace paths; a set is fastest): a
    bare name counts only when it resolves to one, and a wikilink finds its memory among them
    by name (``names``, when the caller has read the files' ``name:``; else by file name).
    """
    if layout is None and index_path is None:
        layout = PLATFORM
    where = index_path if index_path is not None else layout.index_path  # type: ignore[union-attr]
    where = where.strip("/")
    resolver = _Resolver(where, layout, memory_files, names)
    index = MemoryIndex(index_path=where, char_count=len(text))
    lines = text.splitlines()
    index.line_count = len(lines)
    found: list[tuple[int, IndexRef]] = []
    in_comment = False
    for no, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        seen, in_comment = _uncommented(raw, in_comment)
        memory = resolver.refs(seen)
        if not memory:
            index.other.append(OtherLine(line=no, text=raw))
            continue
        found += [(no, r) for r in memory]
        named = [r.memory_path for r in memory if r.memory_path]
        distinct = named if len(named) == 1 else list(dict.fromkeys(named))
        if len(distinct) >= 2:
            index.packed.append(
                PackedLine(
                    line=no,
                    text=raw,
                    paths=list(dict.fromkeys(r.path for r in memory)),
                    titles=[r.title for r in memory if r.kind != "bare"],
                    memory_paths=distinct,
                )
            )
        else:
            first = memory[0]
            hook = _HOOK_SEP.sub("", raw[first.end :], count=1).strip()
            index.entries.append(
                IndexEntry(
                    line=no,
                    title=first.title or first.target,
                    target=first.target,
                    path=first.path,
                    hook=hook,
                    text=raw,
                    memory_path=distinct[0],
                )
            )
    index._refs = found
    return index
