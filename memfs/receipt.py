"""The write receipt: what a write of a memory file or of the index stored, and what is wrong.

A model that writes a memory rarely reads it back. The receipt tells it, in one to three short
lines, what the workspace now holds — name, type, description and the recorded date, stamped by
the filesystem or kept from the file — and what makes it fall short of the memory format
(no frontmatter, a missing or unknown type, no description), or, for the index, which lines are
not ``- [Title](memory/x.md) — hook``. It is built from the bytes actually stored (after the
filesystem stripped reminders and stamped the date), so it never reports what was merely sent.

Every surface that writes memory (the file tools, and through them MCP; the Anthropic memory
tool) builds its receipt here. The opt-in *index nudge* adds the exact line to append when no
index line links a memory just written; off by default, because the index is the agent's to
curate and the platform does not reconcile it.
"""

from __future__ import annotations

import re

from memfs.index import parse_index
from memfs.layout import PLATFORM, Layout
from memfs.records import MEMORY_TYPES, MemoryRecord, parse_memory

MAX_SHOWN = 80
"""Characters of a description or an index line quoted back; the rest is cut with '…'."""

NEVER_STALE = "reads never warn that it may be stale"
"""What a memory with no date means for its reader: the staleness reminder needs a date."""

_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")


def _quote(text: str, limit: int = MAX_SHOWN) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _decode(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def memory_problems(record: MemoryRecord) -> list[str]:
    """What keeps a parsed memory file from the memory format, each with what to do."""
    if not record.readable:
        if not record.has_frontmatter:
            return [
                "no frontmatter: start the file with a --- block holding name, description and "
                "metadata.type, then ---"
            ]
        return ["the frontmatter is not valid YAML: name, description and metadata.type are unread"]
    problems = []
    if record.type is None:
        problems.append(f"no metadata.type: add one of {', '.join(MEMORY_TYPES)}")
    elif not record.known_type:
        problems.append(
            f"metadata.type {record.type!r} is unknown: use one of {', '.join(MEMORY_TYPES)}"
        )
    if record.description is None:
        problems.append("no description: add the one line that decides whether to read it")
    if any(i.kind == "no-name" for i in record.issues):
        problems.append("no name: add a short kebab-case name")
    return problems


def index_line(layout: Layout, rel: str, record: MemoryRecord) -> str:
    """The index line for a memory file: ``- [Title](link) — hook`` from its frontmatter."""
    stem = rel.rsplit("/", 1)[-1].removesuffix(".md")
    words = re.sub(r"[-_]+", " ", record.name or stem).strip() or stem
    title = words[:1].upper() + words[1:]
    hook = record.description or next(
        (ln.strip() for ln in record.body.splitlines() if ln.strip()), ""
    )
    line = f"- [{title}]({layout.link_for(rel)})"
    return f"{line} — {_quote(hook)}" if hook else line


def _memory_receipt(
    layout: Layout, rel: str, stored: bytes, sent: bytes | None, index_text: str | None
) -> list[str]:
    record = parse_memory(stored, rel)
    lines: list[str] = []
    if record.has_frontmatter:
        kind = f"{record.type} memory" if record.known_type else "memory"
        parts = [f"{kind} {record.name!r}"]
        if record.description:
            parts.append(f"description {_quote(record.description)!r}")
        if record.recorded is not None:
            recorded = f"recorded {record.recorded.isoformat()}"
            if sent is not None:
                kept = parse_memory(sent, rel).recorded == record.recorded
                recorded += " (kept from the file)" if kept else " (stamped by the workspace)"
            parts.append(recorded)
        elif record.date() is None:
            parts.append(f"no recorded date, so {NEVER_STALE}")
        lines.append(f"Stored {rel}: {', '.join(parts)}.")
    else:
        lines.append(
            f"Stored {rel}, but it is not a valid memory file: without frontmatter it has no "
            f"recorded date, so {NEVER_STALE}."
        )
    problems = memory_problems(record)
    if problems:
        lines.append("To fix: " + "; ".join(problems) + ".")
    if index_text is not None:
        linked = parse_index(index_text, layout=layout).linked_paths()
        if rel not in linked:
            lines.append(
                f"No line of {layout.index_path} links it yet; append this line to "
                f"{layout.index_path}: {index_line(layout, rel, record)}"
            )
    return lines


def holds(rel: str, stored: bytes, *, layout: Layout = PLATFORM) -> str:
    """What a stored file holds, in a few words: a memory's type and description, the index's
    line count, or any other file's size (for a refusal that must say what would be lost)."""
    if layout.is_memory_file(rel):
        record = parse_memory(stored, rel)
        kind = f"a {record.type} memory" if record.known_type else "a memory"
        about = record.description or next(
            (ln.strip() for ln in record.body.splitlines() if ln.strip()), ""
        )
        return f"{kind}: {_quote(about)!r}" if about else kind
    if layout.is_index(rel):
        lines = sum(1 for ln in _decode(stored).splitlines() if ln.strip())
        return f"the memory index, {lines} line{'s' if lines != 1 else ''}"
    return f"{len(stored)} bytes"


def index_problems(layout: Layout, text: str) -> list[str]:
    """Lines of the index that are not ``- [Title](memory/x.md) — hook`` (headings allowed)."""
    index = parse_index(text, layout=layout)
    bad: list[tuple[int, str]] = []
    for other in index.other:
        if not _HEADING.match(other.text):
            bad.append(
                (other.line, f"line {other.line} is not an index line: {_quote(other.text)!r}")
            )
    for entry in index.entries:
        if not layout.is_memory_file(entry.path):
            bad.append((entry.line, f"line {entry.line} links {entry.path}, not a memory file"))
        elif not entry.hook:
            bad.append((entry.line, f"line {entry.line} has no hook after the link"))
    bad.sort()
    return [b for _, b in bad]


def _index_receipt(layout: Layout, stored: bytes) -> list[str]:
    problems = index_problems(layout, _decode(stored))
    if not problems:
        return []
    shown = "; ".join(problems[:2]) + (
        f" (and {len(problems) - 2} more)" if len(problems) > 2 else ""
    )
    example = f"- [Title]({layout.link_for(layout.memory_path('x'))}) — hook"
    return [
        f"{layout.index_path}: {shown}. Each line should be one pointer, `{example}`; the facts "
        "themselves belong in memory files."
    ]


def write_receipt(
    rel: str,
    stored: bytes,
    *,
    layout: Layout = PLATFORM,
    sent: bytes | None = None,
    index_text: str | None = None,
) -> str:
    """The receipt for ``stored`` (the bytes now at ``rel``); ``""`` for other files.

    ``sent`` is what the caller asked to store, to tell a stamped date from a kept one.
    ``index_text`` is the index as it stands, given only with the index nudge on: a memory file
    it does not link gets the line to append. An index with nothing wrong gets no receipt.
    """
    if layout.is_memory_file(rel):
        return "\n".join(_memory_receipt(layout, rel, stored, sent, index_text))
    if layout.is_index(rel):
        return "\n".join(_index_receipt(layout, stored))
    return ""
