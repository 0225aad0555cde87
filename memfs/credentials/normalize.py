"""What the guard scans: the text as a reader sees it, not as its code points spell it.

A secret split by a zero-width space (``ghp_ab\u200bcd…``) or typed in fullwidth forms
(``ｇｈｐ＿…``) is the same secret to a model that reads it. :func:`normalize` drops Unicode
format characters (category ``Cf``: zero-width spaces and joiners, word joiner, BOM, soft
hyphen, bidi controls, tags) and applies NFKC, so the patterns see ``ghp_abcd…``.

A combining mark right after an ASCII letter or digit is dropped too: inside a token
(``ghp_a\u0301b…``) NFKC would compose it into ``á``, which no token alphabet has.

ASCII text (most memory files) is returned as it is, without a copy. Offsets of findings
refer to the normalised text; :meth:`Normalized.original` maps one back to the text as
written (exact for dropped and widened characters; inside a sequence NFKC composes, such as a
letter and its combining accent, it points at the sequence's first character).
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from dataclasses import dataclass
from functools import cache


@cache
def _format_chars() -> re.Pattern[str]:
    """Every ``Cf`` code point, as one character class (built on first use, not at import).

    Format characters live in planes 0, 1 and 14 only (planes 2-13 are ideographs, 15-16
    private use), so the first call scans a fraction of Unicode rather than all of it.
    """
    return _category_class("Cf")


@cache
def _marks_after_ascii() -> re.Pattern[str]:
    """Combining diacritics right after an ASCII letter or digit (``ghp_a\u0301b…``): dropped,
    so NFKC does not compose them into a letter the token's alphabet lacks. The diacritic
    blocks only: a variation selector after a digit (a keycap emoji) is left alone."""
    return re.compile(r"(?<=[0-9A-Za-z_])[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff]+")


def _category_class(category: str) -> re.Pattern[str]:
    ranges: list[str] = []
    start = prev = -2
    for cp in itertools.chain(range(0x20000), range(0xE0000, 0xE1000)):
        if unicodedata.category(chr(cp)) != category:
            continue
        if cp != prev + 1:
            if start >= 0:
                ranges.append(_range(start, prev))
            start = cp
        prev = cp
    ranges.append(_range(start, prev))
    return re.compile("[" + "".join(ranges) + "]")


def _range(a: int, b: int) -> str:
    return re.escape(chr(a)) if a == b else f"{re.escape(chr(a))}-{re.escape(chr(b))}"


@dataclass(frozen=True)
class Normalized:
    """The scanned text and how to find a position of it in the written one."""

    text: str
    written: str

    @property
    def changed(self) -> bool:
        return self.text is not self.written

    def original(self, pos: int) -> int:
        """The offset in the written text of normalised offset ``pos``."""
        if not self.changed:
            return pos
        fmt, marks = _format_chars(), _marks_after_ascii()
        seen = 0
        for i, c in enumerate(self.written):
            if seen >= pos:
                return i
            if not fmt.match(c) and not marks.match(self.written, i):
                seen += len(unicodedata.normalize("NFKC", c))
        return len(self.written)


def normalize(text: str) -> Normalized:
    """``text`` without format characters, in NFKC; ``text`` itself when nothing changes."""
    if text.isascii():
        return Normalized(text, text)
    out = text
    fmt = _format_chars()
    if fmt.search(out):
        out = fmt.sub("", out)
    marks = _marks_after_ascii()
    if marks.search(out):
        out = marks.sub("", out)
    if not unicodedata.is_normalized("NFKC", out):
        out = unicodedata.normalize("NFKC", out)
    return Normalized(text if out == text else out, text)
