"""The rules every write to one workspace obeys, in one place.

:class:`WriteRules` decides what is stored for the bytes a caller writes: the credential guard
(memory, the index and the paths an app injects into every turn), a reminder copied from a read
stripped from a memory file, the trusted date stamped into a memory's frontmatter (or, in a
migration, a store's own date kept and a future one clamped), the context block's own frame
and a write's receipt kept out of memory, a readable memory kept readable (a rewrite that
loses its frontmatter is refused), and the size limit of a memory file.
:class:`~memfs.filesystem.MemFS` holds one (``fs.rules``) and applies it at each of its write
paths, so every surface (the file tools, the CLI, MCP, the Anthropic tool, the browser) gets
the same rules from the filesystem; nothing else stamps, strips or guards.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass

from memfs import errors, staleness
from memfs.frontmatter_block import (
    change_date,
    clamp_future_date,
    read_file_frontmatter,
    stamp_date,
)
from memfs.layout import Layout
from memfs.records import parse_memory
from memfs.tags import FRAME_OPENING

_COPIED: tuple[tuple[re.Pattern[bytes], str], ...] = (
    # the frame's opening sentence, its words apart by any run of spaces or line breaks (a
    # YAML dump folds a long description)
    (re.compile(rb"\s+".join(re.escape(w.encode()) for w in FRAME_OPENING.split())), "frame"),
    # a write receipt's own marks (memfs.receipt, the file tools' results)
    (
        re.compile(
            rb"\((?:stamped by the workspace|kept from the file)\)"
            rb"|\b(?:Overwrote|Created|Remembered) \S+ \(\d+ bytes"
        ),
        "receipt",
    ),
)
"""memfs's own words a turn is shown, which no memory holds
(:class:`~memfs.errors.CopiedTextError`)."""


_QUOTED = 40
"""Characters of a first line a refusal quotes; the rest is cut with '…'."""


def _quoted(line: str) -> str:
    return repr(line if len(line) <= _QUOTED else line[: _QUOTED - 1].rstrip() + "…")


def unreadable_because(data: bytes) -> str:
    """What keeps ``data`` from being a memory memfs can read, as a refusal says it
    (:class:`~memfs.errors.UnreadableMemoryError`): the first line quoted where the opening
    fence is missing or glued to the text after it."""
    file = read_file_frontmatter(data)
    if file.read is not None:
        why = f" ({file.read.error})" if file.read.error else ""
        return f"no reader can use its frontmatter{why}"
    text = file.body  # without frontmatter: the whole text, less a BOM
    first = text.split("\n", 1)[0].rstrip("\r")
    if not text:
        problem = "it is empty"
    elif not first.strip():
        problem = "its first line is blank, not a line --- alone"
    elif first.rstrip(" \t") == "---":
        problem = "the --- block at its top is never closed by a line --- alone"
    elif first.startswith("---"):
        problem = f"its first line {_quoted(first)} glues the opening --- to the text after it"
    else:
        problem = f"its first line is {_quoted(first)}, not a line --- alone"
    return f"{problem}, so the file would have no frontmatter"


def check_credentials(rel: str, data: bytes) -> None:
    """:func:`memfs.credentials.check_credentials`, imported at the first guarded write: a
    reader (``memfs stats``, ``memfs grep``) never loads the credential engine."""
    from memfs.credentials import check_credentials as check

    check(rel, data)


@dataclass(frozen=True)
class WriteRules:
    """What a write to ``layout``'s workspace must satisfy and how its bytes are prepared.

    ``credential_guard`` turns the guard on for the memory area, the index and
    ``guarded_paths``; ``migrating`` keeps a date the bytes hold (only a future one becomes
    today); ``max_memory_file_bytes`` caps a memory file (None: no cap); ``today`` is the
    clock every date comes from.
    """

    layout: Layout
    today: Callable[[], dt.date]
    credential_guard: bool = True
    guarded_paths: frozenset[str] = frozenset()
    migrating: bool = False
    max_memory_file_bytes: int | None = None

    def is_guarded(self, rel: str) -> bool:
        """Whether a write to ``rel`` is checked for credentials: anything in the memory area
        (any extension), the index, and ``guarded_paths``."""
        layout = self.layout
        return self.credential_guard and (
            layout.in_memory_area(rel) or layout.is_index(rel) or rel in self.guarded_paths
        )

    def check_name(self, rel: str) -> None:
        """Refuse a directory ``rel`` whose name alone looks like it holds a credential."""
        if self.is_guarded(rel):
            check_credentials(rel, b"")

    def dates(self, rel: str) -> bool:
        """Whether a write to ``rel`` is dated: a file of the memory area other than the index."""
        return self.layout.in_memory_area(rel) and not self.layout.is_index(rel)

    def reads_replaced(self, rel: str, dated: bool) -> bool:
        """Whether :meth:`prepare` of a write over ``rel`` needs the content it replaces: to
        date it (unless ``dated``: the caller gives what it is dated by), or to keep a
        readable memory readable. A migration needs neither."""
        if self.migrating:
            return False
        return self.layout.is_memory_file(rel) or (not dated and self.dates(rel))

    def dated_source(self, src: str, data: bytes) -> bytes | None:
        """What a move or copy from ``src`` keeps the date of: the source itself when it lies in
        the memory area (its date is the workspace's); a file from anywhere else is a new
        memory, dated by the write."""
        return data if self.dates(src) else None

    def prepare(
        self,
        rel: str,
        data: bytes,
        dated_by: bytes | None = None,
        replaced: bytes | None = None,
    ) -> bytes:
        """What will be stored for ``data`` written to ``rel``: reminders stripped, date stamped.

        Every file of the memory area but the index that has frontmatter gets the trusted date
        in its layout's date key (:meth:`~memfs.layout.Layout.date_key`): the date of this
        change, or, when its body is the body of ``dated_by`` (the content it replaces, or the
        file a move or copy takes it from), the date ``dated_by`` had
        (:func:`~memfs.frontmatter_block.change_date`). A date the caller wrote is never kept;
        a migration keeps it, clamped to today. Memory files also lose a reminder copied from
        a read; a file of the memory area or the index holding memfs's own words — the
        context block's frame (:data:`memfs.tags.FRAME_OPENING`) or a write receipt — is
        refused with :class:`~memfs.errors.CopiedTextError`.

        ``replaced`` is the content the write replaces (None: a new file, or not known). A
        memory file it held as a memory memfs can read (:attr:`MemoryRecord.readable
        <memfs.records.MemoryRecord.readable>`) must stay readable: content without
        frontmatter, or with frontmatter no reader can use, is refused with
        :class:`~memfs.errors.UnreadableMemoryError` — it would lose the memory's name,
        description, type and date, and with the date its staleness reminder. Any other change
        (an unknown type, say) is stored; so is an unreadable memory written unreadable again,
        and anything a migration writes.

        A write to a guarded path (:meth:`is_guarded`) is refused with
        :class:`~memfs.credentials.CredentialRefusedError` when its content or its name looks
        like it holds a credential: those files are replayed into every later turn.
        """
        layout = self.layout
        if self.is_guarded(rel):
            check_credentials(rel, data)
        if layout.in_memory_area(rel) or layout.is_index(rel):
            for pattern, what in _COPIED:
                if pattern.search(data):
                    raise errors.CopiedTextError(rel, what)
        if self.dates(rel):
            if layout.is_memory_file(rel):
                data = staleness.strip_reminders(data)  # only memory files are read with one
                # Checked before the stamp, which leaves a file without frontmatter as it is.
                if replaced is not None and not self.migrating:
                    self._keep_readable(rel, data, replaced)
            # Any file of the memory area with frontmatter (notes.txt too) gets the trusted
            # date. Raises FrontmatterStampError (a ValueError saying how to fix it) rather than
            # store a date the stamp cannot vouch for.
            today = self.today()
            if self.migrating:
                return clamp_future_date(data, today, rel, date_key=layout.date_key)
            date = change_date(data, dated_by, today)
            data = stamp_date(data, date, today, rel, date_key=layout.date_key)
        return data

    def _keep_readable(self, rel: str, data: bytes, replaced: bytes) -> None:
        """Refuse ``data`` over ``replaced`` at the memory file ``rel`` if a readable memory
        would become an unreadable one."""
        if parse_memory(data, rel).readable or not parse_memory(replaced, rel).readable:
            return
        raise errors.UnreadableMemoryError(rel, unreadable_because(data))

    def prepared(
        self, rel: str, data: bytes, dated_by: bytes | None, replaced: bytes | None = None
    ) -> bytes:
        """:meth:`prepare`, refusing a memory file over ``max_memory_file_bytes``."""
        prepared = self.prepare(rel, data, dated_by, replaced)
        limit = self.max_memory_file_bytes
        if limit is not None and len(prepared) > limit and self.dates(rel):
            raise errors.MemoryFileTooLargeError(rel, len(prepared), limit, self.layout.index_path)
        return prepared
