"""Tags a model could read as markup: one matcher and one escaper for every surface.

The staleness reminder and the context frame wrap content in ``<system-reminder>`` and
``<context_file>`` tags. Nothing an agent reads — a memory's body, the index, any other file, a
file name in a listing or a write result — may close them or open new ones, so every such text
goes through :func:`escape_for_agent` (or :meth:`TagMatcher.escape` with names of its own).

Matching runs on a *folded* copy of the text, in which each character stands for what a reader
could take it for:

* its compatibility decomposition, case-folded (NFKD, so fullwidth and mathematical letters,
  circled letters, ligatures such as ``ﬆ`` and ``＜`` become plain ones; decomposed rather than
  composed, so a letter under a combining mark still counts as the letter);
* nothing, for what a reader does not see: every format character (Cf), combining mark (Mn)
  and enclosing mark (Me) — also those a precomposed letter decomposes into — and the other
  default-ignorable code points (the Hangul fillers, the unassigned ignorable ranges);
* ``<`` and ``>`` for the bracket look-alikes, ``-`` for every dash, the minus sign and every
  connector punctuation but ``_`` itself (a separator inside a name that, unlike ``_``, ends
  one), a space for every space, and the Latin letter for the common Cyrillic, Greek and
  small-capital look-alikes.

An invisible character folds to a placeholder that the pattern skips inside a tag and that
ends a name like any other non-letter (``<system-reminder`` + U+200B + ``x`` is a tag to a
reader that does not drop U+200B, so it is escaped). A match found in the folded copy is mapped
back to the original characters and made inert there: its opening bracket becomes ``&lt;``
and its closing bracket, if any, ``&gt;``; every other character (and every byte of content
that is not UTF-8) is kept. The fold is per character, one character for one except the few
whose decomposition holds several letters (``ﬆ`` → ``st``); offsets are mapped back through
those, and only when a tag was found.

Matching is linear in the text: every repetition in the pattern is possessive and none can
cross a ``<``, so each bracket is tried once, over the text up to the next bracket.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from bisect import bisect_right
from collections.abc import Hashable, Iterable
from typing import AnyStr

from memfs.memo import BoundedMemo

REMINDER_TAG = "system-reminder"
FRAME_OPENING = "The workspace files below are loaded into context for this turn."
"""The first sentence of every frame around the context block (:mod:`memfs.context`): memfs's
own words, never a memory's (:class:`~memfs.write_rules.WriteRules` refuses a memory holding
them)."""

FILE_TAG = "context_file"
AGENT_TAGS: tuple[str, ...] = (REMINDER_TAG, "context-file", "context-files")
"""The tags MemFS itself writes around what an agent reads: the reminder and the frame."""

# -- the fold --------------------------------------------------------------------------------------

_LT_LOOKALIKES = "\u2039\u3008\u2329\u27e8\u02c2\u1438\u276e"
_GT_LOOKALIKES = "\u203a\u3009\u232a\u27e9\u02c3\u1433\u276f"
OPEN_BRACKETS = "<\uff1c\ufe64\u226e" + _LT_LOOKALIKES
"""Every character whose fold is ``<``: a tag can only start at one of them (the cheap test)."""

_DROPPED = frozenset({"Cf", "Mn", "Me"})
# Default-ignorable code points outside Cf/Mn/Me: the Hangul fillers (Lo) and the ranges
# Unicode reserves as ignorable before it assigns them, which a newer Unicode may make marks.
_IGNORABLE_RANGES = (
    (0x115F, 0x1160), (0x3164, 0x3164), (0xFFA0, 0xFFA0), (0x2065, 0x2065),
    (0xFFF0, 0xFFF8), (0xE0000, 0xE0FFF),
)  # fmt: skip
_LOOKALIKES = {
    "a": "а", "c": "сϲᴄ", "d": "ԁᴅ", "e": "еєҽεᴇ", "f": "ꜰ", "h": "һ", "i": "іιɩɪı",
    "j": "ј", "k": "κ", "l": "ӏʟ", "m": "мᴍ", "n": "пոɴ", "o": "оοᴏօ", "p": "рρ", "r": "гʀ",
    "s": "ѕꜱ", "t": "тτᴛ", "u": "υ", "v": "ν", "x": "хχ", "y": "уүʏγ",
}  # fmt: skip
_MAPPED = {c: latin for latin, chars in _LOOKALIKES.items() for c in chars}
_MAPPED.update({c: "<" for c in _LT_LOOKALIKES} | {c: ">" for c in _GT_LOOKALIKES})
_MAPPED["\u2212"] = "-"  # the minus sign (Sm) reads as a hyphen
_GAP_CHARS = "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f "
# A fold of several characters matters only if the pattern could see one of them; any other
# keeps its first character (which decides, after a tag name, whether the name ended there).
_RELEVANT = frozenset("abcdefghijklmnopqrstuvwxyz0123456789<>/-_" + _GAP_CHARS)


def _ignorable(cp: int) -> bool:
    return any(low <= cp <= high for low, high in _IGNORABLE_RANGES)


def _fold_one(c: str) -> str:
    if unicodedata.category(c) in _DROPPED or _ignorable(ord(c)):
        return ""
    mapped = _MAPPED.get(c)
    if mapped is not None:
        return mapped
    if c.isascii():
        return c
    if c.isspace():
        return " "
    category = unicodedata.category(c)
    if category == "Pd":
        return "-"
    if category == "Pc":
        return "-"  # a separator like '_', but not a word character: '‿' after a name ends it
    return c


def fold_char(ch: str) -> str:
    """What one character reads as (see the module docstring); ``""`` when it is invisible."""
    out = []
    for d in unicodedata.normalize("NFKD", ch):
        if unicodedata.category(d) in _DROPPED:
            continue  # before case folding: a mark never turns into a letter
        for c in unicodedata.normalize("NFKD", d.casefold()):
            out.append(_fold_one(c))
    return "".join(out)


def fold(text: str) -> str:
    """The folded copy of ``text``: :func:`fold_char` of each character, joined."""
    return "".join(fold_char(ch) for ch in text)


_TABLE_MAX = 1 << 15
"""Entries the translation table keeps (an item's text uses a few thousand characters)."""
_ASCII = {cp: chr(cp).lower() for cp in range(128)}


_YPOGEGRAMMENI = "\u0345"
_GONE = "\udfff"
"""What an invisible character folds to: the pattern skips it inside a tag, and it ends a name
as any non-letter does. A lone surrogate that UTF-8 decoding, even with ``surrogateescape``,
never produces."""


class _FoldTable(dict[int, str]):
    """``ord(ch) -> fold`` for :meth:`str.translate`, filled as characters are met.

    :data:`_GONE` for an invisible character, the first character of a fold the pattern cannot
    see into, and the whole fold for the few that expand into letters (also kept in
    :data:`_expansions`: the only characters that move offsets).
    """

    def __missing__(self, cp: int) -> str:
        if len(self) >= _TABLE_MAX:
            self.clear()
            self.update(_ASCII)
        ch = chr(cp)
        folded = fold_char(ch)
        if folded and unicodedata.category(unicodedata.normalize("NFKD", ch)[0]) in _DROPPED:
            # Its decomposition starts with a mark (Thai SARA AM): a reader that keeps marks
            # sees whatever came before end there.
            folded = _GONE + folded
        if not folded:
            folded = _GONE
        elif len(folded) > 1:
            if _RELEVANT.isdisjoint(folded):
                folded = folded[0]
            else:
                _expansions.add(chr(cp), folded)
        self[cp] = folded
        return folded


class _Expansions:
    """The characters met so far that fold into several letters, and a regex finding them."""

    def __init__(self) -> None:
        self.folds: dict[str, str] = {}
        self._regex: re.Pattern[str] | None = None
        self._lock = threading.Lock()

    def add(self, ch: str, folded: str) -> None:
        with self._lock:
            if ch not in self.folds:
                self.folds[ch] = folded
                self._regex = None

    def regex(self) -> re.Pattern[str]:
        with self._lock:
            if self._regex is None:
                chars = "".join(re.escape(c) for c in sorted(self.folds))
                self._regex = re.compile(f"[{chars}]" if chars else "(?!)")
            return self._regex


_expansions = _Expansions()
_TABLE = _FoldTable(_ASCII)


# -- the pattern -----------------------------------------------------------------------------------


def _source(names: Iterable[str], gone: str) -> str:
    """The pattern over a folded copy in which ``gone`` stands for an invisible character."""
    skip = f"{gone}*+" if gone else ""
    gap = rf"[\t-\r\x1c-\x20{gone}]*+"
    sep = rf"[\t-\r\x1c-\x20_\-{gone}]*+"
    spelled = set()
    for name in names:
        words = re.split(r"[-_]", name.lower())
        if not all(w.isascii() and w.isalpha() for w in words):
            raise ValueError(f"A tag name is ASCII letters joined by '-' or '_', not {name!r}.")
        spelled.add(sep.join(skip.join(w) for w in words))
    # An invisible character after the name ends it (it is no letter): a reader that does not
    # drop it sees the name end there, so the tag is matched either way.
    alternatives = "|".join(sorted(spelled, key=len, reverse=True))
    return rf"<{gap}(?:/{gap})?(?:{alternatives})\b(?:[^<>]*+(>))?"


class TagMatcher:
    """What a model could read as ``<name …>`` or ``</name …>`` for any of ``names``.

    A match runs from the opening bracket to the closing one, or ends after the name when no
    closing bracket follows before the next '<': an unclosed ``</system-reminder`` reads as a
    close too, and escaping it in the same pass keeps ``<system reminder<system-reminder>>``
    from closing into a new tag once the inner one is escaped. Escaping is idempotent: an
    escaped text holds no match.
    """

    def __init__(self, names: Iterable[str]) -> None:
        self.names = tuple(names)
        self._text = re.compile(_source(self.names, _GONE))
        self._bytes = re.compile(_source(self.names, "").encode("ascii"))  # ASCII: none gone

    def __repr__(self) -> str:
        return f"TagMatcher{self.names!r}"

    def brackets(self, text: str) -> list[tuple[int, int]]:
        """``(opening, closing)`` offsets in ``text`` of every tag in it; closing is -1 when
        the tag has no closing bracket."""
        if text.isascii():
            if "<" not in text:
                return []
            return [(m.start(), m.start(1)) for m in self._text.finditer(text.lower())]
        if not may_hold_tag(text):
            return []
        found = self._find(text)
        if _YPOGEGRAMMENI in text:
            # The one mark that case-folds into a letter: it reads as nothing or as an iota.
            both = dict(self._find(text.replace(_YPOGEGRAMMENI, "\u03b9")))
            for lt, gt in found:
                both[lt] = max(gt, both.get(lt, -1))
            found = sorted(both.items())
        return found

    def _find(self, text: str) -> list[tuple[int, int]]:
        folded = text.translate(_TABLE)
        found = [(m.start(), m.start(1)) for m in self._text.finditer(folded)]
        if found and len(folded) != len(text):
            found = _past_expansions(text, found)
        return found

    def escape(self, text: str) -> str:
        """``text`` with every tag made inert; ``text`` itself when it holds none."""
        found = self.brackets(text)
        return _splice(text, found, "&lt;", "&gt;") if found else text

    def escape_bytes(self, raw: bytes) -> bytes:
        """:meth:`escape` over bytes; every other byte, valid UTF-8 or not, is kept."""
        if raw.isascii():
            if b"<" not in raw:
                return raw  # the hot path: one memchr, no decode
            found = [(m.start(), m.start(1)) for m in self._bytes.finditer(raw.lower())]
            return _splice(raw, found, b"&lt;", b"&gt;") if found else raw
        text = raw.decode("utf-8", "surrogateescape")
        found = self.brackets(text)
        if not found:
            return raw
        return _splice(text, found, "&lt;", "&gt;").encode("utf-8", "surrogateescape")


def _shifted(
    found: list[tuple[int, int]], at: list[int], shifts: list[int]
) -> list[tuple[int, int]]:
    """Each offset ``o`` in ``found`` less ``shifts[k]``, ``k`` the count of ``at`` up to ``o``."""
    return [
        (
            lt - shifts[bisect_right(at, lt)],
            gt if gt < 0 else gt - shifts[bisect_right(at, gt)],
        )
        for lt, gt in found
    ]


def _past_expansions(text: str, found: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Offsets in the translated copy to offsets in ``text`` (brackets never expand)."""
    at: list[int] = []  # where each expanding character starts in the translated copy
    shifts = [0]  # characters gained past each of them
    folds = _expansions.folds
    for m in _expansions.regex().finditer(text):
        at.append(m.start() + shifts[-1])
        shifts.append(shifts[-1] + len(folds[m.group()]) - 1)
    return _shifted(found, at, shifts)


def _splice(text: AnyStr, found: list[tuple[int, int]], lt: AnyStr, gt: AnyStr) -> AnyStr:
    """``text`` with each opening bracket in ``found`` made ``lt``, each closing one ``gt``."""
    parts: list[AnyStr] = []
    prev = 0
    for open_at, close_at in found:
        if close_at < 0:
            parts += (text[prev:open_at], lt)
            prev = open_at + 1
        else:
            parts += (text[prev:open_at], lt, text[open_at + 1 : close_at], gt)
            prev = close_at + 1
    parts.append(text[prev:])
    return text[:0].join(parts)


def tag_pattern(*names: str) -> TagMatcher:
    """The matcher of a model-readable ``<name …>`` / ``</name …>`` for any of ``names``."""
    return TagMatcher(names)


def may_hold_tag(text: str) -> bool:
    """Whether ``text`` holds any bracket a tag starts with (the cheap test before matching)."""
    return any(lt in text for lt in OPEN_BRACKETS)


def escape_tags(text: str, pattern: TagMatcher) -> str:
    """``text`` with every match of ``pattern`` (from :func:`tag_pattern`) made inert."""
    return pattern.escape(text)


def escape_tags_in_bytes(raw: bytes, pattern: TagMatcher) -> bytes:
    """:func:`escape_tags` over bytes; every other byte, valid UTF-8 or not, is kept."""
    return pattern.escape_bytes(raw)


AGENT_MATCHER = TagMatcher(AGENT_TAGS)


def escape_for_agent(text: str) -> str:
    """``text`` as any surface shows it to an agent: MemFS's own tags in it made inert.

    The one function for names and messages too: a listing, a write result or a resource
    name that prints ``memory/<system-reminder>…`` prints it escaped.
    """
    return AGENT_MATCHER.escape(text)


VIEW_MEMO_BUDGET_BYTES = 16 << 20
"""Bytes of stored content and escaped views :func:`escape_for_agent_bytes` keeps."""


_view_memo: BoundedMemo[bytes] = BoundedMemo(VIEW_MEMO_BUDGET_BYTES, max_entry_bytes=4 << 20)


def escape_for_agent_bytes(raw: bytes, version: Hashable | None = None) -> bytes:
    """:func:`escape_for_agent` of a file's bytes, memoised (the index is read every turn):
    checked against the bytes, or against the store's ``version`` of the file if it gave one."""
    if raw.isascii() and b"<" not in raw:
        return raw
    if type(raw) is not bytes:
        raw = bytes(raw)
    key: Hashable
    source: object
    if version is not None:
        key, source = ("version", version), len(raw)
    else:
        key, source = (len(raw), raw[-48:]), raw
    view = _view_memo.get(key, source)
    if view is None:
        view = AGENT_MATCHER.escape_bytes(raw)
        _view_memo.put(key, source, view, len(raw) + (0 if view is raw else len(view)))
    return view


def clear_memo() -> None:
    """Forget every memoised escaped view (benchmarks of first reads; tests)."""
    _view_memo.clear()
