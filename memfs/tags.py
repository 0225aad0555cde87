"""Tags a model could read as markup: one matcher and one escaper for every surface.

The staleness reminder and the context frame both wrap content in ``<system-reminder>`` tags;
content inside them must not be able to close them or open new ones. :func:`tag_pattern`
matches what a model could read as ``<name …>`` or ``</name …>`` and :func:`escape_tags`
makes each match inert (``&lt;…&gt;``), for text and for bytes that need not be UTF-8.
"""

from __future__ import annotations

import re
import unicodedata

REMINDER_TAG = "system-reminder"

# Anything a model could read as opening or closing a tag: any case; spaces, separators and
# invisible characters (format characters, combining marks, variation selectors) anywhere
# inside; letters in compatibility forms (fullwidth, mathematical, circled) and common Cyrillic,
# Greek and small-capital look-alikes; and the bracket look-alikes a tokenizer may fold into
# '<' / '>'.
_LT = "<\uff1c\ufe64\u2039\u3008\u2329\u27e8\u02c2\u1438\u276e"
_GT = ">\uff1e\ufe65\u203a\u3009\u232a\u27e9\u02c3\u1433\u276f"
OPEN_BRACKETS = _LT
"""Every character a tag from :func:`tag_pattern` can start with (a cheap pre-check)."""
_INVISIBLE = (
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\U000e0000-\U000e01ef"
    "\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f"
)
_LOOKALIKES = {
    "c": "сϲᴄ", "d": "ԁᴅ", "e": "еєҽεᴇ", "f": "ꜰ", "i": "іιɩɪıİ", "l": "ӏʟ", "m": "мᴍ",
    "n": "пոɴ", "o": "оοᴏօ", "r": "гʀ", "s": "ѕꜱſ", "t": "тτᴛ", "x": "хχ", "y": "уүʏγ",
}  # fmt: skip
_COMPAT_RANGES = ((0xFF21, 0xFF5A), (0x1D400, 0x1D6A3), (0x24B6, 0x24E9), (0x1F130, 0x1F189))


def _letter_classes(word: str) -> dict[str, str]:
    classes = {c: c + c.upper() + _LOOKALIKES.get(c, "") for c in set(word)}
    for low, high in _COMPAT_RANGES:
        for cp in range(low, high + 1):
            folded = unicodedata.normalize("NFKC", chr(cp)).lower()
            if folded in classes:
                classes[folded] += chr(cp)
    return {c: "".join(sorted(set(chars + chars.upper()))) for c, chars in classes.items()}


_GAP = rf"[\s{_INVISIBLE}]*"
_SEP = rf"[\s_\-\u2010-\u2015\u2212\ufe63\uff0d\uff3f{_INVISIBLE}]*"


def _spelled(name: str) -> str:
    """``name`` (words joined by '-' or '_') as a pattern for every way a model could read it."""
    classes = _letter_classes(name.replace("-", "").replace("_", ""))
    words = re.split(r"[-_]", name)
    return _SEP.join(
        f"[{_INVISIBLE}]*".join(f"[{re.escape(classes[c])}]" for c in word) for word in words
    )


def tag_pattern(*names: str) -> re.Pattern[str]:
    """A tag a model could read as ``<name …>`` or ``</name …>``, for any of ``names``.

    A match runs from the opening bracket to the closing one, or ends after the name when no
    closing bracket follows before the next '<': an unclosed ``</system-reminder`` reads as a
    close too, and escaping it in the same pass keeps ``<system reminder<system-reminder>>``
    from closing into a new tag once the inner one is escaped.
    """
    spelled = "|".join(_spelled(n) for n in names)
    # No IGNORECASE: the letter classes hold both cases already, and matching is 3x faster.
    return re.compile(rf"[{_LT}]{_GAP}/?{_GAP}(?:{spelled})\b(?:[^{_LT}{_GT}]*[{_GT}])?")


def _escape(m: re.Match[str]) -> str:
    tag = m.group(0)
    return "&lt;" + (tag[1:-1] + "&gt;" if tag[-1] in _GT else tag[1:])


def may_hold_tag(text: str) -> bool:
    """Whether ``text`` holds any bracket a tag starts with (the cheap test before matching)."""
    return any(lt in text for lt in _LT)


def escape_tags(text: str, pattern: re.Pattern[str]) -> str:
    """``text`` with every match of ``pattern`` (from :func:`tag_pattern`) made inert."""
    if not may_hold_tag(text):
        return text
    return pattern.sub(_escape, text)


def escape_tags_in_bytes(raw: bytes, pattern: re.Pattern[str]) -> bytes:
    """:func:`escape_tags` over bytes; every other byte, valid UTF-8 or not, is kept."""
    if raw.isascii():
        if b"<" not in raw:
            return raw  # the hot path: one memchr, no decode
        text = raw.decode("ascii")
    else:
        text = raw.decode("utf-8", "surrogateescape")
        if not may_hold_tag(text):
            return raw
    escaped, n = pattern.subn(_escape, text)
    return escaped.encode("utf-8", "surrogateescape") if n else raw
